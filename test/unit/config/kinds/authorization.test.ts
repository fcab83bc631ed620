/**
 * AuthorizationConfiguration decoding and validation: kube's messages and field paths
 * (k8s.io/apiserver/pkg/apis/apiserver/validation, kube-apiserver's LoadAndValidateData), the
 * matchConditions compiled at load with kube's errors.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAuthorizationConfig } from '../../../../src/config/kinds/authorization';

let dir: string;
let kubeconfig: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'papi-authz-kind-'));
  kubeconfig = path.join(dir, 'hook.kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
  mkdirSync(path.join(dir, 'a-dir'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = '/etc/authz.yaml';
const load = (text: string) => loadAuthorizationConfig({ text, path: file });
const fails = (text: string): string => {
  try {
    load(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('loaded');
};
const invalid = (detail: string) => `invalid authorization configuration in file "${file}": ${detail}`;

const doc = (authorizers: string, apiVersion = 'apiserver.config.k8s.io/v1') => `apiVersion: ${apiVersion}
kind: AuthorizationConfiguration
authorizers:
${authorizers}`;

const webhook = (fields: Record<string, string | undefined> = {}, extra = '') => {
  const f: Record<string, string | undefined> = {
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'NoOpinion',
    ...fields,
  };
  const lines = Object.entries(f)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `    ${k}: ${v}`);
  return `- type: Webhook
  name: ${fields.name ?? 'hook.example.com'}
  webhook:
${lines.filter((l) => !l.startsWith('    name:')).join('\n')}
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeconfig}
${extra}`;
};

describe('AuthorizationConfiguration loading', () => {
  it.each([
    'apiserver.config.k8s.io/v1',
    'apiserver.config.k8s.io/v1beta1',
    'apiserver.config.k8s.io/v1alpha1',
    'apiserver.k8s.io/v1beta1',
    'apiserver.k8s.io/v1alpha1',
  ])('loads %s, with kube\'s TTL defaults', (apiVersion) => {
    const c = load(doc(`- type: RBAC\n  name: rbac\n${webhook()}- type: AlwaysDeny\n  name: alwaysdeny\n`, apiVersion));
    expect(c.authorizers.map((a) => [a.type, a.name])).toEqual([
      ['RBAC', 'rbac'],
      ['Webhook', 'hook.example.com'],
      ['AlwaysDeny', 'alwaysdeny'],
    ]);
    expect(c.authorizers[1]!.webhook).toEqual({
      authorizedTTLMs: 300_000,
      unauthorizedTTLMs: 30_000,
      timeoutMs: 3000,
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
      matchConditions: [],
    });
  });

  it('reads seed 002\'s platformConfigFile as kubeConfigFile', () => {
    const c = load(doc(webhook().replace('kubeConfigFile:', 'platformConfigFile:')));
    expect(c.authorizers[0]!.webhook!.connectionInfo).toEqual({ type: 'KubeConfigFile', kubeConfigFile: kubeconfig });
  });

  it('an empty file is the empty v1alpha1 configuration, which kube refuses', () => {
    expect(fails('')).toBe(invalid('authorizers: Required value: at least one authorization mode must be defined'));
  });

  it('decode errors: unknown version, unknown fields (1.32 has no cache* fields), wrong types', () => {
    expect(fails(doc('- type: RBAC\n  name: rbac\n', 'apiserver.config.k8s.io/v2'))).toBe(
      `failed to load AuthorizationConfiguration from file "${file}": no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v2" in scheme "pkg/runtime/scheme.go:100"`,
    );
    expect(fails(doc(webhook({ cacheAuthorizedRequests: 'false' })))).toBe(
      `failed to load AuthorizationConfiguration from file "${file}": strict decoding error: unknown field "authorizers[0].webhook.cacheAuthorizedRequests"`,
    );
    expect(fails(doc(webhook({ timeout: 'soon' })))).toContain('time: invalid duration "soon"');
    expect(fails(doc('- type: 7\n  name: rbac\n'))).toContain('json: cannot unmarshal number into Go struct field AuthorizerConfiguration.authorizers.type of type string');
  });

  it('a missing file is Go\'s error (it names the file)', () => {
    expect(() => loadAuthorizationConfig({ path: path.join(dir, 'nope.yaml') })).toThrow(`open ${path.join(dir, 'nope.yaml')}: no such file or directory`);
  });

  it('authorizer types, names and webhook presence, with kube\'s paths', () => {
    expect(
      fails(
        doc(`- type: ""
  name: a
- type: Node
  name: node
- type: RBAC
  name: rbac
- type: RBAC
  name: rbac2
- type: AlwaysAllow
- type: AlwaysDeny
  name: Bad_Name
- type: Webhook
  name: w
- type: Webhook
  name: w
  webhook:
    timeout: 1s
- type: AlwaysDeny
  name: alwaysdeny2
`),
      ),
    ).toBe(
      invalid(
        '[authorizers[0].type: Required value, ' +
          'authorizers[1].type: Unsupported value: "Node": supported values: "AlwaysAllow", "AlwaysDeny", "RBAC", "Webhook", ' +
          'authorizers[3].type: Duplicate value: "RBAC", ' +
          'authorizers[4].name: Required value, ' +
          "authorizers[5].name: Invalid value: \"Bad_Name\": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')" +
          ', authorizers[6].webhook: Required value: required when type=Webhook, ' +
          'authorizers[7].name: Duplicate value: "w", ' +
          // kube reports the webhook's own fields at the authorizer's path (no `webhook.`).
          'authorizers[7].subjectAccessReviewVersion: Required value, ' +
          'authorizers[7].failurePolicy: Required value, ' +
          'authorizers[7].connectionInfo.type: Required value, ' +
          'authorizers[8].type: Duplicate value: "AlwaysDeny"]',
      ),
    );
  });

  it('a webhook section on another type', () => {
    expect(fails(doc(`- type: RBAC\n  name: rbac\n  webhook:\n    timeout: 1s\n`))).toBe(invalid('authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook'));
  });

  it('webhook fields: timeout, TTLs, versions, failure policy', () => {
    expect(
      fails(
        doc(
          webhook({
            timeout: '31s',
            authorizedTTL: '-1s',
            unauthorizedTTL: '-1m30s',
            subjectAccessReviewVersion: 'v2',
            matchConditionSubjectAccessReviewVersion: 'v1beta1',
            failurePolicy: 'Allow',
          }),
        ),
      ),
    ).toBe(
      invalid(
        '[authorizers[0].timeout: Invalid value: "31s": must be > 0s and <= 30s, ' +
          'authorizers[0].authorizedTTL: Invalid value: "-1s": must be > 0s, ' +
          'authorizers[0].unauthorizedTTL: Invalid value: "-1m30s": must be > 0s, ' +
          'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1", ' +
          'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1", ' +
          'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"]',
      ),
    );
    expect(fails(doc(webhook({ timeout: '0s' })))).toBe(invalid('authorizers[0].timeout: Required value'));
    expect(fails(doc(webhook({ timeout: '-2s' })))).toBe(invalid('authorizers[0].timeout: Invalid value: "-2s": must be > 0s and <= 30s'));
    expect(load(doc(webhook({ timeout: '30s', matchConditionSubjectAccessReviewVersion: undefined }))).authorizers[0]!.webhook!.timeoutMs).toBe(30_000);
    expect(fails(doc(webhook({ matchConditionSubjectAccessReviewVersion: undefined }, '    matchConditions:\n    - expression: "true"\n')))).toBe(
      invalid('authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified'),
    );
  });

  it('connectionInfo: the kubeconfig must be an absolute path to a regular file; InClusterConfig is refused here', () => {
    const conn = (lines: string) => doc(webhook().replace(/ {4}connectionInfo:\n[\s\S]*$/, `    connectionInfo:\n${lines}`));
    expect(fails(conn('      type: KubeConfigFile\n'))).toBe(invalid('authorizers[0].connectionInfo.kubeConfigFile: Required value'));
    expect(fails(conn('      type: KubeConfigFile\n      kubeConfigFile: rel.yaml\n'))).toBe(
      invalid('authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "rel.yaml": must be an absolute path'),
    );
    const missing = path.join(dir, 'missing.kubeconfig');
    expect(fails(conn(`      type: KubeConfigFile\n      kubeConfigFile: ${missing}\n`))).toBe(
      invalid(`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${missing}": error loading file: stat ${missing}: no such file or directory`),
    );
    expect(fails(conn(`      type: KubeConfigFile\n      kubeConfigFile: ${path.join(dir, 'a-dir')}\n`))).toBe(
      invalid(`authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${path.join(dir, 'a-dir')}": must be a regular file`),
    );
    expect(fails(conn('      type: InClusterConfig\n'))).toBe(invalid('authorizers[0].connectionInfo.type: Unsupported value: "InClusterConfig": supported values: "KubeConfigFile"'));
    expect(fails(conn('      type: Magic\n'))).toBe(
      invalid(
        'authorizers[0].connectionInfo.type: Unsupported value: apiserver.WebhookConnectionInfo{Type:"Magic", KubeConfigFile:(*string)(nil)}: supported values: "InClusterConfig", "KubeConfigFile"',
      ),
    );
  });

  it('matchConditions: compiled at load, with kube\'s errors and paths', () => {
    const conds = (...exprs: string[]) => doc(webhook({}, `    matchConditions:\n${exprs.map((e) => `    - expression: ${JSON.stringify(e)}\n`).join('')}`));
    const c = load(conds('has(request.resourceAttributes)', "request.resourceAttributes.namespace == 'kube-system'", "'admins' in request.groups"));
    expect(c.authorizers[0]!.webhook!.matchConditions.map((m) => m.compiled?.expression)).toEqual([
      'has(request.resourceAttributes)',
      "request.resourceAttributes.namespace == 'kube-system'",
      "'admins' in request.groups",
    ]);
    expect(fails(conds('  ', 'request.user == "a"', 'request.user == "a"', 'request.user', 'request.nope == 1', 'claims.x', 'request.user ==', 'request.groups'))).toBe(
      invalid(
        '[authorizers[0].matchConditions[0].expression: Required value, ' +
          'authorizers[0].matchConditions[2].expression: Duplicate value: "request.user == \\"a\\"", ' +
          'authorizers[0].matchConditions[3].expression: Invalid value: "request.user": must evaluate to bool but got string, ' +
          'authorizers[0].matchConditions[4].expression: Invalid value: "request.nope == 1": compilation failed: ERROR: <input>:1:8: undefined field \'nope\'\n | request.nope == 1\n | .......^, ' +
          "authorizers[0].matchConditions[5].expression: Invalid value: \"claims.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims' (in container '')\n | claims.x\n | ^" +
          // cel-go's column (the end of input); the syntax error's wording is cel-js's, not ANTLR's.
          ', authorizers[0].matchConditions[6].expression: Invalid value: "request.user ==": compilation failed: ERROR: <input>:1:16: Syntax error: unexpected token: EOF\n | request.user ==\n | ...............^' +
          ', authorizers[0].matchConditions[7].expression: Invalid value: "request.groups": must evaluate to bool but got list(string)]',
      ),
    );
    // A literal pattern that does not compile: kube's InternalError, the expression not shown.
    expect(fails(conds("request.user.findAll('a**').size() == 0"))).toBe(
      invalid('authorizers[0].matchConditions[0].expression: Internal error: program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`'),
    );
    const many = Array.from({ length: 65 }, (_, i) => `request.user == "u${i}"`);
    expect(fails(conds(...many))).toBe(invalid('authorizers[0].matchConditions: Too many: 65: must have at most 64 items'));
    expect(load(conds(...many.slice(0, 64))).authorizers[0]!.webhook!.matchConditions).toHaveLength(64);
  });

  it('kube-apiserver\'s rule: a non-webhook authorizer is named after its type in lower case', () => {
    expect(fails(doc('- type: RBAC\n  name: my-rbac\n- type: AlwaysAllow\n  name: allow\n'))).toBe(
      invalid('[expected name rbac for authorizer RBAC instead of my-rbac, expected name alwaysallow for authorizer AlwaysAllow instead of allow]'),
    );
  });

  it('a reload keeps the types other than Webhook the server started with (kube\'s requireNonWebhookTypes)', () => {
    const reload = (text: string): string => {
      try {
        loadAuthorizationConfig({ text, path: file }, new Set(['RBAC', 'AlwaysAllow']));
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('loaded');
    };
    expect(reload(doc('- type: AlwaysDeny\n  name: alwaysdeny\n'))).toBe(invalid('missing required types: [AlwaysAllow RBAC]'));
    expect(reload(doc('- type: RBAC\n  name: my-rbac\n'))).toBe(invalid('[expected name rbac for authorizer RBAC instead of my-rbac, missing required types: [AlwaysAllow]]'));
    expect(loadAuthorizationConfig({ text: doc('- type: AlwaysAllow\n  name: alwaysallow\n- type: RBAC\n  name: rbac\n'), path: file }, new Set(['RBAC', 'AlwaysAllow'])).authorizers).toHaveLength(2);
  });
});
