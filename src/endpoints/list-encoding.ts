/**
 * A JSON list body assembled from per-item encodings: the bytes `encodeBody(stripItemTypes(list),
 * 'json', false)` would produce (kind, apiVersion, metadata first, then the list's other keys, one
 * trailing newline), without building and stringifying the whole object graph again.
 */
import type { KubeList, KubeObject } from '../api';
import { orderTopLevel } from './codec';

const comma = 0x2c;
const newline = 0x0a;

/**
 * Encodes `list` as compact JSON, taking each item's bytes from `itemJson` (which must return the
 * UTF-8 JSON of the item as a list item, i.e. without kind and apiVersion). Written into one Buffer.
 */
export function encodeJsonList(list: KubeList, itemJson: (item: KubeObject) => Buffer): Buffer {
  const items = list.items.map(itemJson);
  const ordered = orderTopLevel({ ...list, items: null }) as Record<string, unknown>;
  // The list's own fields as JSON.stringify writes an object's members; `items` is spliced in.
  let head = '{';
  let tail = '';
  let seenItems = false;
  for (const [k, v] of Object.entries(ordered)) {
    if (k === 'items') {
      head += `${head.length > 1 ? ',' : ''}${JSON.stringify(k)}:[`;
      seenItems = true;
      continue;
    }
    const value = JSON.stringify(v) as string | undefined;
    if (value === undefined) continue;
    const member = `${JSON.stringify(k)}:${value}`;
    if (seenItems) tail += `,${member}`;
    else head += `${head.length > 1 ? ',' : ''}${member}`;
  }
  tail = `]${tail}}`;
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + 1 + Math.max(0, items.length - 1);
  for (const b of items) size += b.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(head, 0);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = comma;
    at += (items[i] as Buffer).copy(out, at);
  }
  at += out.write(tail, at);
  out[at++] = newline;
  return out;
}
