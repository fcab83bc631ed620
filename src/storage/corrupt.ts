/**
 * A stored value the server cannot read back: its bytes fail the transformer (e.g. an encryption
 * key that is gone) or the codec. kube's etcd3 store calls such an object corrupt; with the gate
 * AllowUnsafeMalformedObjectDeletion its errors say so (apiserver storage/etcd3 corrupt_obj_deleter.go)
 * and the object can be deleted with DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential.
 * The words of every message here are kube 1.32's.
 */
import { StorageError } from './errors';

/** kube's aggregated list error (gate AllowUnsafeMalformedObjectDeletion): every corrupt value a list met. */
export class CorruptObjectsError extends StorageError {
  constructor(
    /** The values, in key order (at most maxCorruptObjectsListed). */
    readonly found: readonly CorruptValue[],
    /** More were found than are listed. */
    readonly truncated: boolean,
  ) {
    super('CorruptObjects', found[0]?.key ?? '', `unable to transform or decode ${found.length + (truncated ? 1 : 0)} objects`);
  }

  /** One per value: its full etcd key and kube's corrupt-object StorageError text. */
  get causes(): Array<{ key: string; message: string }> {
    return this.found.map((c) => ({ key: c.key, message: corruptStorageErrorText(c.key, c.corruptObjectText()) }));
  }
}

export class CorruptValue {
  constructor(
    /** The full etcd key. */
    readonly key: string,
    /** The key's mod revision (kube reports 0 for a value that failed the transformer). */
    readonly revision: bigint,
    /** Which step failed: the transformer (untransformable) or the codec (undecodable). */
    readonly step: 'untransformable' | 'undecodable',
    /** The underlying error's text. */
    readonly cause: string,
  ) {}

  /** kube's corruptObjectError: "object not decodable revision=5: …". */
  corruptObjectText(): string {
    const what = this.step === 'undecodable' ? 'object not decodable' : 'data from the storage is not transformable';
    return `${what} revision=${this.step === 'undecodable' ? this.revision : 0n}: ${this.cause}`;
  }

  /** The error kube's etcd3 store returns for it: the bare cause, or (gate on) the corruptObjectError. */
  plainText(gate: boolean): string {
    if (gate) return this.corruptObjectText();
    return this.step === 'untransformable' ? `unable to transform key "${this.key}": ${this.cause}` : this.cause;
  }
}

/** kube's storage.NewCorruptObjError(key, err).Error(). */
export function corruptStorageErrorText(key: string, inner: string): string {
  return `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${inner}`;
}

/** How kube's list aggregator (gate on) reports at most this many corrupt objects, then "too many". */
export const maxCorruptObjectsListed = 100;

/** Options deciding the wording: the gate, and the server's etcd prefix (kube's registry keys omit it). */
export interface CorruptErrorOptions {
  gate: boolean;
  keyPrefix: string;
}

/**
 * The error a get (or the read a delete starts with) answers for a corrupt value. Gate off: the
 * store's plain error, which kube answers as a 500 with no reason. Gate on: a corrupt-object
 * StorageError naming the registry key (no etcd prefix), which kube answers as InternalError.
 */
export function corruptReadError(c: CorruptValue, o: CorruptErrorOptions): StorageError {
  if (!o.gate) return new StorageError('Undecodable', c.key, c.plainText(false));
  const registryKey = c.key.startsWith(`${o.keyPrefix}/`) ? c.key.slice(o.keyPrefix.length) : c.key;
  return new StorageError('CorruptObject', c.key, corruptStorageErrorText(registryKey, c.corruptObjectText()));
}

/** The error an update's or delete's own read answers: kube returns the decoder's error unwrapped. */
export function corruptWriteError(c: CorruptValue, o: CorruptErrorOptions): StorageError {
  return new StorageError('Undecodable', c.key, c.plainText(o.gate));
}

/**
 * The error a list answers when it met corrupt values. Gate off: the first one's plain error (kube
 * aborts on the first). Gate on: all of them (at most 100, then "too many"), each naming its full
 * etcd key, answered as a 500 StorageReadError listing them.
 */
export function corruptListError(found: CorruptValue[], truncated: boolean, o: CorruptErrorOptions): StorageError {
  const first = found[0] as CorruptValue;
  if (!o.gate) return new StorageError('Undecodable', first.key, first.plainText(false));
  return new CorruptObjectsError(found, truncated);
}

/**
 * What a watch reports when an event's value is corrupt (kube's etcd3 watcher): a DELETE of a
 * corrupt object (gate on) is a StorageReadError; anything else the plain error, as InternalError.
 */
export function corruptWatchError(c: CorruptValue, deleted: boolean, o: CorruptErrorOptions): StorageError {
  if (o.gate && deleted) {
    return new StorageError('CorruptObjectDeleted', c.key, `saw a DELETED event, but object data is corrupt - ${c.corruptObjectText()}`);
  }
  return new StorageError('Undecodable', c.key, c.plainText(o.gate));
}
