/**
 * Unknown fields cut out of a large body before it reaches the main thread (endpoints/body-worker.ts
 * runs this next to its parse): a 3 MiB body whose bulk is a field the schema does not declare
 * then costs the event loop nothing. What is left decodes on the main thread exactly as the whole
 * body would have (schema-decoder.ts), so the rules here follow its walk: a struct's undeclared
 * key is unknown; a null field, a value of the wrong JSON type, a raw subtree and every scalar end
 * the descent (the decoder reports or keeps them itself).
 *
 * - `object` (a create or update body): unknown keys are removed and their strict-decoding paths
 *   returned in the decoder's order, which the caller hands to admission in place of the decoder's
 *   own (empty) list.
 * - `merge-patch` and `strategic-patch`: the unknown field must still reach the merged object, so
 *   its position (and kube's order of the unknown-field messages) stays: a non-null object or
 *   array value becomes the placeholder 0 (a null stays: it deletes nothing). A strategic patch
 *   is not entered below a list (a merge key may move its elements to other indexes) nor into an
 *   object holding a `$` directive (`$patch` errors quote the whole object; `$setElementOrder/x`,
 *   `$retainKeys` read its keys' values); a merge patch replaces lists whole, so their elements
 *   are pruned.
 * - `apply` (an apply configuration, which fails on an undeclared field): the apply's validation
 *   (apply/validate-config.ts, as smd's) stops at the first undeclared field of each object, so
 *   that field's value becomes the placeholder and the keys after it go, except the root's
 *   apiVersion, kind and metadata, which the apply reads before validating (metadata is left
 *   whole: `managedFields` must be nil). Lists are not entered: validation reads an item's list-map
 *   keys before its fields.
 * - `json-patch`: the `value` of an `add` or `replace` whose path is at or under a field the schema
 *   does not declare becomes the placeholder 0, unless another operation's `path` or `from` is the
 *   same, above it or below it (a `test`, `copy` or `move` could read the value; kube's JSON patch
 *   errors never quote values, so nothing else can tell). Paths are compared as text, so nothing is
 *   replaced when any path is not rooted at `/` or passes through a list (where `/0`, `/-1` and an
 *   index shifted by an earlier remove can name one place).
 *
 * Iterative: a body may nest as deep as the JSON limit allows through a recursive schema.
 * Mutates `body`, which must be the caller's own.
 */
import type { DecodeNode, StructNode } from './decode-node';

export type PruneMode = 'object' | 'merge-patch' | 'strategic-patch' | 'json-patch' | 'apply';

const placeholder = 0;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value to walk, or (object mode) an unknown field to cut when its turn in key order comes. */
type Frame =
  | {
      node: DecodeNode;
      value: unknown;
      /** The strict-decoding path of `value` ('' at the root), as schema-decoder.ts spells it. */
      path: string;
    }
  | { cut: string; from: Record<string, unknown>; key: string };

/** Prunes `body` in place against `root`; returns the removed fields' paths (`object` mode only). */
export function pruneUnknownFields(root: StructNode, body: unknown, mode: PruneMode): string[] {
  if (mode === 'json-patch') {
    placeholdUnknownOpValues(root, body);
    return [];
  }
  const removed: string[] = [];
  const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
  // Depth first in key order, as the decoder walks (and reports): children pushed in reverse.
  const stack: Frame[] = [{ node: root, value: body, path: '' }];
  while (stack.length) {
    const frame = stack.pop() as Frame;
    if ('cut' in frame) {
      removed.push(frame.cut);
      delete frame.from[frame.key];
      continue;
    }
    const { node, value, path } = frame;
    const pending: Frame[] = [];
    if (node.kind === 'struct') {
      if (!isPlainObject(value)) continue;
      // strategic: an object with a directive is left whole (its errors quote it, its directives name its keys)
      if (mode === 'strategic-patch' && Object.keys(value).some((k) => k.startsWith('$'))) continue;
      let undeclared = false;
      for (const key of Object.keys(value)) {
        const v = value[key];
        const field = node.fields.get(key);
        if (undeclared) {
          // apply: past the first undeclared field, unread
          if (path !== '' || (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata')) delete value[key];
          continue;
        }
        if (field) {
          // apply: the root's metadata is read before validation (managedFields must be nil), so it stays whole
          if (v !== null && !(mode === 'apply' && path === '' && key === 'metadata')) pending.push({ node: field, value: v, path: join(path, key) });
          continue;
        }
        if (mode === 'object') {
          pending.push({ cut: join(path, key), from: value, key });
        } else if (mode === 'apply') {
          undeclared = true;
          if (typeof v === 'object' && v !== null) value[key] = placeholder;
        } else if (typeof v === 'object' && v !== null && !(mode === 'strategic-patch' && holdsDirective(v))) {
          // (a directive below it may delete or reshape it in the merge)
          value[key] = placeholder;
        }
      }
    } else if (node.kind === 'map') {
      if (!isPlainObject(value)) continue;
      for (const key of Object.keys(value)) {
        const v = value[key];
        if (v !== null && (mode !== 'strategic-patch' || !key.startsWith('$'))) pending.push({ node: node.elem, value: v, path: join(path, key) });
      }
    } else if (node.kind === 'array') {
      // strategic: a merge key may move items to other indexes; apply: validation reads an item's
      // list-map keys before its fields, and they may follow an undeclared one
      if (!Array.isArray(value) || mode === 'strategic-patch' || mode === 'apply') continue;
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (v !== null && (node.elem.kind === 'struct' || node.elem.kind === 'map' || node.elem.kind === 'array')) {
          pending.push({ node: node.elem, value: v, path: `${path}[${i}]` });
        }
      }
    }
    for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as Frame);
  }
  return removed;
}

/** Whether a strategic merge patch value has a `$` directive anywhere in it (explicit stack: any depth). */
function holdsDirective(root: object): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
    } else if (isPlainObject(v)) {
      for (const k of Object.keys(v)) {
        if (k.startsWith('$')) return true;
        const x = v[k];
        if (typeof x === 'object' && x !== null) stack.push(x);
      }
    }
  }
  return false;
}

/** RFC 6901 reference tokens of a JSON pointer ("" is the root). */
function pointerTokens(path: string): string[] {
  return path === '' ? [] : path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Where a JSON pointer leads in the schema: through a list (where `/0`, `/-1` or an index shifted
 * by an earlier remove may name one place), to or under a field the schema does not declare, or
 * neither (a raw subtree or a scalar keeps whatever is there).
 */
function pointerLeads(root: StructNode, path: string): 'list' | 'unknown' | 'declared' {
  let node: DecodeNode = root;
  for (const token of pointerTokens(path)) {
    if (node.kind === 'struct') {
      const field = node.fields.get(token);
      if (!field) return 'unknown';
      node = field;
    } else if (node.kind === 'map') {
      node = node.elem;
    } else {
      return node.kind === 'array' ? 'list' : 'declared';
    }
  }
  return 'declared';
}

function placeholdUnknownOpValues(root: StructNode, ops: unknown): void {
  if (!Array.isArray(ops)) return;
  // Paths are compared as text below, so every one must have one spelling: rooted, and not
  // through a list (`/0`, `/-1` and `/+0` may name one item; an earlier remove shifts them).
  for (const op of ops) {
    if (!isPlainObject(op)) continue;
    for (const p of [op.path, op.from]) {
      if (typeof p === 'string' && ((p !== '' && !p.startsWith('/')) || pointerLeads(root, p) === 'list')) return;
    }
  }
  // Every path and `from` once per mention: an operation's own path counts once for itself.
  const mentions = new Map<string, number>();
  const mention = (p: unknown): void => {
    if (typeof p === 'string') mentions.set(p, (mentions.get(p) ?? 0) + 1);
  };
  for (const op of ops) {
    if (isPlainObject(op)) {
      mention(op.path);
      mention(op.from);
    }
  }
  const sorted = [...mentions.keys()].sort();
  /** Whether some mention other than the operation's own path is `path`, above it or below it. */
  const referenced = (path: string): boolean => {
    if ((mentions.get(path) ?? 0) > 1) return true;
    for (let i = path.indexOf('/', 1); i >= 0; i = path.indexOf('/', i + 1)) if (mentions.has(path.slice(0, i))) return true;
    if (mentions.has('')) return true;
    // Below it (textually: a sibling whose name starts the same is counted too, which only keeps a value).
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as string) <= path) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && (sorted[lo] as string).startsWith(path);
  };
  for (const op of ops) {
    if (!isPlainObject(op) || (op.op !== 'add' && op.op !== 'replace') || typeof op.path !== 'string') continue;
    const v = op.value;
    if (typeof v !== 'object' || v === null) continue;
    if (pointerLeads(root, op.path) === 'unknown' && !referenced(op.path)) op.value = placeholder;
  }
}
