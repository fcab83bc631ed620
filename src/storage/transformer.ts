/**
 * The hook for encryption at rest: every value passes through a Transformer on its way to and from
 * etcd. The etcd key is given as authenticated data (kube's aesgcm uses it as AAD).
 */
export interface Transformer {
  /** Turns stored bytes into plaintext; `stale` asks for a rewrite with the current key. */
  fromStorage(data: Buffer, key: string): Promise<{ data: Buffer; stale: boolean }>;
  toStorage(data: Buffer, key: string): Promise<Buffer>;
}

export const identityTransformer: Transformer = {
  fromStorage: async (data) => ({ data, stale: false }),
  toStorage: async (data) => data,
};
