/**
 * The JSON bytes a create or an update just wrote to etcd, kept with the object the write answers,
 * and where in them its resourceVersion goes: a JSON answer is then those bytes with the revision
 * spliced in, not a second encoding of the same object. Stored values carry no resourceVersion;
 * with it, and the trailing newline, they are byte for byte what encoding the answered object gives
 * (the storage codec writes kind, apiVersion, metadata first and ObjectMeta in Go's order, as
 * responses do).
 *
 * Storage keeps the bytes on the request's context with the fresh object a create or an update
 * returns (never modified after: it is handed straight to the response); an answer of any other
 * object (converted, copied, an unchanged update's cached object) is encoded as usual. On the
 * context, not in a WeakMap keyed by the object: an entry per write would cost every garbage
 * collection an ephemeron.
 */
import type { KubeObject } from './types';

/** Where `"resourceVersion":"<rv>"` goes in a stored value, and on which side its comma goes. */
export interface RevisionSlot {
  /** Byte offset of the insertion. */
  at: number;
  comma: 'after' | 'before' | 'none';
}

/** Where the bytes are kept: the request's context (CallContext.storedJson). */
export interface StoredJsonHolder {
  storedJson?: StoredJson;
}

/** The bytes a write stored, and the object it answers. */
export interface StoredJson {
  object: KubeObject;
  bytes: Buffer;
  slot: RevisionSlot;
}

/** Keeps on the request's context the bytes `obj` (whose metadata.resourceVersion is the revision they were written at) was stored as. */
export function rememberStoredJson(ctx: StoredJsonHolder | undefined, obj: KubeObject, bytes: Buffer, slot: RevisionSlot): void {
  if (ctx) ctx.storedJson = { object: obj, bytes, slot };
}

/**
 * The compact JSON encoding of `obj` (with the trailing newline of a response) from the bytes it
 * was stored as in this request, or undefined when it is not the object the request's write stored.
 */
export function storedJsonOf(ctx: StoredJsonHolder, obj: KubeObject): Buffer | undefined {
  const entry = ctx.storedJson;
  if (entry?.object !== obj) return undefined;
  const rv = obj.metadata?.resourceVersion;
  // A resourceVersion is etcd's revision in decimal: nothing in it needs escaping.
  if (typeof rv !== 'string' || !/^[0-9]+$/.test(rv)) return undefined;
  const { bytes, slot } = entry;
  const field = slot.comma === 'after' ? `"resourceVersion":"${rv}",` : slot.comma === 'before' ? `,"resourceVersion":"${rv}"` : `"resourceVersion":"${rv}"`;
  const out = Buffer.allocUnsafe(bytes.length + field.length + 1);
  bytes.copy(out, 0, 0, slot.at);
  out.write(field, slot.at, 'latin1');
  bytes.copy(out, slot.at + field.length, slot.at);
  out[out.length - 1] = 0x0a;
  return out;
}
