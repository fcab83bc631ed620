/** Storage-level failures; the registry translates them into ApiErrors at its boundary. */
import { errors, failureStatus, type Status } from '../api';
import { contextError } from '../api/request-context';
import type { WriteContext } from './interface';

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'InvalidPrecondition'
  | 'Compacted'
  | 'TooLargeResourceVersion'
  | 'FutureRevision'
  | 'Unreachable'
  /** A stored value that cannot be read back, reported as kube's store does without the gate (a plain error). */
  | 'Undecodable'
  /** The same, gate AllowUnsafeMalformedObjectDeletion on: kube's corrupt-object StorageError. */
  | 'CorruptObject'
  /** A list that met corrupt values (gate on): see CorruptObjectsError in corrupt.ts. */
  | 'CorruptObjects'
  /** A watch saw the deletion of a corrupt value (gate on). */
  | 'CorruptObjectDeleted'
  /** The write's request is done (deadline passed, client gone): nothing was sent. The message is Go's ctx.Err() text. */
  | 'ContextDone';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Compacted: the oldest revision etcd still has; for TooLargeResourceVersion: current revision. */
    readonly revision: bigint = 0n,
    /** For TooLargeResourceVersion: the revision the client asked for. */
    readonly requested?: bigint,
    /** For TooLargeResourceVersion: the Retry-After its Status carries (0: none). */
    readonly retryAfterSeconds = 0,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/**
 * kube's storage.NewTooLargeResourceVersionError: a read that must be at least `requested` saw only
 * `current`. The watch cache answers it after its 3 s wait with retry 1; the etcd store at once, with 0.
 */
export function tooLargeResourceVersionError(key: string, requested: bigint, current: bigint, retryAfterSeconds: number): StorageError {
  return new StorageError(
    'TooLargeResourceVersion',
    key,
    `Too large resource version: ${requested}, current: ${current}`,
    current,
    requested,
    retryAfterSeconds,
  );
}

/**
 * etcd's ErrFutureRev for a read at a revision it has not reached (an Exact list, a continue token).
 * kube 1.32 passes it up unconverted, so the client gets a 500 with etcd's text.
 */
export const etcdFutureRevisionMessage = 'etcdserver: mvcc: required revision is a future revision';

/** Throws ContextDone when the request a write serves is done (kube: grpc-go refuses a call on a done context). */
export function assertSendable(key: string, ctx: WriteContext | undefined): void {
  const done = ctx && contextError(ctx);
  if (done) throw new StorageError('ContextDone', key, done);
}

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

/**
 * The Status a watch ends with (its ERROR event) when storage fails under it, as kube's watch
 * reports it: a compacted start is 410 Expired, a start the store has not reached is 504
 * TooLargeResourceVersion naming both revisions, anything else 500.
 */
export function watchErrorStatus(err: unknown): Status {
  if (isStorageError(err, 'Compacted')) return errors.expired('The resourceVersion for the provided watch is too old.').status;
  if (isStorageError(err, 'TooLargeResourceVersion')) {
    return errors.tooLargeResourceVersion(err.requested ?? 0n, err.revision, err.retryAfterSeconds).status;
  }
  // kube's etcd3 interpretWatchError: the deletion of a corrupt object is a StorageReadError.
  if (isStorageError(err, 'CorruptObjectDeleted')) return failureStatus(500, 'StorageReadError', err.message);
  return errors.internal(err).status;
}
