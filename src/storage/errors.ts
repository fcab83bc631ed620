/** Storage-level failures; the registry translates them into ApiErrors at its boundary. */
import { errors, type Status } from '../api';

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'InvalidPrecondition'
  | 'Compacted'
  | 'TooLargeResourceVersion'
  | 'Unreachable'
  | 'InvalidObject';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Compacted: the oldest revision etcd still has; for TooLargeResourceVersion: current revision. */
    readonly revision: bigint = 0n,
    /** For TooLargeResourceVersion: the revision the client asked for. */
    readonly requested?: bigint,
  ) {
    super(message);
    this.name = 'StorageError';
  }
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
  if (isStorageError(err, 'TooLargeResourceVersion')) return errors.tooLargeResourceVersion(err.requested ?? 0n, err.revision).status;
  return errors.internal(err).status;
}
