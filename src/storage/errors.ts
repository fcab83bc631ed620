/** Storage-level failures; the registry translates them into ApiErrors at its boundary. */

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
