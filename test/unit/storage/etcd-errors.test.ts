import { GRPCOutOfRangeError } from 'etcd3';
import { toStorageError } from '../../../src/storage/etcd/etcd-errors';
import { StorageError } from '../../../src/storage';

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
