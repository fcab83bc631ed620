/**
 * Namespace termination through kubectl and HTTP (kube-facts §7): the namespace controller empties
 * a Terminating namespace (every namespaced kind, honouring finalizers), reports progress in the five
 * deletion conditions, then finalizes it; lifecycle admission answers 403/404 for new content.
 */
import { useTestServer } from '../support/server-fixture';
import { expectStatus, failure } from '../support/kube-status';
import { secret } from '../support/factories';
import { until } from '../support/until';

const { srv } = useTestServer();

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The namespace controller works asynchronously. */
const controller = { timeoutMs: 15_000 };

const conditionsOf = async (ns: string): Promise<Condition[]> => ((await srv.request('GET', `/api/v1/namespaces/${ns}`)).json().status?.conditions ?? []) as Condition[];
const brief = (cs: Condition[]) => cs.map(({ type, status, reason, message }) => ({ type, status, reason, message }));

test('content with finalizers holds the namespace; the conditions say why; releasing it finishes the deletion', async () => {
  expect((await srv.kubectl(['create', 'namespace', 'term'])).code).toBe(0);
  expect((await srv.kubectl(['-n', 'term', 'create', 'configmap', 'cm', '--from-literal=a=b'])).code).toBe(0);
  expect((await srv.kubectl(['-n', 'term', 'create', 'quota', 'q', '--hard=secrets=5'])).code).toBe(0);
  for (const name of ['held1', 'held2']) {
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name, finalizers: ['example.com/hold'] } };
    expect((await srv.request('POST', '/api/v1/namespaces/term/secrets', { body })).status).toBe(201);
  }

  const del = await srv.kubectl(['delete', 'namespace', 'term', '--wait=false']);
  expect(del).toMatchObject({ code: 0, stdout: 'namespace "term" deleted\n' });

  const conditions = await until('the remaining-content conditions', async () => {
    const cs = await conditionsOf('term');
    return cs.length === 5 && cs.some((c) => c.type === 'NamespaceContentRemaining' && c.status === 'True') ? cs : undefined;
  }, controller);
  expect(brief(conditions)).toEqual([
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: secrets. has 2 resource instances' },
    {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances',
    },
  ]);
  for (const c of conditions) expect(c.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // Everything without a finalizer is gone; the held secrets are marked for deletion.
  expect((await srv.request('GET', '/api/v1/namespaces/term/configmaps')).json().items).toEqual([]);
  expect((await srv.request('GET', '/api/v1/namespaces/term/resourcequotas')).json().items).toEqual([]);
  const held = (await srv.request('GET', '/api/v1/namespaces/term/secrets')).json().items as Array<{ metadata: { deletionTimestamp?: string } }>;
  expect(held.map((s) => !!s.metadata.deletionTimestamp)).toEqual([true, true]);
  const ns = (await srv.kubectl(['get', 'namespace', 'term', '-o', 'jsonpath={.status.phase} {.spec.finalizers}'])).stdout;
  expect(ns).toBe('Terminating ["kubernetes"]');

  // New content is refused, through kubectl too.
  const late = await srv.kubectl(['-n', 'term', 'create', 'configmap', 'late']);
  expect(late.code).toBe(1);
  expect(late.stderr).toContain('configmaps "late" is forbidden: unable to create new content in namespace term because it is being terminated');

  // Releasing one finalizer updates the message; releasing both lets the namespace go.
  await srv.request('PATCH', '/api/v1/namespaces/term/secrets/held1', { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
  await until('one secret left in the conditions', async () => {
    const c = (await conditionsOf('term')).find((x) => x.type === 'NamespaceContentRemaining');
    return c?.message === 'Some resources are remaining: secrets. has 1 resource instances' ? c : undefined;
  }, controller);
  await srv.request('PATCH', '/api/v1/namespaces/term/secrets/held2', { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
  await until('the namespace to disappear', async () => (await srv.request('GET', '/api/v1/namespaces/term')).status === 404, controller);
  expect((await srv.kubectl(['get', 'namespace', 'term'])).stderr).toBe('Error from server (NotFound): namespaces "term" not found\n');
});

test('a namespace without held content is finalized at once', async () => {
  expect((await srv.kubectl(['create', 'namespace', 'quick'])).code).toBe(0);
  expect((await srv.kubectl(['-n', 'quick', 'create', 'secret', 'generic', 's', '--from-literal=a=b'])).code).toBe(0);
  expect((await srv.kubectl(['delete', 'namespace', 'quick'])).code).toBe(0); // waits for the deletion
  expect((await srv.request('GET', '/api/v1/namespaces/quick')).status).toBe(404);
  expect((await srv.request('GET', '/api/v1/secrets?fieldSelector=metadata.namespace%3Dquick')).json().items).toEqual([]);
});

test('creating in a missing namespace is a 404 for the namespace', async () => {
  expectStatus(
    await srv.request('POST', '/api/v1/namespaces/nowhere/secrets', { body: secret('s') }),
    failure(404, 'NotFound', 'namespaces "nowhere" not found', { name: 'nowhere', kind: 'namespaces' }),
  );
  const r = await srv.kubectl(['-n', 'nowhere', 'create', 'configmap', 'c']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('namespaces "nowhere" not found');
});

test.each(['default', 'kube-system', 'kube-public'])('kubectl delete namespace %s is forbidden', async (name) => {
  const r = await srv.kubectl(['delete', 'namespace', name]);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(`Error from server (Forbidden): namespaces "${name}" is forbidden: this namespace may not be deleted\n`);
});
