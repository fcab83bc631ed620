/**
 * FieldsV1, the managedFields wire form of a FieldSet (smd fieldpath/serialize.go): a JSON object
 * whose keys are serialized path elements, each holding `{}` for a member leaf or a nested object;
 * `".":{}` comes first in a nested object when the node itself is also a member.
 */
import { FieldSet } from './field-set';
import { PathElement, PathElementSyntaxError, comparePathElements, deserializePathElement, serializePathElement } from './path-element';
import { isJsonObject } from './json-value';
import { jsonValueDepth } from '../api/json-clone';
import { scanJson } from '../api/json-depth';
import { Steps, runSteps } from '../api/steps';

/** A FieldsV1 object. Key order is the wire order (no key is integer-like, so JS keeps it). */
export type FieldsV1 = { [key: string]: FieldsV1 };

/** Encodes a set as kube does, byte for byte once JSON-encoded. */
export function fieldSetToFieldsV1(set: FieldSet): FieldsV1 {
  return runSteps(fieldSetToFieldsV1Steps(set));
}

/** Entries written between two stages of fieldSetToFieldsV1Steps: 250k keys take ~200 ms to write. */
const entriesPerStage = 32 * 1024;

/** fieldSetToFieldsV1 in stages (steps.ts): a set of hundreds of thousands of fields is written in parts. */
export function fieldSetToFieldsV1Steps(set: FieldSet): Steps<FieldsV1> {
  return emit(set, false, { left: entriesPerStage });
}

function* emit(set: FieldSet, includeSelf: boolean, budget: { left: number }): Steps<FieldsV1> {
  const out: FieldsV1 = {};
  const members = set.memberElements();
  const children = set.childEntries();
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  const put = (pe: PathElement, v: FieldsV1): void => {
    out[serializePathElement(pe)] = v;
  };
  while (mi < members.length || ci < children.length) {
    if (--budget.left <= 0) {
      budget.left = entriesPerStage;
      yield;
    }
    const m = members[mi];
    const c = children[ci];
    const cmp = m === undefined ? 1 : c === undefined ? -1 : comparePathElements(m, c.pe);
    if (cmp < 0) {
      put(m as PathElement, {});
      mi++;
    } else if (cmp > 0) {
      const child = c as { pe: PathElement; set: FieldSet };
      put(child.pe, yield* emit(child.set, false, budget));
      ci++;
    } else {
      const child = c as { pe: PathElement; set: FieldSet };
      put(child.pe, yield* emit(child.set, true, budget));
      mi++;
      ci++;
    }
  }
  return out;
}

/** The exact JSON text kube writes for a set, e.g. `{"f:data":{".":{},"f:password":{}}}`. */
export function fieldsV1String(set: FieldSet): string {
  return JSON.stringify(fieldSetToFieldsV1(set));
}

/**
 * Nesting past which a FieldsV1 value is not read (FieldsV1Error, so a request's managedFields
 * are ignored as kube ignores entries it cannot decode). smd itself reads up to json-iterator's
 * 10000 levels; no object of a served kind has field paths deeper than its schema (tens of
 * levels), and the trie operations (FieldSet) recurse once per level, so a bound well inside
 * Node's stack keeps them safe. A deviation only for hand-written managedFields this deep.
 */
export const MAX_FIELDS_V1_DEPTH = 1000;
const tooDeep = `exceeded max depth of ${MAX_FIELDS_V1_DEPTH}`;

/** Thrown when a FieldsV1 value cannot be read; the message is smd's reason. */
export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldsV1Error';
  }
}

/**
 * Decodes FieldsV1 (an object, or its JSON text) into a set. Keys of an unknown element type are
 * skipped, as smd does; a malformed key or a non-object value throws FieldsV1Error.
 */
export function fieldsV1ToFieldSet(fields: unknown): FieldSet {
  let value = fields;
  if (typeof fields === 'string') {
    // A text no longer than the bound cannot nest deeper than it.
    if (fields.length > MAX_FIELDS_V1_DEPTH && scanJson(fields, MAX_FIELDS_V1_DEPTH).depthError) throw new FieldsV1Error(tooDeep);
    try {
      value = JSON.parse(fields) as unknown;
    } catch (e) {
      throw new FieldsV1Error(e instanceof Error ? e.message : String(e));
    }
  }
  if (value === null || value === undefined) return FieldSet.empty();
  if (jsonValueDepth(value) > MAX_FIELDS_V1_DEPTH) throw new FieldsV1Error(tooDeep);
  const set = FieldSet.empty();
  read(value, [], set);
  return set;
}

// Returns whether the node itself is a member (smd readIterV1: `.` present, or no readable children).
function read(value: unknown, prefix: PathElement[], set: FieldSet): boolean {
  if (value === null) return true;
  if (!isJsonObject(value)) throw new FieldsV1Error(`expected an object at ${prefix.length ? serializePathElement(prefix[prefix.length - 1] as PathElement) : 'the root'}`);
  let isMember = false;
  let hasChildren = false;
  for (const [key, child] of Object.entries(value)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement;
    try {
      pe = deserializePathElement(key);
    } catch (e) {
      if (e instanceof PathElementSyntaxError && e.unknownType) continue;
      throw new FieldsV1Error(`parsing key as path element: ${e instanceof Error ? e.message : String(e)}`);
    }
    const path = [...prefix, pe];
    if (read(child, path, set)) set.insert(path);
    hasChildren = true;
  }
  return isMember || !hasChildren;
}
