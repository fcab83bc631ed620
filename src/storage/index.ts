export * from './interface';
export * from './errors';
export * from './transformer';
export * from './codec/json-codec';
export { EtcdStore, prefixEnd } from './etcd/etcd-store';
export type { EtcdStoreOptions } from './etcd/etcd-store';
export { Cacher } from './cache/cacher';
export type { CacherOptions } from './cache/cacher';
export { Compactor, compactRevKey } from './etcd/compactor';
