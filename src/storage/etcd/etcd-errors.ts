/** Maps etcd3 client errors to StorageError (the only place that knows etcd3's error classes). */
import {
  ClientClosedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
} from 'etcd3';
import { StorageError, etcdFutureRevisionMessage } from '../errors';

export function toStorageError(e: unknown, key: string): unknown {
  if (e instanceof StorageError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (msg.includes('required revision has been compacted')) {
    return new StorageError('Compacted', key, msg);
  }
  // grpc-js prefixes the status ("11 OUT_OF_RANGE: "); Go's client error is etcd's text alone.
  if (msg.includes(etcdFutureRevisionMessage)) {
    return new StorageError('FutureRevision', key, etcdFutureRevisionMessage);
  }
  if (
    e instanceof GRPCUnavailableError ||
    e instanceof GRPCDeadlineExceededError ||
    e instanceof GRPCCancelledError ||
    e instanceof ClientClosedError ||
    /ECONNREFUSED|No connection established|Deadline exceeded|failed to connect|UNAVAILABLE/i.test(msg)
  ) {
    return new StorageError('Unreachable', key, msg);
  }
  return e;
}
