import { StorageError, tooLargeResourceVersionError, watchErrorStatus } from '../../../src/storage';

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

  test('a start the store has not reached: 504 naming both revisions, with the retry the error carries', () => {
    const causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
    const message = 'Timeout: Too large resource version: 9, current: 7';
    // The watch cache's, after its wait (kube: resourceVersionTooHighRetrySeconds = 1).
    expect(watchErrorStatus(tooLargeResourceVersionError('/registry/secrets', 9n, 7n, 1))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Timeout',
      details: { causes, retryAfterSeconds: 1 },
      code: 504,
    });
    // etcd's validateMinimumResourceVersion passes 0: retryAfterSeconds is omitted.
    expect(watchErrorStatus(tooLargeResourceVersionError('/registry/secrets', 9n, 7n, 0))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Timeout',
      details: { causes },
      code: 504,
    });
  });

  test('anything else: 500', () => {
    expect(watchErrorStatus(new Error('boom'))).toMatchObject({ code: 500, reason: 'InternalError' });
  });
});
