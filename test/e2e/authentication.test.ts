/**
 * Authentication as the built binary does it: `--anonymous-auth` together with an
 * `--authentication-config` file that configures `anonymous` stops the start with an error naming
 * both; a service-account token the server refuses is logged ("Unable to authenticate the
 * request") without anything the token holds, while a TokenReview tells its caller kube's reason whole.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { run } from '../support/api-server';
import { runBinary, startBinary, type RunningBinary } from '../support/binary';
import { useTestEtcd } from '../support/server-fixture';
import { until } from '../support/until';

const etcd = useTestEtcd();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'papi-e2e-authn-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('--anonymous-auth with an authentication config that configures anonymous: the start fails naming both', async () => {
  const config = path.join(dir, 'anonymous.yaml');
  await writeFile(config, 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n');
  for (const flag of ['--anonymous-auth=true', '--anonymous-auth=false']) {
    // An etcd that cannot be reached: the configuration is judged before anything waits on it.
    const r = await runBinary([`--data-dir=${path.join(dir, 'data-anon')}`, '--secure-port=0', '--etcd-servers=http://127.0.0.1:1', `--authentication-config=${config}`, flag]);
    expect({ flag, code: r.code }).toEqual({ flag, code: 1 });
    expect(r.stderr).toContain('Error: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
    expect(r.stderr).not.toContain('unable to reach etcd');
  }
  // Either alone starts.
  const alone = await startBinary([`--data-dir=${path.join(dir, 'data-anon-ok')}`, '--secure-port=0', '--bind-address=127.0.0.1', `--etcd-servers=${etcd.endpoints.join(',')}`, `--authentication-config=${config}`]);
  expect(await alone.stop()).toBe(0);
});

describe('a refused service-account token', () => {
  let srv: RunningBinary;
  const kubectl = (args: string[], input?: string) =>
    run('kubectl', ['--kubeconfig', srv.kubeconfig, '--cache-dir', path.join(dir, 'kubectl-cache'), ...args], { env: { ...process.env, HOME: dir }, ...(input ? { input } : {}) });
  const ns = 'authn-e2e';

  beforeAll(async () => {
    srv = await startBinary([`--data-dir=${path.join(dir, 'data-sa')}`, '--secure-port=0', '--bind-address=127.0.0.1', `--etcd-servers=${etcd.endpoints.join(',')}`]);
    expect((await kubectl(['create', 'namespace', ns])).stderr).toBe('');
  });
  afterAll(async () => {
    if (srv) expect(await srv.stop()).toBe(0);
  });

  /** The server's "Unable to authenticate the request" log entries for service-account tokens. */
  const refusals = () =>
    srv
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message?: string; authenticator?: string; reason?: string })
      .filter((e) => e.message === 'Unable to authenticate the request' && e.authenticator === 'service-account');

  /** What a TokenReview (the client that holds the token) is told. */
  async function review(token: string): Promise<{ authenticated?: boolean; error?: string }> {
    // --validate=false: kubectl's field validation of a kind without PATCH lists CRDs, not served here (README).
    const r = await kubectl(['create', '--validate=false', '-o', 'json', '-f', '-'], JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }));
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout).status;
  }

  async function refused(token: string): Promise<void> {
    const r = await run('kubectl', ['--kubeconfig', srv.kubeconfig, `--token=${token}`, 'get', 'namespaces'], { env: { ...process.env, HOME: dir } });
    // (kubectl's discovery is refused first: "…(the server has asked for the client to provide credentials)".)
    expect(r.stderr).toContain('error: You must be logged in to the server');
  }

  test('for a deleted, then recreated account, and for another audience: the log holds none of its values', async () => {
    expect((await kubectl(['-n', ns, 'create', 'serviceaccount', 'secret-robot'])).stderr).toBe('');
    const token = (await kubectl(['-n', ns, 'create', 'token', 'secret-robot'])).stdout.trim();
    const claimedUid = (decodeJwt(token)['kubernetes.io'] as { serviceaccount: { uid: string } }).serviceaccount.uid;
    const elsewhere = (await kubectl(['-n', ns, 'create', 'token', 'secret-robot', '--audience=secret-audience'])).stdout.trim();

    await refused(elsewhere);
    await until('the audience refusal logged', () => refusals().length > 0);
    expect(await review(elsewhere)).toEqual({
      user: {},
      error: 'token audiences ["secret-audience"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
    });

    expect((await kubectl(['-n', ns, 'delete', 'serviceaccount', 'secret-robot'])).stderr).toBe('');
    // A deleted account's token works for the token cache's 10 s at most (as in kube).
    await until('the deleted account refused', async () => {
      const r = await run('kubectl', ['--kubeconfig', srv.kubeconfig, `--token=${token}`, 'get', 'namespaces'], { env: { ...process.env, HOME: dir } });
      return r.code !== 0;
    }, { timeoutMs: 20_000 });
    await refused(token);
    expect(await review(token)).toEqual({ user: {}, error: 'serviceaccounts "secret-robot" not found' });

    expect((await kubectl(['-n', ns, 'create', 'serviceaccount', 'secret-robot'])).stderr).toBe('');
    const newUid = (await kubectl(['-n', ns, 'get', 'serviceaccount', 'secret-robot', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    await refused(token);
    expect(await review(token)).toEqual({ user: {}, error: `service account UID (${newUid}) does not match claim (${claimedUid})` });

    const reasons = refusals().map((e) => e.reason);
    expect(reasons).toContain('token audiences [redacted] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
    expect(reasons).toContain('serviceaccounts [redacted] not found');
    expect(reasons).toContain(`service account UID (${newUid}) does not match claim ([redacted])`);
    const logged = refusals().map((e) => JSON.stringify(e)).join('\n');
    for (const value of ['secret-robot', ns, claimedUid, 'secret-audience', token, elsewhere]) expect({ value, found: logged.includes(value) }).toEqual({ value, found: false });
    // Nor does anything else the server logged hold the tokens.
    expect(srv.stderr().includes(token) || srv.stderr().includes(elsewhere)).toBe(false);
  });
});
