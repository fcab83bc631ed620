/** Maps etcd3 client errors to StorageError (the only place that knows etcd3's error classes). */
import {
  ClientClosedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
} from 'etcd3';
import { ApiError, failureStatus } from '../../api';
import { StorageError, etcdFutureRevisionMessage } from '../errors';

/** grpc-js's error text: `<code> <NAME>: <details>`. */
const grpcError = /^(\d+) ([A-Z_]+): ([\s\S]*)$/;

/**
 * An error etcd answered that kube passes through as it is: a 500 with no reason and the Go
 * client's text — etcd's own (`etcdserver: request is too large`, an object past
 * --max-request-bytes) or gRPC's (`rpc error: code = ResourceExhausted desc = grpc: received
 * message larger than max (…)`, past etcd's gRPC limit). kube-apiserver answers these so (an
 * object too large for etcd is a 500 there too).
 */
function passedThrough(msg: string): ApiError | undefined {
  const m = grpcError.exec(msg);
  if (!m) return undefined;
  const [, , name, details] = m as unknown as [string, string, string, string];
  if (details.startsWith('etcdserver: ')) return new ApiError(failureStatus(500, '', details));
  if (name !== 'RESOURCE_EXHAUSTED') return undefined;
  const goCode = name
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return new ApiError(failureStatus(500, '', `rpc error: code = ${goCode} desc = ${details}`));
}

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
  return passedThrough(msg) ?? e;
}
