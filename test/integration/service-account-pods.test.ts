/**
 * Pods and their service accounts against the real server and etcd, with kubectl: the ServiceAccount
 * admission plugin (default account, projected token volume, kube's 403 for a missing account) and
 * TokenRequests bound to a Pod (claims, the authenticator's pod extras, the token dying with the pod).
 */
import { decodeJwt } from 'jose';
import { namespaceMaker } from '../support/namespaces';
import { useTestEtcd, useTestServer } from '../support/server-fixture';

const etcd = useTestEtcd();
// Each verification is looked at: no token cache.
const { srv } = useTestServer({ etcd, serviceAccounts: { serviceAccountIssuers: ['https://issuer.test.example'], apiAudiences: ['api-a'] }, tokenSuccessCacheTtlMs: 0 });

const fresh = namespaceMaker(srv, 'sapod', { forPods: true });

const podYaml = (name: string, spec: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${spec}
  containers:
  - name: c
    image: nginx
`;

describe('ServiceAccount admission', () => {
  test('kubectl run: get pod -o yaml shows the default account, the kube-api-access volume and its mount', async () => {
    const ns = await fresh();
    expect((await srv.kubectl(['-n', ns, 'run', 'p', '--image=nginx'])).stderr).toBe('');
    const yaml = (await srv.kubectl(['-n', ns, 'get', 'pod', 'p', '-o', 'yaml'])).stdout;
    const name = /name: (kube-api-access-[a-z0-9]{5})/.exec(yaml)?.[1];
    expect(name).toBeDefined();
    expect(yaml).toContain(`    volumeMounts:
    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
      name: ${name}
      readOnly: true
`);
    expect(yaml).toContain(`  serviceAccount: default
  serviceAccountName: default
`);
    expect(yaml).toContain(`  volumes:
  - name: ${name}
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken:
          expirationSeconds: 3607
          path: token
      - configMap:
          items:
          - key: ca.crt
            path: ca.crt
          name: kube-root-ca.crt
      - downwardAPI:
          items:
          - fieldRef:
              apiVersion: v1
              fieldPath: metadata.namespace
            path: namespace
`);
  });

  test('a missing account is kube\'s 403; automount off on the account leaves the pod without the volume; the deprecated serviceAccount names the account', async () => {
    const ns = await fresh();
    const missing = await srv.kubectl(['-n', ns, 'apply', '-f', '-'], { input: podYaml('p', '  serviceAccountName: ghost') });
    expect(missing.stderr).toBe(
      `Error from server (Forbidden): error when creating "STDIN": pods "p" is forbidden: error looking up service account ${ns}/ghost: serviceaccount "ghost" not found\n`,
    );
    expect((await srv.kubectl(['-n', ns, 'create', 'sa', 'quiet'])).stderr).toBe('');
    expect((await srv.kubectl(['-n', ns, 'patch', 'sa', 'quiet', '-p', '{"automountServiceAccountToken":false}'])).stderr).toBe('');
    const r = await srv.kubectl(['-n', ns, 'apply', '-f', '-'], { input: podYaml('q', '  serviceAccount: quiet') });
    expect(r.stderr).toBe('');
    const pod = JSON.parse((await srv.kubectl(['-n', ns, 'get', 'pod', 'q', '-o', 'json'])).stdout);
    expect(pod.spec).toMatchObject({ serviceAccountName: 'quiet', serviceAccount: 'quiet' });
    expect(pod.spec.volumes).toBeUndefined();
    expect(pod.spec.containers[0].volumeMounts).toBeUndefined();
  });
});

describe('TokenRequest bound to a Pod', () => {
  test('kubectl create token --bound-object-kind Pod: pod claims, whoami shows the pod extras; the token dies with the pod', async () => {
    const ns = await fresh();
    expect((await srv.kubectl(['-n', ns, 'run', 'p', '--image=nginx'])).stderr).toBe('');
    const pod = JSON.parse((await srv.kubectl(['-n', ns, 'get', 'pod', 'p', '-o', 'json'])).stdout);
    const t = await srv.kubectl(['-n', ns, 'create', 'token', 'default', '--bound-object-kind', 'Pod', '--bound-object-name', 'p', '--bound-object-uid', pod.metadata.uid]);
    expect(t.stderr).toBe('');
    const token = t.stdout.trim();
    const claims = decodeJwt(token);
    const sa = (await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).json();
    expect(claims['kubernetes.io']).toEqual({ namespace: ns, pod: { name: 'p', uid: pod.metadata.uid }, serviceaccount: { name: 'default', uid: sa.metadata.uid } });

    const who = await srv.kubectl(['--token', token, 'auth', 'whoami', '-o', 'json']);
    expect(who.stderr).toBe('');
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({
      username: `system:serviceaccount:${ns}:default`,
      uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti as string}`],
        'authentication.kubernetes.io/pod-name': ['p'],
        'authentication.kubernetes.io/pod-uid': [pod.metadata.uid],
      },
    });

    expect((await srv.kubectl(['-n', ns, 'delete', 'pod', 'p'])).stderr).toBe('');
    const gone = await srv.kubectl(['--token', token, 'auth', 'whoami']);
    expect(gone.stderr).toContain('Unauthorized');
    // A new pod of the same name does not revive it: its uid differs.
    expect((await srv.kubectl(['-n', ns, 'run', 'p', '--image=nginx'])).stderr).toBe('');
    expect((await srv.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
  });

  test('a pod with spec.nodeName adds the node claim and the node-name extra (no uid: Nodes are not served)', async () => {
    const ns = await fresh();
    const r = await srv.kubectl(['-n', ns, 'apply', '-f', '-'], { input: podYaml('p', '  nodeName: node-1') });
    expect(r.stderr).toBe('');
    const token = (await srv.kubectl(['-n', ns, 'create', 'token', 'default', '--bound-object-kind', 'Pod', '--bound-object-name', 'p'])).stdout.trim();
    expect(decodeJwt(token)['kubernetes.io']).toMatchObject({ node: { name: 'node-1' }, pod: { name: 'p' } });
    const who = JSON.parse((await srv.kubectl(['--token', token, 'auth', 'whoami', '-o', 'json'])).stdout);
    expect(who.status.userInfo.extra).toMatchObject({ 'authentication.kubernetes.io/node-name': ['node-1'], 'authentication.kubernetes.io/pod-name': ['p'] });
    expect(who.status.userInfo.extra['authentication.kubernetes.io/node-uid']).toBeUndefined();
  });

  test('errors: a pod of another account (400), a missing pod (404), a uid mismatch (409)', async () => {
    const ns = await fresh();
    expect((await srv.kubectl(['-n', ns, 'create', 'sa', 'other'])).stderr).toBe('');
    expect((await srv.kubectl(['-n', ns, 'run', 'p', '--image=nginx'])).stderr).toBe('');
    const wrong = await srv.kubectl(['-n', ns, 'create', 'token', 'other', '--bound-object-kind', 'Pod', '--bound-object-name', 'p']);
    expect(wrong.stderr).toBe('error: failed to create token: cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.\n');
    const missing = await srv.kubectl(['-n', ns, 'create', 'token', 'default', '--bound-object-kind', 'Pod', '--bound-object-name', 'nope']);
    expect(missing.stderr).toBe('error: failed to create token: pods "nope" not found\n');
    const uid = await srv.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/default/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'not-the-uid' } } },
    });
    expect(uid.status).toBe(409);
    expect(uid.json().message).toBe(
      'Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated',
    );
  });
});
