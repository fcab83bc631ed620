import { GRPCOutOfRangeError } from 'etcd3';
import { toStorageError } from '../../../../src/storage/etcd/etcd-errors';
import { StorageError } from '../../../../src/storage';
import { ApiError } from '../../../../src/api';

describe('toStorageError: etcd3 client errors as StorageErrors', () => {
  test("etcd's ErrFutureRev is FutureRevision carrying etcd's own text (as Go's client reports it), not TooLargeResourceVersion", () => {
    // grpc-js puts the status code and name before etcd's description.
    const e = toStorageError(new GRPCOutOfRangeError('11 OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision'), '/registry/secrets/');
    expect(e).toBeInstanceOf(StorageError);
    expect(e).toMatchObject({ code: 'FutureRevision', key: '/registry/secrets/', message: 'etcdserver: mvcc: required revision is a future revision' });
  });

  test('a compacted revision is Compacted', () => {
    const e = toStorageError(new GRPCOutOfRangeError('11 OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted'), '/registry/secrets/');
    expect(e).toMatchObject({ code: 'Compacted' });
  });
});

describe('what etcd refuses and kube passes through: a 500 with no reason and the Go client text', () => {
  test('etcd\'s own error (an object past --max-request-bytes): its text alone', () => {
    const e = toStorageError(new Error('3 INVALID_ARGUMENT: etcdserver: request is too large'), '/registry/configmaps/a/b');
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
  });

  test("gRPC's message limit: Go's status text", () => {
    const e = toStorageError(new Error('8 RESOURCE_EXHAUSTED: grpc: received message larger than max (2578250 vs. 2097152)'), 'k');
    expect((e as ApiError).status).toMatchObject({
      message: 'rpc error: code = ResourceExhausted desc = grpc: received message larger than max (2578250 vs. 2097152)',
      code: 500,
    });
    expect((e as ApiError).status.reason).toBeUndefined();
  });

  test('anything else is left to the caller', () => {
    const e = new Error('13 INTERNAL: something');
    expect(toStorageError(e, 'k')).toBe(e);
  });
});
