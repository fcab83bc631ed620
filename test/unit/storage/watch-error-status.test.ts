import { StorageError, watchErrorStatus } from '../../../src/storage';

describe('watchErrorStatus: the ERROR event a watch ends with when storage fails', () => {
  test('a compacted start: 410 Expired', () => {
    expect(watchErrorStatus(new StorageError('Compacted', '/registry/secrets', 'compacted', 10n))).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
      message: 'The resourceVersion for the provided watch is too old.',
    });
  });

  test('a start the store has not reached: 504 naming both revisions', () => {
    const s = watchErrorStatus(new StorageError('TooLargeResourceVersion', '/registry/secrets', 'too large', 7n, 9n));
    expect(s).toMatchObject({ code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 9, current: 7' });
  });

  test('anything else: 500', () => {
    expect(watchErrorStatus(new Error('boom'))).toMatchObject({ code: 500, reason: 'InternalError' });
  });
});
