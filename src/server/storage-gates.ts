/**
 * The feature gates the storage layers read, in one place for every composition (main.ts and the
 * test server): the etcd store's and the watch cache's options from `--feature-gates`.
 */
import type { FeatureGates } from '../config';
import type { CacherOptions, EtcdStoreOptions } from '../storage';

export interface StorageGateOptions {
  etcd: Pick<EtcdStoreOptions, 'allowUnsafeMalformedObjectDeletion'>;
  cacher: Pick<CacherOptions, 'consistentListFromCache' | 'watchFromStorageWithoutResourceVersion'>;
}

export function storageGateOptions(gates: FeatureGates): StorageGateOptions {
  return {
    etcd: { allowUnsafeMalformedObjectDeletion: gates.enabled('AllowUnsafeMalformedObjectDeletion') },
    cacher: {
      consistentListFromCache: gates.enabled('ConsistentListFromCache'),
      watchFromStorageWithoutResourceVersion: gates.enabled('WatchFromStorageWithoutResourceVersion'),
    },
  };
}
