/**
 * Object lifecycle against the real server and etcd: server-set metadata, resourceVersion = etcd
 * revision, Secret and ResourceQuota write rules, deletion (Status, preconditions, options,
 * finalizers, deletecollection) and dryRun (kube-facts §1.3, §4, §5, §6, §8).
 */
import { namespace, secret } from '../support/factories';
import { cause, expectStatus, failure } from '../support/kube-status';
import { useTestServer } from '../support/server-fixture';

const { srv } = useTestServer();
const ns = 'life';
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const cms = `/api/v1/namespaces/${ns}/configmaps`;
// Quotas live in their own namespace: the quota controller keeps their status true, and a quota
// there must not limit the other tests' objects.
const quotaNs = 'life-quota';
const quotas = `/api/v1/namespaces/${quotaNs}/resourcequotas`;
const mergePatch = { 'content-type': 'application/merge-patch+json' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

const create = async (path: string, body: unknown) => {
  const r = await srv.request('POST', path, { body });
  expect(r.status).toBe(201);
  return r.json();
};

beforeAll(async () => {
  await create('/api/v1/namespaces', namespace(ns));
  await create('/api/v1/namespaces', namespace(quotaNs));
});

/** PUT of a fresh read, retried on 409: the quota controller may write the object in between (as in kube). */
async function putFresh(path: string, change: (o: any) => any) {
  for (let attempt = 0; ; attempt++) {
    const o = (await srv.request('GET', path)).json();
    const r = await srv.request('PUT', path, { body: change(o) });
    if (r.status !== 409 || attempt >= 10) return r;
  }
}

describe('server-set metadata', () => {
  test('generateName keeps the prefix and adds 5 characters from kube’s alphabet', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const o = await create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'gen-' } });
      expect(o.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(o.metadata.generateName).toBe('gen-');
      seen.add(o.metadata.name);
    }
    expect(seen.size).toBe(5);
  });

  test("a taken name: kube's 409, the generated-name conflict when a generateName came with it, and said to be deleting", async () => {
    await create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken' } });
    const plain = await srv.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken' } } });
    expectStatus(plain, failure(409, 'AlreadyExists', 'configmaps "taken" already exists', { name: 'taken', kind: 'configmaps' }));
    // kube's CheckGeneratedNameError looks at generateName alone: beside a name the client chose,
    // the conflict is still the generated name's (retry after 1 s), and it is not retried.
    const both = await srv.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', generateName: 'taken-' } } });
    expectStatus(
      both,
      failure(409, 'AlreadyExists', 'configmaps "taken" already exists, the server was not able to generate a unique name for the object', { name: 'taken', kind: 'configmaps', retryAfterSeconds: 1 }),
    );
    expect(both.headers['retry-after']).toBe('1');
    // The object that holds the name is being deleted (a finalizer keeps it): kube reads it and says so.
    await create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'going', finalizers: ['example.com/hold'] } });
    expect((await srv.request('DELETE', `${cms}/going`)).status).toBe(200);
    const again = await srv.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'going' } } });
    expectStatus(again, failure(409, 'AlreadyExists', 'object is being deleted: configmaps "going" already exists', { name: 'going', kind: 'configmaps' }));
    const got = (await srv.request('GET', `${cms}/going`)).json();
    expect((await srv.request('PUT', `${cms}/going`, { body: { ...got, metadata: { ...got.metadata, finalizers: [] } } })).status).toBe(200);
    expect((await srv.request('DELETE', `${cms}/taken`)).status).toBe(200);
  });

  test('uid and creationTimestamp come from the server; an update cannot change them', async () => {
    const o = await create(secrets, secret('meta', { metadata: { name: 'meta', uid: 'client-uid', creationTimestamp: '2001-01-01T00:00:00Z' } }));
    expect(o.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(o.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(o.metadata.creationTimestamp).not.toBe('2001-01-01T00:00:00Z');

    // kube's BeforeUpdate silently keeps the old creationTimestamp.
    const kept = await srv.request('PUT', `${secrets}/meta`, { body: { ...o, metadata: { ...o.metadata, creationTimestamp: '2001-01-01T00:00:00Z' } } });
    expect(kept.status).toBe(200);
    expect(kept.json().metadata.creationTimestamp).toBe(o.metadata.creationTimestamp);

    const body = 'Invalid value: "other-uid": field is immutable';
    expectStatus(
      await srv.request('PUT', `${secrets}/meta`, { body: { ...o, metadata: { ...o.metadata, resourceVersion: undefined, uid: 'other-uid' } } }),
      failure(422, 'Invalid', `Secret "meta" is invalid: metadata.uid: ${body}`, {
        name: 'meta',
        kind: 'Secret',
        causes: [cause('FieldValueInvalid', 'metadata.uid', body)],
      }),
    );
  });

  test('resourceVersion is the etcd revision of every write; PUT without it is last-write-wins', async () => {
    const o = await create(secrets, secret('rv'));
    expect(o.metadata.resourceVersion).toBe(String(await srv.storage.currentRevision()));
    const put = await srv.request('PUT', `${secrets}/rv`, { body: { ...o, metadata: { name: 'rv' }, stringData: { a: '1' } } });
    expect(put.status).toBe(200);
    const rv2 = put.json().metadata.resourceVersion;
    expect(rv2).toBe(String(await srv.storage.currentRevision()));
    expect(BigInt(rv2)).toBeGreaterThan(BigInt(o.metadata.resourceVersion));
    const patched = await srv.request('PATCH', `${secrets}/rv`, { body: { metadata: { labels: { x: 'y' } } }, headers: mergePatch });
    expect(patched.json().metadata.resourceVersion).toBe(String(await srv.storage.currentRevision()));
    expect((await srv.request('GET', `${secrets}/rv`)).json().metadata.resourceVersion).toBe(patched.json().metadata.resourceVersion);
  });
});

describe('Secret and ResourceQuota write rules', () => {
  test('stringData is merged into data (winning over it) and never returned; type defaults to Opaque', async () => {
    const o = await create(secrets, secret('sd', { data: { a: b64('old'), keep: b64('k') }, stringData: { a: 'new', b: 'bee' } }));
    expect(o.data).toEqual({ a: b64('new'), b: b64('bee'), keep: b64('k') });
    expect(o.type).toBe('Opaque');
    expect(o).not.toHaveProperty('stringData');
    const got = (await srv.request('GET', `${secrets}/sd`)).json();
    expect(got).not.toHaveProperty('stringData');
    expect(got.data).toEqual(o.data);
  });

  test('main-resource writes never change status; quantities are canonical', async () => {
    const o = await create(quotas, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { secrets: '10', 'requests.memory': '1024Mi', 'requests.cpu': '1000m' } },
      status: { hard: { secrets: '99' } },
    });
    expect(o.spec.hard).toEqual({ secrets: '10', 'requests.memory': '1Gi', 'requests.cpu': '1' });
    // Create clears the client's status (the quota controller fills it in afterwards).
    expect(o.status?.hard).toBeUndefined();
    const put = await putFresh(`${quotas}/q`, (cur) => ({ ...cur, spec: { hard: { secrets: '5' } }, status: { hard: { secrets: '99' } } }));
    expect(put.status).toBe(200);
    expect(put.json().spec.hard).toEqual({ secrets: '5' });
    expect(put.json().status?.hard?.secrets).not.toBe('99');
  });

  test('/status PUT and PATCH change status, never spec', async () => {
    const put = await putFresh(`${quotas}/q/status`, (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { via: 'status' } },
      spec: { hard: { secrets: '1' } },
      status: { hard: { secrets: '5' }, used: { secrets: '0.5Ki' } },
    }));
    expect(put.status).toBe(200);
    expect(put.json().spec.hard).toEqual({ secrets: '5' });
    // kube's resourcequota status strategy resets only spec: metadata written through /status sticks.
    expect(put.json().metadata.labels).toEqual({ via: 'status' });
    expect(put.json().status).toEqual({ hard: { secrets: '5' }, used: { secrets: '512' } });

    const patch = await srv.request('PATCH', `${quotas}/q/status`, {
      body: { spec: { hard: { secrets: '2' } }, status: { used: { secrets: '1' } } },
      headers: mergePatch,
    });
    expect(patch.status).toBe(200);
    expect(patch.json().spec.hard).toEqual({ secrets: '5' });
    expect(patch.json().status.used).toEqual({ secrets: '1' });
  });
});

describe('deletion', () => {
  test('DELETE answers the Success Status with name, kind and uid (no code)', async () => {
    const o = await create(secrets, secret('del'));
    const r = await srv.request('DELETE', `${secrets}/del`);
    expect(r.status).toBe(200);
    expect(r.text).toBe(
      `${JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'del', kind: 'secrets', uid: o.metadata.uid } })}\n`,
    );
    expect((await srv.request('GET', `${secrets}/del`)).status).toBe(404);
  });

  test('preconditions in the DeleteOptions body: uid and resourceVersion mismatches are 409', async () => {
    const o = await create(secrets, secret('pre'));
    const del = (body: unknown) => srv.request('DELETE', `${secrets}/pre`, { body });
    // kube's BeforeDelete builds this conflict on GroupResource{Resource: Kind}.
    expectStatus(
      await del({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'wrong' } }),
      failure(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Secret "pre": the UID in the precondition (wrong) does not match the UID in record (${o.metadata.uid}). The object might have been deleted and then recreated`,
        { name: 'pre', kind: 'Secret' },
      ),
    );
    expectStatus(
      await del({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } }),
      failure(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Secret "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${o.metadata.resourceVersion}). The object might have been modified`,
        { name: 'pre', kind: 'Secret' },
      ),
    );
    const ok = await del({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'Success', details: { uid: o.metadata.uid } });
  });

  test('propagationPolicy is validated in the query and in the body', async () => {
    await create(secrets, secret('prop'));
    const body = 'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"';
    const invalid = failure(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${body}`, {
      group: 'meta.k8s.io',
      kind: 'DeleteOptions',
      causes: [cause('FieldValueNotSupported', 'propagationPolicy', body)],
    });
    expectStatus(await srv.request('DELETE', `${secrets}/prop?propagationPolicy=Bogus`), invalid);
    expectStatus(await srv.request('DELETE', `${secrets}/prop`, { body: { propagationPolicy: 'Bogus' } }), invalid);
    // Both rules broken: kube's ValidateDeleteOptions checks the pair first.
    const both = await srv.request('DELETE', `${secrets}/prop?propagationPolicy=Bogus&orphanDependents=true`);
    expect(both.json().message).toBe(
      `DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Bogus": orphanDependents and deletionPropagation cannot be both set, propagationPolicy: ${body}]`,
    );
    expect((await srv.request('GET', `${secrets}/prop`)).status).toBe(200);
    expect((await srv.request('DELETE', `${secrets}/prop?propagationPolicy=Background&gracePeriodSeconds=0`)).status).toBe(200);
    expect((await srv.request('GET', `${secrets}/prop`)).status).toBe(404);
  });

  test('finalizers: DELETE marks the object, the last finalizer’s removal deletes it', async () => {
    const o = await create(secrets, secret('fin', { metadata: { name: 'fin', finalizers: ['example.com/hold'] } }));
    const r = await srv.request('DELETE', `${secrets}/fin`);
    expect(r.status).toBe(200);
    const marked = r.json();
    expect(marked).toMatchObject({ kind: 'Secret', metadata: { name: 'fin', uid: o.metadata.uid, deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] } });
    expect(marked.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const again = await srv.request('DELETE', `${secrets}/fin`);
    expect(again.status).toBe(200);
    expect(again.json().metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    expect((await srv.request('GET', `${secrets}/fin`)).json().metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);

    const unfinalized = await srv.request('PATCH', `${secrets}/fin`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
    expect(unfinalized.status).toBe(200);
    expect((await srv.request('GET', `${secrets}/fin`)).status).toBe(404);
  });

  test('deletecollection with a label selector deletes only the matching objects', async () => {
    for (const [name, del] of [['dc-1', 'yes'], ['dc-2', 'yes'], ['dc-3', 'no']]) {
      await create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { del } } });
    }
    const r = await srv.request('DELETE', `${cms}?labelSelector=del%3Dyes`);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(r.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['dc-1', 'dc-2']);
    const left = (await srv.request('GET', cms)).json().items.map((i: { metadata: { name: string } }) => i.metadata.name);
    expect(left).toEqual(['dc-3']);
  });
});

describe('dryRun=All persists nothing', () => {
  test('create, update, patch and delete', async () => {
    const before = await srv.storage.currentRevision();
    const dry = await srv.request('POST', `${secrets}?dryRun=All`, { body: secret('dry', { stringData: { a: '1' } }) });
    expect(dry.status).toBe(201);
    expect(dry.json()).toMatchObject({ kind: 'Secret', metadata: { name: 'dry' }, data: { a: b64('1') }, type: 'Opaque' });
    expect(dry.json().metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await srv.request('GET', `${secrets}/dry`)).status).toBe(404);
    expect(await srv.storage.currentRevision()).toBe(before);

    const o = await create(secrets, secret('dry', { stringData: { a: '1' } }));
    const rev = await srv.storage.currentRevision();
    const put = await srv.request('PUT', `${secrets}/dry?dryRun=All`, { body: { ...o, stringData: { a: '2' } } });
    expect(put.status).toBe(200);
    expect(put.json().data).toEqual({ a: b64('2') });
    const patch = await srv.request('PATCH', `${secrets}/dry?dryRun=All`, { body: { metadata: { labels: { p: 'q' } } }, headers: mergePatch });
    expect(patch.status).toBe(200);
    expect(patch.json().metadata.labels).toEqual({ p: 'q' });
    const del = await srv.request('DELETE', `${secrets}/dry?dryRun=All`);
    expect(del.status).toBe(200);
    expect(await srv.storage.currentRevision()).toBe(rev);
    expect((await srv.request('GET', `${secrets}/dry`)).json()).toEqual(o);
  });

  test('a bad dryRun value is a 422 on the verb’s options kind', async () => {
    const r = await srv.request('POST', `${secrets}?dryRun=Bogus`, { body: secret('bogus') });
    expect(r.status).toBe(422);
    expect(r.json()).toMatchObject({ reason: 'Invalid', details: { group: 'meta.k8s.io', kind: 'CreateOptions' } });
    // kube renders the rejected value as the []string it is: `dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"`.
    expect(r.json().message).toMatch(/^CreateOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value: .*: supported values: "All"$/);
    expect((await srv.request('GET', `${secrets}/bogus`)).status).toBe(404);
    const d = await srv.request('DELETE', `${secrets}/nothing?dryRun=Bogus`);
    expect(d.json()).toMatchObject({ code: 422, details: { kind: 'DeleteOptions' } });
  });
});
