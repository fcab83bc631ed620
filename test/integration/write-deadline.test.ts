/**
 * Writes honour the request's context as kube's do (it hands the request's context to etcd, and
 * grpc-go sends nothing on a done one): once the deadline has passed or the client has gone, a
 * write not yet sent to etcd is not sent, and conflict retries stop.
 *
 * - Storage on a real etcd: create, update, delete and the corrupt-value delete with a done context
 *   write nothing (their reads are refused too); a context that ends while a conflict is being
 *   handled stops the retry there.
 * - End to end: a slow validating webhook under failurePolicy Ignore, cut at the request's
 *   `?timeout=1s`; the client gets its 504, and once the server's handler has ended (kube's
 *   post-timeout line in the server log, or the handler's own 504) nothing was written: no object
 *   created, no label added, nothing deleted.
 */
import { Writable } from 'node:stream';
import winston from 'winston';
import type { KubeObject } from '../../src/api';
import type { CallContext } from '../../src/api/request-context';
import { EtcdStore, StorageError, identityTransformer } from '../../src/storage';
import { startAdmissionWebhookServer, type AdmissionWebhookServer } from '../support/admission-webhook-server';
import { useTestServer } from '../support/server-fixture';
import { until } from '../support/until';

/** The server's `Post-timeout activity` lines (kube logs one when a timed-out request's handler ends). */
const postTimeout: Array<{ path: string; method: string }> = [];
const logger = winston.createLogger({
  level: 'error',
  transports: [
    new winston.transports.Stream({
      stream: new Writable({
        objectMode: true,
        write: (info: { message: string; path: string; method: string }, _e, cb) => {
          if (info.message === 'Post-timeout activity') postTimeout.push(info);
          cb();
        },
      }),
    }),
  ],
});

let store: EtcdStore | undefined;
const { srv, etcd } = useTestServer({ logger, beforeStop: () => store?.close() });

describe('storage: a write on a done context is not sent', () => {
  /** Called on every value read back from etcd (a failed Txn's answer included). */
  let onRead: () => void = () => undefined;
  beforeAll(() => {
    store = new EtcdStore({
      endpoints: etcd.endpoints,
      transformer: {
        toStorage: identityTransformer.toStorage,
        fromStorage: (data, key) => {
          onRead();
          return identityTransformer.fromStorage(data, key);
        },
      },
    });
  });
  afterEach(() => (onRead = () => undefined));

  let n = 0;
  const key = () => `/deadline-test/secrets/default/s${++n}`;
  const secret = (k: string, a = 'eA=='): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: k.split('/').pop(), namespace: 'default' }, data: { a } });
  const exists = (k: string) => store!.get(k).then(
    (o) => o,
    (e: unknown) => {
      if (e instanceof StorageError && e.code === 'KeyNotFound') return undefined;
      throw e;
    },
  );
  const contextDone = (text: string) => expect.objectContaining({ code: 'ContextDone', message: text });

  test('create: a deadline passed or a client gone; an open context writes as usual', async () => {
    const late = key();
    await expect(store!.create(late, secret(late), { ctx: { deadlineAt: performance.now() - 1 } })).rejects.toEqual(contextDone('context deadline exceeded'));
    const gone = key();
    await expect(store!.create(gone, secret(gone), { ctx: { ended: 'context canceled' } })).rejects.toEqual(contextDone('context canceled'));
    expect(await exists(late)).toBeUndefined();
    expect(await exists(gone)).toBeUndefined();
    const open = key();
    await store!.create(open, secret(open), { ctx: { deadlineAt: performance.now() + 60_000 } });
    expect(await exists(open)).toBeDefined();
  });

  test('update, delete, the corrupt-value delete: nothing written on a done context (a delete\'s validation still runs on the cache\'s copy, as kube\'s)', async () => {
    const k = key();
    await store!.create(k, secret(k));
    const cached = await store!.get(k);
    const done: CallContext = { ended: 'context deadline exceeded' };
    await expect(store!.guaranteedUpdate(k, { ctx: done, tryUpdate: (cur) => ({ ...cur!, data: { a: 'eQ==' } }) })).rejects.toEqual(contextDone('context deadline exceeded'));
    let validated = 0;
    // Started from the watch cache's copy (kube's cacher hands it over): validated, then not sent.
    await expect(store!.delete(k, { ctx: done, cachedExisting: cached, validateDeletion: () => void validated++ })).rejects.toEqual(contextDone('context deadline exceeded'));
    expect(validated).toBe(1);
    // Without one the delete's read is refused first (kube's Get on a done context): nothing validated.
    await expect(store!.delete(k, { ctx: done, validateDeletion: () => void validated++ })).rejects.toEqual(contextDone('context deadline exceeded'));
    expect(validated).toBe(1);
    await expect(store!.deleteIgnoringReadError(k, { ctx: done })).rejects.toEqual(contextDone('context deadline exceeded'));
    expect((await exists(k))?.data).toEqual({ a: 'eA==' });
    // A dry run's read is refused too (kube's dry-run update reads with the request's context).
    await expect(store!.guaranteedUpdate(k, { ctx: done, dryRun: true, tryUpdate: (cur) => ({ ...cur!, data: { a: 'eg==' } }) })).rejects.toEqual(contextDone('context deadline exceeded'));
    // On an open context it answers without writing.
    expect((await store!.guaranteedUpdate(k, { ctx: {}, dryRun: true, tryUpdate: (cur) => ({ ...cur!, data: { a: 'eg==' } }) })).object.data).toEqual({ a: 'eg==' });
    expect((await exists(k))?.data).toEqual({ a: 'eA==' });
  });

  test('a conflict retry stops when the context ended meanwhile (update and delete)', async () => {
    const k = key();
    await store!.create(k, secret(k));
    const ctx: CallContext = {};
    let tries = 0;
    const update = store!.guaranteedUpdate(k, {
      ctx,
      tryUpdate: async (cur) => {
        if (++tries === 1) {
          // Another writer gets in first; the deadline passes while the conflict is handled.
          await store!.guaranteedUpdate(k, { tryUpdate: (c) => ({ ...c!, data: { a: 'b3RoZXI=' } }) });
          onRead = () => (ctx.ended = 'context deadline exceeded');
        }
        return { ...cur!, data: { a: 'bWluZQ==' } };
      },
    });
    await expect(update).rejects.toEqual(contextDone('context deadline exceeded'));
    expect(tries).toBe(1);
    expect((await exists(k))?.data).toEqual({ a: 'b3RoZXI=' });

    onRead = () => undefined;
    const dctx: CallContext = {};
    let validations = 0;
    const del = store!.delete(k, {
      ctx: dctx,
      validateDeletion: async () => {
        if (++validations === 1) {
          await store!.guaranteedUpdate(k, { tryUpdate: (c) => ({ ...c!, data: { a: 'YWdhaW4=' } }) });
          onRead = () => (dctx.ended = 'context canceled');
        }
      },
    });
    await expect(del).rejects.toEqual(contextDone('context canceled'));
    expect(validations).toBe(1);
    expect((await exists(k))?.data).toEqual({ a: 'YWdhaW4=' });
  });
});

describe('end to end: a slow validating webhook under Ignore, cut at the request deadline', () => {
  let hooks: AdmissionWebhookServer;
  const GROUP = 'admissionregistration.k8s.io';
  const cms = '/api/v1/namespaces/hooked/configmaps';

  beforeAll(async () => {
    hooks = await startAdmissionWebhookServer();
    await until('admissionregistration served', async () => (await srv.request('GET', `/apis/${GROUP}/v1/validatingwebhookconfigurations`)).status === 200);
    expect((await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'hooked', labels: { webhooks: 'on' } } } })).status).toBe(201);
    // Creates with `case: slow-create`, updates and deletes of objects with `case: slow`: /slow (5 s), Ignore.
    const hook = (name: string, operations: string[], labels: Record<string, string>) => ({
      name,
      clientConfig: { url: hooks.url('/slow'), caBundle: hooks.caBundle },
      rules: [{ operations, apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { webhooks: 'on' } },
      objectSelector: { matchLabels: labels },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
      failurePolicy: 'Ignore',
    });
    const config = {
      apiVersion: `${GROUP}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'slow' },
      webhooks: [hook('create.slow.test', ['CREATE'], { case: 'slow-create' }), hook('change.slow.test', ['UPDATE', 'DELETE'], { case: 'slow' })],
    };
    const r = await srv.request('POST', `/apis/${GROUP}/v1/validatingwebhookconfigurations`, { body: config });
    expect(r.status).toBe(201);
    const rv = r.json().metadata.resourceVersion as string;
    const indexer = srv.server.informers.forResource(GROUP, 'v1', 'validatingwebhookconfigurations').indexer;
    await until('the webhook configuration in the server', () => indexer.get('', 'slow')?.metadata.resourceVersion === rv);
  });
  afterAll(async () => {
    await hooks?.close();
  });

  const configMap = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } });

  /**
   * The request, answered 504 at its 1 s deadline; resolves once the server's handler has ended:
   * the handler's own 504 (its webhook call ran out first), or the filter's followed by kube's
   * post-timeout line.
   */
  async function timedOut(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<void> {
    const seen = postTimeout.length;
    const r = await srv.request(method, `${path}?timeout=1s`, { body, headers });
    expect(r.status).toBe(504);
    const status = r.json();
    expect(status.reason).toBe('Timeout');
    if (status.message === 'Timeout: request did not complete within the allotted timeout') {
      await until(`the post-timeout line for ${method} ${path}`, () => postTimeout.slice(seen).some((l) => l.method === method && l.path === path));
    } else {
      expect(status.message).toBe('Timeout: request did not complete within requested timeout - context deadline exceeded');
    }
  }

  test('create: 504, and no object', async () => {
    await timedOut('POST', cms, configMap('late-create', { case: 'slow-create' }));
    expect(hooks.reviews('/slow').some((r) => r.request.name === 'late-create' && r.request.operation === 'CREATE')).toBe(true);
    expect((await srv.request('GET', `${cms}/late-create`)).status).toBe(404);
  });

  test('create with generateName: 504, and no object under any name', async () => {
    await timedOut('POST', cms, { ...configMap('', { case: 'slow-create', batch: 'generated' }), metadata: { generateName: 'late-', labels: { case: 'slow-create', batch: 'generated' } } });
    expect((await srv.request('GET', `${cms}?labelSelector=batch%3Dgenerated`)).json().items).toEqual([]);
  });

  test('update (a merge patch): 504, and the object unchanged', async () => {
    const created = await srv.request('POST', cms, { body: configMap('late-update', { case: 'fast' }) });
    expect(created.status).toBe(201);
    await timedOut('PATCH', `${cms}/late-update`, { metadata: { labels: { case: 'slow' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(hooks.reviews('/slow').some((r) => r.request.name === 'late-update' && r.request.operation === 'UPDATE')).toBe(true);
    const after = (await srv.request('GET', `${cms}/late-update`)).json();
    expect(after.metadata.labels).toEqual({ case: 'fast' });
    expect(after.metadata.resourceVersion).toBe(created.json().metadata.resourceVersion);
  });

  test('delete: 504, and the object still there', async () => {
    expect((await srv.request('POST', cms, { body: configMap('late-delete', { case: 'slow' }) })).status).toBe(201);
    await timedOut('DELETE', `${cms}/late-delete`);
    expect(hooks.reviews('/slow').some((r) => r.request.name === 'late-delete' && r.request.operation === 'DELETE')).toBe(true);
    expect((await srv.request('GET', `${cms}/late-delete`)).status).toBe(200);
  });

  test('the same writes in time are made (the webhook answers within the deadline)', async () => {
    hooks.on('/slow', () => ({ allowed: true }));
    expect((await srv.request('POST', `${cms}?timeout=5s`, { body: configMap('in-time', { case: 'slow-create' }) })).status).toBe(201);
    expect((await srv.request('DELETE', `${cms}/late-delete?timeout=5s`)).status).toBe(200);
    expect((await srv.request('GET', `${cms}/late-delete`)).status).toBe(404);
  });
});
