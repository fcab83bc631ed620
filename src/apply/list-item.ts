/** How an associative-list item is identified (smd typed/helpers.go listItemToPathElement). */
import { ListAtom } from './apply-type';
import { JsonValue, isJsonObject } from './json-value';
import { KeyField, PathElement, keyElement, valueElement } from './path-element';

/** Either the item's path element or smd's reason why it has none. */
export type ListItemElement = { pe: PathElement; error?: undefined } | { pe?: undefined; error: string };

/** The key element (list map; missing keys take their schema default) or value element (set) of an item. */
export function listItemElement(list: ListAtom, item: unknown): ListItemElement {
  if (list.relationship !== 'associative') return { error: 'invalid indexing of non-associative list' };
  if (list.keys.length > 0) {
    if (item === null || item === undefined) return { error: 'associative list with keys may not have a null element' };
    if (!isJsonObject(item)) return { error: 'associative list with keys may not have non-map elements' };
    const fields: KeyField[] = [];
    for (const name of list.keys) {
      if (name in item) {
        fields.push({ name, value: item[name] as JsonValue });
        continue;
      }
      const elem = list.elem();
      if (!elem.map) return { error: `couldn't find default value for ${name}: associative list may not have non-map types` };
      const def = elem.map.fields.get(name)?.default;
      if (def === undefined || def === null) {
        return { error: `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)` };
      }
      fields.push({ name, value: def as JsonValue });
    }
    return { pe: keyElement(fields) };
  }
  if (isJsonObject(item)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
  if (item === null || item === undefined) return { error: "associative list without keys has an element that's an explicit null" };
  return { pe: valueElement(item as JsonValue) };
}
