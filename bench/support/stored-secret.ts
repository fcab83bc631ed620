/**
 * Secrets as the server stores them in etcd, for writes that bypass the API (raw etcd rows, fast
 * loading): one Secret is created through the API, its stored bytes read back from etcd, and every
 * further value is that object with a new name, uid and random 1 KiB payload. So a raw write carries
 * the same shape and size of value as an API write (managedFields, timestamps and all).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Etcd3 } from 'etcd3';
import type { ApiClient } from './api-client';
import { secret } from './secrets';

interface StoredSecret {
  metadata: { name: string; namespace: string; uid: string };
  data: { payload: string };
}

/** Builds the stored value of a Secret named `name` in `namespace`. */
export type StoredSecretFactory = (namespace: string, name: string) => Buffer;

/**
 * Creates `<namespace>/<templateName>` through `client`, reads its value at
 * `<prefix>/secrets/<namespace>/<templateName>` from etcd, and returns a factory of such values.
 */
export async function storedSecretFactory(client: ApiClient, etcd: Etcd3, prefix: string, namespace: string, templateName: string): Promise<StoredSecretFactory> {
  await client.expect('POST', `/api/v1/namespaces/${namespace}/secrets`, secret(namespace, templateName), 201);
  const raw = await etcd.get(`${prefix}/secrets/${namespace}/${templateName}`).buffer();
  if (!raw) throw new Error(`the template secret ${namespace}/${templateName} is not in etcd under ${prefix}`);
  const template = JSON.parse(raw.toString('utf8')) as StoredSecret;
  const payloadBytes = Buffer.from(template.data.payload, 'base64').length;
  return (ns, name) => {
    template.metadata.name = name;
    template.metadata.namespace = ns;
    template.metadata.uid = randomUUID();
    template.data.payload = randomBytes(payloadBytes).toString('base64');
    return Buffer.from(JSON.stringify(template));
  };
}

/** etcd's current revision, read from a response header (a one-key range). */
export async function etcdRevision(etcd: Etcd3): Promise<string> {
  const res = await etcd.kv.range({ key: Buffer.from('/'), limit: 1 });
  return res.header.revision;
}
