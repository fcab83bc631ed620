/**
 * The JSON bytes a create just wrote to etcd, kept with the object the create answers, and where in
 * them its resourceVersion goes: a JSON answer is then those bytes with the revision spliced in, not
 * a second encoding of the same object. Stored values carry no resourceVersion; with it, and the
 * trailing newline, they are byte for byte what encoding the answered object gives (the storage
 * codec writes kind, apiVersion, metadata first and ObjectMeta in Go's order, as responses do).
 *
 * Storage remembers the bytes for the fresh object a create returns (never modified after: it is
 * handed straight to the response); anything that converts or copies it loses them, and the
 * response is encoded as usual. Entries go with their objects.
 */
import type { KubeObject } from './types';

/** Where `"resourceVersion":"<rv>"` goes in a stored value, and on which side its comma goes. */
export interface RevisionSlot {
  /** Byte offset of the insertion. */
  at: number;
  comma: 'after' | 'before' | 'none';
}

interface StoredJson {
  bytes: Buffer;
  slot: RevisionSlot;
}

const stored = new WeakMap<object, StoredJson>();

/** Remembers the bytes `obj` (whose metadata.resourceVersion is the revision they were written at) was stored as. */
export function rememberStoredJson(obj: KubeObject, bytes: Buffer, slot: RevisionSlot): void {
  stored.set(obj, { bytes, slot });
}

/**
 * The compact JSON encoding of `obj` (with the trailing newline of a response) from the bytes it
 * was stored as, or undefined when they are not known.
 */
export function storedJsonOf(obj: KubeObject): Buffer | undefined {
  const entry = stored.get(obj);
  const rv = obj.metadata?.resourceVersion;
  // A resourceVersion is etcd's revision in decimal: nothing in it needs escaping.
  if (!entry || typeof rv !== 'string' || !/^[0-9]+$/.test(rv)) return undefined;
  const { bytes, slot } = entry;
  const field = slot.comma === 'after' ? `"resourceVersion":"${rv}",` : slot.comma === 'before' ? `,"resourceVersion":"${rv}"` : `"resourceVersion":"${rv}"`;
  const out = Buffer.allocUnsafe(bytes.length + field.length + 1);
  bytes.copy(out, 0, 0, slot.at);
  out.write(field, slot.at, 'latin1');
  bytes.copy(out, slot.at + field.length, slot.at);
  out[out.length - 1] = 0x0a;
  return out;
}
