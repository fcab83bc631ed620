/**
 * admissionregistration.k8s.io/v1 webhook configurations: kube's defaults, every validation rule
 * with its field path and message, the relaxed update rules, the strategy (generation) and the
 * table, and Go's url.Parse as the URL check reads it.
 */
import { type KubeObject, fieldErrorString } from '../../src/api';
import type { RequestContext } from '../../src/registry';
import type { ResourceDefinition } from '../../src/registry/resource';
import type { WebhookJson } from '../../src/registry/resources/admissionregistration/common';
import { defaultWebhook } from '../../src/registry/resources/admissionregistration/defaults';
import { type GoURL, goQuoteBytes, parseURL } from '../../src/api/go-net-url';
import { mutatingwebhookconfigurations as mutating } from '../../src/registry/resources/admissionregistration/mutatingwebhookconfigurations';
import { validatingwebhookconfigurations as validating } from '../../src/registry/resources/admissionregistration/validatingwebhookconfigurations';
import { validateWebhookService, validateWebhookUrl } from '../../src/registry/resources/admissionregistration/validation';
import { FieldPath } from '../../src/api';
import { builtinResources, protobufKindsOf } from '../../src/registry';
import { PROTOBUF_MAGIC, ProtobufCodec } from '../../src/storage/codec/protobuf-codec';

const GROUP = 'admissionregistration.k8s.io';
const ctx: RequestContext = { namespace: '', warnings: [], dryRun: false, now: () => new Date() };

const config = (def: ResourceDefinition, webhooks: unknown[] | undefined, meta: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: `${GROUP}/v1`, kind: def.kind, metadata: { name: 'cfg', ...meta }, ...(webhooks === undefined ? {} : { webhooks }) }) as KubeObject;

/** A webhook kube accepts; tests override one part. */
const good = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'hook.example.com',
  clientConfig: { url: 'https://hook.example.com/path' },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});

/** Defaults then validates, as a create does (kube defaults when it decodes). */
function createErrors(def: ResourceDefinition, ...webhooks: unknown[]): string[] {
  const obj = config(def, webhooks);
  def.strategy.prepareForCreate(ctx, obj);
  return def.strategy.validate(ctx, obj).map(fieldErrorString);
}
const errs = (hook: Record<string, unknown>, def: ResourceDefinition = mutating): string[] => createErrors(def, hook);

/** An update of `old` (stored as it is, as if written before kube tightened a rule) to `next`. */
function updateErrors(def: ResourceDefinition, old: unknown[], next: unknown[]): string[] {
  const o = config(def, old, { resourceVersion: '5', generation: 1 });
  const obj = config(def, next, { resourceVersion: '5', generation: 1 });
  def.strategy.prepareForUpdate(ctx, obj, o);
  return def.strategy.validateUpdate(ctx, obj, o).map(fieldErrorString);
}

describe('defaults (SetObjectDefaults_*WebhookConfiguration)', () => {
  test('a mutating webhook gets every default, in kube’s key order', () => {
    const hook = defaultWebhook(
      {
        admissionReviewVersions: ['v1'],
        rules: [{ resources: ['pods'], operations: ['CREATE'] }, null],
        sideEffects: 'None',
        clientConfig: { caBundle: 'Y2E=', service: { path: '/x', name: 's', namespace: 'n' } },
        name: 'a.b.c',
      },
      'mutating',
    );
    expect(JSON.stringify(hook)).toBe(
      JSON.stringify({
        name: 'a.b.c',
        clientConfig: { service: { namespace: 'n', name: 's', path: '/x', port: 443 }, caBundle: 'Y2E=' },
        rules: [{ operations: ['CREATE'], resources: ['pods'], scope: '*' }, { scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
        reinvocationPolicy: 'Never',
      }),
    );
  });

  test('a validating webhook has no reinvocationPolicy; set values, and nulls (nil pointers), are handled as kube', () => {
    const hook = defaultWebhook(
      { failurePolicy: 'Ignore', matchPolicy: null, timeoutSeconds: 3, objectSelector: { matchLabels: { a: 'b' } }, namespaceSelector: null, clientConfig: { url: 'https://x', service: null } },
      'validating',
    );
    expect(hook).toEqual({
      clientConfig: { url: 'https://x', service: null },
      failurePolicy: 'Ignore',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: { matchLabels: { a: 'b' } },
      timeoutSeconds: 3,
    });
    expect('reinvocationPolicy' in hook).toBe(false);
  });

  test('an explicit port, scope and reinvocationPolicy stay; a missing clientConfig becomes an empty one (a Go struct value)', () => {
    const hook = defaultWebhook({ rules: [{ scope: 'Cluster' }], reinvocationPolicy: 'IfNeeded', clientConfig: { service: { port: 8443 } } } as WebhookJson, 'mutating');
    expect(hook.rules).toEqual([{ scope: 'Cluster' }]);
    expect(hook.reinvocationPolicy).toBe('IfNeeded');
    expect(hook.clientConfig).toEqual({ service: { port: 8443 } });
    expect(defaultWebhook(null, 'validating').clientConfig).toEqual({});
  });

  test('a configuration without webhooks is left alone; a null webhook is a zero struct, defaulted', () => {
    const none = config(validating, undefined);
    validating.strategy.prepareForCreate(ctx, none);
    expect(none.webhooks).toBeUndefined();
    const withNull = config(validating, [null]);
    validating.strategy.prepareForCreate(ctx, withNull);
    expect(withNull.webhooks).toEqual([{ clientConfig: {}, failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10 }]);
  });
});

describe('strategy', () => {
  test('create: generation 1; kube refuses create on PUT and unconditional updates', () => {
    const obj = config(mutating, [good()]);
    mutating.strategy.prepareForCreate(ctx, obj);
    expect(obj.metadata.generation).toBe(1);
    expect(mutating.strategy.allowCreateOnUpdate).toBe(false);
    expect(mutating.strategy.allowUnconditionalUpdate).toBe(false);
    expect(validating.strategy.allowUnconditionalUpdate).toBe(false);
  });

  test('update: the generation moves only when the webhooks change (after defaulting)', () => {
    const old = config(validating, [good()], { generation: 4 });
    validating.strategy.prepareForCreate(ctx, old);
    old.metadata.generation = 4;
    const same = config(validating, [good()], { generation: 4, labels: { a: 'b' } });
    validating.strategy.prepareForUpdate(ctx, same, old);
    expect(same.metadata.generation).toBe(4);
    const changed = config(validating, [good({ timeoutSeconds: 5 })], { generation: 4 });
    validating.strategy.prepareForUpdate(ctx, changed, old);
    expect(changed.metadata.generation).toBe(5);
  });

  test('declarations: cluster-scoped, every verb, api-extensions, protobuf, NAME/WEBHOOKS/AGE', () => {
    for (const def of [mutating, validating]) {
      expect(def).toMatchObject({ group: GROUP, version: 'v1', namespaced: false, categories: ['api-extensions'], shortNames: [], subresources: [] });
      expect(def.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
      expect(def.protobufMessage).toBe(`k8s.io.api.admissionregistration.v1.${def.kind}`);
      expect(def.tableColumns?.map((c) => [c.name, c.type])).toEqual([
        ['Name', 'string'],
        ['Webhooks', 'integer'],
        ['Age', 'string'],
      ]);
      expect(def.tableColumns?.[1]?.cell(config(def, [good(), good()]), new Date())).toBe(2);
      expect(def.tableColumns?.[1]?.cell(config(def, undefined), new Date())).toBe(0);
    }
    expect(mutating.resource).toBe('mutatingwebhookconfigurations');
    expect(validating.singularName).toBe('validatingwebhookconfiguration');
    expect(mutating.fieldSelectorError('spec.x')).toBe('"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });
});

describe('validation: a webhook (validateMutatingWebhook / validateValidatingWebhook)', () => {
  test('a good webhook of each kind, and a configuration without webhooks', () => {
    expect(errs(good())).toEqual([]);
    expect(errs(good(), validating)).toEqual([]);
    expect(createErrors(mutating)).toEqual([]);
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ['no name', { name: '' }, ['webhooks[0].name: Required value']],
    ['a name of two segments', { name: 'example.com' }, ['webhooks[0].name: Invalid value: "example.com": should be a domain with at least three segments separated by dots']],
    [
      'a name that is no DNS subdomain',
      { name: 'Hook.example.com' },
      [
        `webhooks[0].name: Invalid value: "Hook.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    ['failurePolicy', { failurePolicy: 'Retry' }, ['webhooks[0].failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"']],
    ['an empty failurePolicy is not unset', { failurePolicy: '' }, ['webhooks[0].failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"']],
    ['matchPolicy', { matchPolicy: 'Loose' }, ['webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"']],
    ['sideEffects missing (v1 has no default)', { sideEffects: undefined }, ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']],
    ['sideEffects Some', { sideEffects: 'Some' }, ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']],
    ['sideEffects Unknown', { sideEffects: 'Unknown' }, ['webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"']],
    ['timeoutSeconds 0', { timeoutSeconds: 0 }, ['webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds']],
    ['timeoutSeconds 31', { timeoutSeconds: 31 }, ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']],
    ['reinvocationPolicy', { reinvocationPolicy: 'Always' }, ['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
    [
      'selectors (label-selector validation)',
      {
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] },
        objectSelector: { matchLabels: { 'bad key!': 'v' }, matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }, { key: 'b', operator: 'In', values: ['no way'] }] },
      },
      [
        "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        `webhooks[0].objectSelector.matchLabels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        "webhooks[0].objectSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        `webhooks[0].objectSelector.matchExpressions[1].values[0]: Invalid value: "no way": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ],
  ])('%s', (_what, extra, want) => {
    expect(errs(good(extra))).toEqual(want);
  });

  test('a validating webhook ignores reinvocationPolicy (it has none)', () => {
    expect(errs(good({ reinvocationPolicy: 'Always' }), validating)).toEqual([]);
  });

  test('errors come in kube’s order: name, rules, policies, side effects, timeout, selectors, reinvocation, client, conditions, review versions', () => {
    expect(
      errs({
        name: 'x',
        rules: [{}],
        failurePolicy: 'a',
        matchPolicy: 'b',
        timeoutSeconds: 99,
        namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Near' }] },
        reinvocationPolicy: 'c',
        clientConfig: {},
        matchConditions: [{ name: 'm' }],
      }),
    ).toEqual([
      'webhooks[0].name: Invalid value: "x": should be a domain with at least three segments separated by dots',
      'webhooks[0].rules[0].operations: Required value',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].apiVersions: Required value',
      'webhooks[0].rules[0].resources: Required value',
      'webhooks[0].failurePolicy: Unsupported value: "a": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "b": supported values: "Equivalent", "Exact"',
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 99: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      'webhooks[0].reinvocationPolicy: Unsupported value: "c": supported values: "IfNeeded", "Never"',
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[0].matchConditions[0].expression: Required value',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
  });
});

describe('validation: rules (validateRuleWithOperations, validateRule, validateResources)', () => {
  const rule = (r: Record<string, unknown>) => errs(good({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...r }] }));

  test('good rules: the core group, wildcards, subresources, each scope', () => {
    for (const r of [
      { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] },
      { resources: ['*'] },
      { resources: ['*', '*/status'] },
      { resources: ['pods/*', 'deployments/scale'] },
      { resources: ['*/scale', 'pods'] },
      { operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], scope: 'Cluster' },
      { scope: 'Namespaced' },
      { scope: '*' },
    ]) {
      expect(rule(r)).toEqual([]);
    }
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ['no operations', { operations: [] }, ['webhooks[0].rules[0].operations: Required value']],
    [
      "'*' with other operations",
      { operations: ['CREATE', '*'] },
      [`webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if '*' is present, must not specify other operations`],
    ],
    ['an unknown operation', { operations: ['create'] }, ['webhooks[0].rules[0].operations[0]: Unsupported value: "create": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"']],
    ['no apiGroups', { apiGroups: null }, ['webhooks[0].rules[0].apiGroups: Required value']],
    ["'*' with other groups", { apiGroups: ['apps', '*'] }, [`webhooks[0].rules[0].apiGroups: Invalid value: []string{"apps", "*"}: if '*' is present, must not specify other API groups`]],
    ['no apiVersions', { apiVersions: [] }, ['webhooks[0].rules[0].apiVersions: Required value']],
    [
      "'*' with other versions, and an empty one",
      { apiVersions: ['*', ''] },
      [`webhooks[0].rules[0].apiVersions: Invalid value: []string{"*", ""}: if '*' is present, must not specify other API versions`, 'webhooks[0].rules[0].apiVersions[1]: Required value'],
    ],
    ['no resources', { resources: [] }, ['webhooks[0].rules[0].resources: Required value']],
    ['an empty resource', { resources: ['pods', ''] }, ['webhooks[0].rules[0].resources[1]: Required value']],
    ["'*/*' with others", { resources: ['*/*', 'pods'] }, [`webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`]],
    [
      "'*' with a resource without subresource",
      { resources: ['pods', '*'] },
      // kube decides on the last entry without a subresource: here '*', so nothing is reported.
      [],
    ],
    [
      "'*' then a plain resource",
      { resources: ['*', 'pods'] },
      [`webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`],
    ],
    ["'x/*' then 'x/y'", { resources: ['pods/*', 'pods/status'] }, [`webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`]],
    ["'*/y' then 'x/y'", { resources: ['*/status', 'pods/status'] }, [`webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if '*/status' is present, must not specify pods/status`]],
    [
      // 'x/y' after '*/*' meets neither 'x/*' nor '*/y' in kube's sets; '*/y' meets '*/*' as 'x/*' with x = '*'.
      "'*/*' then 'x/y' and '*/y'",
      { resources: ['*/*', 'pods/log', '*/log'] },
      [
        `webhooks[0].rules[0].resources[2]: Invalid value: "*/log": if '*/*' is present, must not specify */log`,
        `webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods/log", "*/log"}: if '*/*' is present, must not specify other resources`,
      ],
    ],
    ['an unknown scope', { scope: 'Global' }, ['webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"']],
    ['an empty scope', { scope: '' }, ['webhooks[0].rules[0].scope: Unsupported value: "": supported values: "*", "Cluster", "Namespaced"']],
  ])('%s', (_what, r, want) => {
    expect(rule(r)).toEqual(want);
  });
});

describe('validation: clientConfig (ValidateWebhookURL, ValidateWebhookService)', () => {
  const client = (cc: Record<string, unknown>) => errs(good({ clientConfig: cc }));

  test('exactly one of url and service', () => {
    const msg = 'webhooks[0].clientConfig: Required value: exactly one of url or service is required';
    expect(client({})).toEqual([msg]);
    expect(client({ url: 'https://a.example.com', service: { namespace: 'n', name: 's' } })).toEqual([msg]);
    expect(client({ url: null, service: null, caBundle: 'Y2E=' })).toEqual([msg]);
    expect(client({ service: { namespace: 'n', name: 's' }, caBundle: 'bm90IGEgUEVN' })).toEqual([]); // kube does not parse the bundle
  });

  test.each<[string, string, string[]]>([
    ['a plain https URL with port and path', 'https://example.com:8443/a/b', []],
    ['an IPv6 literal', 'https://[::1]:443/', []],
    ['an empty query mark (ForceQuery) is no query', 'https://example.com/x?', []],
    ['http', 'http://example.com', ["Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"]],
    ['no scheme nor host', '/just/a/path', [
      "Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]],
    ['an empty url (set, so not "exactly one")', '', [
      "Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]],
    ['an opaque https URL has no host', 'https:example.com', ['Invalid value: "": host must be specified; desired format: https://host[/path]']],
    ['the scheme is case-insensitive', 'HTTPS://example.com', []],
    ['user info', 'https://me:secret@example.com', ['Invalid value: "me:secret": user information is not permitted in the URL']],
    ['user info is shown re-escaped', 'https://a%20b@example.com', ['Invalid value: "a%20b": user information is not permitted in the URL']],
    ['a fragment (shown unescaped)', 'https://example.com/#a%20b', ['Invalid value: "a b": fragments are not permitted in the URL']],
    ['a query', 'https://example.com/?a=b&c', ['Invalid value: "a=b&c": query parameters are not permitted in the URL']],
    ['all three', 'https://u@example.com/?q#f', [
      'Invalid value: "u": user information is not permitted in the URL',
      'Invalid value: "f": fragments are not permitted in the URL',
      'Invalid value: "q": query parameters are not permitted in the URL',
    ]],
    ['a bad escape', 'https://example.com/%zz', ['Required value: url must be a valid URL: parse "https://example.com/%zz": invalid URL escape "%zz"; desired format: https://host[/path]']],
    ['a short escape', 'https://example.com/%a', ['Required value: url must be a valid URL: parse "https://example.com/%a": invalid URL escape "%a"; desired format: https://host[/path]']],
    ['an ASCII escape in the host', 'https://exa%41mple.com', ['Required value: url must be a valid URL: parse "https://exa%41mple.com": invalid URL escape "%41"; desired format: https://host[/path]']],
    ['a space in the host', 'https://exa mple.com', ['Required value: url must be a valid URL: parse "https://exa mple.com": invalid character " " in host name; desired format: https://host[/path]']],
    ['a bad port', 'https://example.com:https/', ['Required value: url must be a valid URL: parse "https://example.com:https/": invalid port ":https" after host; desired format: https://host[/path]']],
    ['an unclosed IPv6 literal', 'https://[::1/x', ['Required value: url must be a valid URL: parse "https://[::1/x": missing \']\' in host; desired format: https://host[/path]']],
    ['no scheme before the colon', '://example.com', ['Required value: url must be a valid URL: parse "://example.com": missing protocol scheme; desired format: https://host[/path]']],
    ['a control character', 'https://example.com/\n', ['Required value: url must be a valid URL: parse "https://example.com/\\n": net/url: invalid control character in URL; desired format: https://host[/path]']],
    ['a colon in a relative first segment', 'a:b/c', ["Invalid value: \"a\": 'https' is the only allowed URL scheme; desired format: https://host[/path]", 'Invalid value: "": host must be specified; desired format: https://host[/path]']],
    ['bad user info', 'https://a b@example.com', ['Required value: url must be a valid URL: parse "https://a b@example.com": net/url: invalid userinfo; desired format: https://host[/path]']],
    ['a bad escape in the fragment names the whole URL', 'https://example.com#%g', ['Required value: url must be a valid URL: parse "https://example.com#%g": invalid URL escape "%g"; desired format: https://host[/path]']],
  ])('url: %s', (_what, url, want) => {
    expect(client({ url })).toEqual(want.map((m) => `webhooks[0].clientConfig.url: ${m}`));
  });

  test('service: name, namespace and port; the port defaults to 443', () => {
    expect(client({ service: { namespace: 'n', name: 's' } })).toEqual([]);
    expect(client({ service: { namespace: '', name: '', port: 70000 } })).toEqual([
      'webhooks[0].clientConfig.service.name: Required value: service name is required',
      'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
      'webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
    ]);
    // kube passes the name and namespace to ValidateWebhookService the other way round.
    expect(client({ service: { namespace: 'n', name: '' } })).toEqual(['webhooks[0].clientConfig.service.namespace: Required value: service namespace is required']);
    expect(client({ service: { namespace: '', name: 's' } })).toEqual(['webhooks[0].clientConfig.service.name: Required value: service name is required']);
    expect(client({ service: { namespace: 'n', name: 's', port: 0 } })).toEqual([
      'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
    ]);
  });

  const svcPath = (path: string | null) => validateWebhookService(FieldPath.root('svc'), 's', 'n', path, 443).map(fieldErrorString);
  const subdomainMsg = (v: string) =>
    `segment[${v}]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

  test.each<[string | null, string[]]>([
    [null, []],
    ['', []],
    ['/', []],
    ['/mutate', []],
    ['/a.b/c-d/', []],
    ['//', ['svc.path: Invalid value: "//": segment[0] may not be empty']],
    // Without the leading '/', kube still drops the first character: "utate" is what is checked.
    ['mutate', [`svc.path: Invalid value: "mutate": must start with a '/'`]],
    ['Mutate/x', [`svc.path: Invalid value: "Mutate/x": must start with a '/'`]],
    ['_a/B', [`svc.path: Invalid value: "_a/B": must start with a '/'`, `svc.path: Invalid value: "_a/B": ${subdomainMsg('1')}`]],
    ['/a//b', ['svc.path: Invalid value: "/a//b": segment[1] may not be empty']],
    ['/a/b//', ['svc.path: Invalid value: "/a/b//": segment[2] may not be empty']],
    ['/Mutate', [`svc.path: Invalid value: "/Mutate": ${subdomainMsg('0')}`]],
  ])('service path %j', (path, want) => {
    expect(svcPath(path)).toEqual(want);
  });

  test('validateWebhookUrl on its own', () => {
    expect(validateWebhookUrl(FieldPath.root('url'), 'https://ok.example.com').map(fieldErrorString)).toEqual([]);
  });
});

describe('validation: matchConditions and admissionReviewVersions', () => {
  const conditions = (mc: unknown[]) => errs(good({ matchConditions: mc }));

  test('good conditions compile', () => {
    expect(conditions([{ name: 'a', expression: "request.namespace != 'kube-system'" }, { name: 'example.com/b', expression: 'object != null' }])).toEqual([]);
  });

  test('required fields, qualified names, duplicates, compile errors (kube trims the expression)', () => {
    const got = conditions([
      { name: '', expression: '' },
      { name: 'bad name', expression: '  true  ' },
      { name: 'dup', expression: 'true' },
      { name: 'dup', expression: '  object.metadata.name ==  ' },
    ]);
    expect(got.slice(0, 4)).toEqual([
      'webhooks[0].matchConditions[0].expression: Required value',
      'webhooks[0].matchConditions[0].name: Required value',
      `webhooks[0].matchConditions[1].name: Invalid value: "bad name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      expect.stringMatching(/^webhooks\[0\]\.matchConditions\[3\]\.expression: Invalid value: "object\.metadata\.name ==": compilation failed: /),
    ]);
    expect(got[4]).toBe('webhooks[0].matchConditions[3].name: Duplicate value: "dup"');
    expect(got).toHaveLength(5);
  });

  test('an undeclared variable does not compile', () => {
    expect(conditions([{ name: 'a', expression: 'params.x == 1' }])).toEqual([
      expect.stringMatching(/^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "params\.x == 1": compilation failed: /),
    ]);
  });

  test('at most 64', () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    expect(conditions(many)).toEqual(['webhooks[0].matchConditions: Too many: 65: must have at most 64 items']);
    expect(conditions(many.slice(0, 64))).toEqual([]);
  });

  test.each<[string[], string[]]>([
    [['v1beta1'], []],
    [['v2', 'v1'], []],
    [['v2'], [`webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1`]],
    [['v1', 'v1'], ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version']],
    [
      ['V1', '1a'],
      [
        `webhooks[0].admissionReviewVersions[0]: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
        `webhooks[0].admissionReviewVersions[1]: Invalid value: "1a": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
        `webhooks[0].admissionReviewVersions: Invalid value: []string{"V1", "1a"}: must include at least one of v1, v1beta1`,
      ],
    ],
  ])('admissionReviewVersions %j', (versions, want) => {
    expect(errs(good({ admissionReviewVersions: versions }))).toEqual(want);
  });

  test('webhook names are unique within a configuration (empty names aside)', () => {
    expect(createErrors(validating, good(), good({ clientConfig: { service: { namespace: 'n', name: 's' } } }), good())).toEqual([
      'webhooks[1].name: Duplicate value: "hook.example.com"',
      'webhooks[2].name: Duplicate value: "hook.example.com"',
    ]);
    expect(createErrors(validating, good({ name: '' }), good({ name: '' }))).toEqual(['webhooks[0].name: Required value', 'webhooks[1].name: Required value']);
  });
});

describe('update rules (ValidateMutatingWebhookConfigurationUpdate / ValidateValidatingWebhookConfigurationUpdate)', () => {
  test('a valid stored object holds the update to the create rules', () => {
    expect(updateErrors(mutating, [good()], [good({ sideEffects: 'Some', timeoutSeconds: 40 })])).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds',
    ]);
  });

  test('side effects: a stored Some or Unknown lets Some and Unknown stay (any class is then supported)', () => {
    expect(updateErrors(mutating, [good({ sideEffects: 'Some' })], [good({ sideEffects: 'Unknown' })])).toEqual([]);
    expect(updateErrors(validating, [good({ sideEffects: 'Unknown' })], [good({ sideEffects: 'Rare' })])).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Rare": supported values: "None", "NoneOnDryRun", "Some", "Unknown"',
    ]);
    expect(updateErrors(validating, [good({ sideEffects: 'Unknown' })], [good({ sideEffects: undefined })])).toEqual([
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, Some, Unknown',
    ]);
  });

  test('review versions: a stored webhook without v1 or v1beta1 lets the update go without them; duplicates still count', () => {
    expect(updateErrors(mutating, [good({ admissionReviewVersions: ['v2'] })], [good({ admissionReviewVersions: ['v3'] })])).toEqual([]);
    expect(updateErrors(mutating, [good({ admissionReviewVersions: ['v2'] })], [good({ admissionReviewVersions: ['v3', 'v3'] })])).toEqual([
      'webhooks[0].admissionReviewVersions[1]: Invalid value: "v3": duplicate version',
    ]);
    expect(updateErrors(mutating, [good()], [good({ admissionReviewVersions: ['v3'] })])).toEqual([
      `webhooks[0].admissionReviewVersions: Invalid value: []string{"v3"}: must include at least one of v1, v1beta1`,
    ]);
  });

  test('names: stored duplicates allow duplicates', () => {
    expect(updateErrors(validating, [good(), good()], [good(), good(), good()])).toEqual([]);
    expect(updateErrors(validating, [good()], [good(), good()])).toEqual(['webhooks[1].name: Duplicate value: "hook.example.com"']);
  });

  test('selectors: a stored bad label value lets bad values through (other selector errors stay)', () => {
    const badValue = { objectSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['no way'] }] } };
    expect(updateErrors(mutating, [good(badValue)], [good({ namespaceSelector: { matchExpressions: [{ key: 'b', operator: 'NotIn', values: ['also bad!'] }] } })])).toEqual([]);
    expect(updateErrors(mutating, [good(badValue)], [good({ objectSelector: { matchExpressions: [{ key: 'b', operator: 'Within', values: ['x y'] }] } })])).toEqual([
      'webhooks[0].objectSelector.matchExpressions[0].operator: Invalid value: "Within": not a valid selector operator',
    ]);
    expect(updateErrors(mutating, [good()], [good(badValue)])).toHaveLength(1);
  });

  test('matchConditions are not checked when no webhook’s conditions changed, and are when any did', () => {
    const broken = { matchConditions: [{ name: 'x', expression: 'object.metadata.name ==' }] };
    expect(updateErrors(validating, [good(broken)], [good({ ...broken, timeoutSeconds: 4 })])).toEqual([]);
    expect(updateErrors(validating, [good(broken)], [good({ matchConditions: [...broken.matchConditions, { name: 'y', expression: 'true' }] })])).toEqual([
      expect.stringMatching(/^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "object\.metadata\.name ==": compilation failed: /),
    ]);
    // Adding a webhook changes the count: every webhook's conditions are checked.
    expect(updateErrors(validating, [good(broken)], [good(broken), good({ name: 'other.example.com' })])).toHaveLength(1);
  });

  test("an expression the write introduces is checked in kube's environment for new expressions; one the stored object has, in the stored one", () => {
    const twoVar = { name: 'two', expression: 'object.metadata.labels.all(k, v, v != "")' };
    const refused = expect.stringMatching(
      /^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "object\.metadata\.labels\.all\(k, v, v != \\"\\"\)": compilation failed: ERROR: <input>:1:27: undeclared reference to 'all'/,
    );
    // A create: every expression is new (kube 1.32 checks them at its compatibility version, 1.31).
    expect(errs(good({ matchConditions: [twoVar] }), validating)).toEqual([refused]);
    expect(errs(good({ matchConditions: [twoVar] }), mutating)).toEqual([refused]);
    // Stored by a newer server (or before the check): kept, moved to another webhook, or beside a new condition.
    const stored = [good({ matchConditions: [twoVar] })];
    expect(updateErrors(validating, stored, [good({ matchConditions: [twoVar, { name: 'y', expression: 'true' }] })])).toEqual([]);
    expect(updateErrors(mutating, stored, [good({ name: 'other.example.com' }), good({ matchConditions: [{ ...twoVar, name: 'renamed' }] })])).toEqual([]);
    // Changed, it is new again.
    expect(updateErrors(validating, stored, [good({ matchConditions: [{ ...twoVar, expression: `${twoVar.expression} && true` }] })])).toEqual([
      expect.stringMatching(/^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: .*undeclared reference to 'all'/),
    ]);
    // kube looks the trimmed expression up among the stored ones as written: spaces added are
    // trimmed away (stored), an expression stored with spaces is new.
    expect(updateErrors(validating, stored, [good({ matchConditions: [{ ...twoVar, expression: `${twoVar.expression} ` }] })])).toEqual([]);
    const spaced = [good({ matchConditions: [{ ...twoVar, expression: ` ${twoVar.expression}` }] })];
    expect(updateErrors(validating, spaced, [good({ matchConditions: [twoVar] })])).toEqual([refused]);
  });

  test("a literal pattern that does not compile is kube's InternalError (program instantiation failed)", () => {
    expect(errs(good({ matchConditions: [{ name: 'p', expression: "object.metadata.name.find('[') == ''" }] }))).toEqual([
      'webhooks[0].matchConditions[0].expression: Internal error: program instantiation failed: error parsing regexp: missing closing ]: `[`',
    ]);
    expect(errs(good({ matchConditions: [{ name: 'p', expression: "object.metadata.name.matches('[')" }] }))).toEqual([
      expect.stringMatching(/^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: .*: compilation failed: ERROR: <input>:1:30: invalid matches argument/),
    ]);
  });

  test('metadata is checked twice, as kube (the generic store, then the strategy)', () => {
    const old = config(mutating, [good()], { resourceVersion: '1' });
    const obj = config(mutating, [good()], { resourceVersion: '1', labels: { 'bad key!': 'v' } });
    mutating.strategy.prepareForUpdate(ctx, obj, old);
    expect(mutating.strategy.validateUpdate(ctx, obj, old).map(fieldErrorString)).toEqual([expect.stringMatching(/^metadata\.labels: Invalid value: "bad key!": /)]);
  });
});

describe("Go's url.Parse (api/go-net-url.ts), as the URL check reads it", () => {
  /** url.Parse: the URL, or the text of Go's *url.Error. */
  const parseGoUrl = (raw: string): GoURL | { error: string } => {
    try {
      return parseURL(raw);
    } catch (e) {
      return { error: (e as Error).message };
    }
  };

  test('the parts the check reads', () => {
    expect(parseGoUrl('HTTPS://u:p%40ss@Host.example.com:8443/a%2Fb?x=1#f%20g')).toMatchObject({
      scheme: 'https',
      host: 'Host.example.com:8443',
      user: 'u:p%40ss',
      rawQuery: 'x=1',
      fragment: 'f g',
      fragmentBytes: Buffer.from('f g'),
    });
    expect(parseGoUrl('https://x/#%ff%e2%82')).toMatchObject({ fragmentBytes: Buffer.from([0xff, 0xe2, 0x82]) });
    expect(parseGoUrl('https://x/#')).toMatchObject({ fragment: '', fragmentBytes: Buffer.alloc(0) });
    expect(parseGoUrl('https://@x/')).toMatchObject({ user: '' });
    expect(parseGoUrl('https://[fe80::1%25en0]:80/')).toMatchObject({ host: '[fe80::1%en0]:80' });
    expect(parseGoUrl('https://[fe80::1%25%0a]/')).toEqual({ error: 'parse "https://[fe80::1%25%0a]/": invalid URL escape "%0a"' });
    expect(parseGoUrl('*')).toMatchObject({ scheme: '', host: '' });
    expect(parseGoUrl('1http://x')).toEqual({ error: 'parse "1http://x": first path segment in URL cannot contain colon' });
    expect(parseGoUrl('///x')).toMatchObject({ host: '' });
  });

  test("errors quote bytes as Go's strconv.Quote does", () => {
    expect(goQuoteBytes(Buffer.from([0x61, 0xff, 0x22, 0x0a, 0xe2, 0x82]))).toBe('"a\\xff\\"\\n\\xe2\\x82"');
    expect(goQuoteBytes(Buffer.from('é\u00ad'))).toBe('"é\\u00ad"');
    expect(parseGoUrl('https://example.com/%é')).toEqual({ error: 'parse "https://example.com/%é": invalid URL escape "%é"' });
    // The three bytes kube quotes cut the euro sign: invalid UTF-8, shown as \x escapes.
    expect(parseGoUrl('https://example.com/%€')).toEqual({ error: 'parse "https://example.com/%€": invalid URL escape "%\\xe2\\x82"' });
    // The URL itself is quoted as Go quotes it: an unprintable rune escaped.
    expect(parseGoUrl('https://example.com:8x/\u200b')).toEqual({ error: 'parse "https://example.com:8x/\\u200b": invalid port ":8x" after host' });
  });

  test('the check: a fragment that is not UTF-8 is shown as Go shows its bytes', () => {
    expect(validateWebhookUrl(FieldPath.root('url'), 'https://ok.example.com/#%ff').map(fieldErrorString)).toEqual([
      'url: Invalid value: "\\xff": fragments are not permitted in the URL',
    ]);
    expect(validateWebhookUrl(FieldPath.root('url'), 'https://@ok.example.com/?q=\u00ad').map(fieldErrorString)).toEqual([
      'url: Invalid value: "": user information is not permitted in the URL',
      'url: Invalid value: "q=\\u00ad": query parameters are not permitted in the URL',
    ]);
  });
});

describe('protobuf (kube wire form of the webhook messages)', () => {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
    return [...out, n];
  };
  const bytesOf = (v: string | number[]): number[] => (typeof v === 'string' ? [...Buffer.from(v)] : v);
  const ld = (id: number, v: string | number[]): number[] => [...varint((id << 3) | 2), ...varint(bytesOf(v).length), ...bytesOf(v)];
  const vi = (id: number, n: number): number[] => [...varint(id << 3), ...varint(n)];
  const objectMeta = (name: string): number[] => [...ld(1, name), ...ld(2, ''), ...ld(3, ''), ...ld(4, ''), ...ld(5, ''), ...ld(6, ''), ...vi(7, 0), ...ld(8, [])];
  const envelope = (kind: string, raw: number[]): Buffer =>
    Buffer.from([...PROTOBUF_MAGIC, ...ld(1, [...ld(1, `${GROUP}/v1`), ...ld(2, kind)]), ...ld(2, raw), ...ld(3, ''), ...ld(4, '')]);

  let codec: ProtobufCodec;
  beforeAll(async () => {
    codec = await ProtobufCodec.load(undefined, builtinResources.flatMap(protobufKindsOf));
  });

  test("as Go writes it: the Rule nested in field 2, nil pointers and a nil caBundle left out; read back in kube's JSON", () => {
    const json = {
      apiVersion: `${GROUP}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'v' },
      webhooks: [
        {
          name: 'a.b.c',
          clientConfig: { url: 'https://x' },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          sideEffects: 'None',
          timeoutSeconds: 0,
          admissionReviewVersions: ['v1'],
        },
      ],
    };
    const rule = [...ld(1, 'CREATE'), ...ld(2, [...ld(1, ''), ...ld(2, 'v1'), ...ld(3, 'pods')])];
    const hook = [...ld(1, 'a.b.c'), ...ld(2, ld(3, 'https://x')), ...ld(3, rule), ...ld(6, 'None'), ...vi(7, 0), ...ld(8, 'v1')];
    const want = envelope('ValidatingWebhookConfiguration', [...ld(1, objectMeta('v')), ...ld(2, hook)]);
    const wire = codec.encode(json);
    expect(wire.toString('hex')).toBe(want.toString('hex'));
    const back = codec.decode(wire);
    // A set pointer stays even when zero (timeoutSeconds: 0); ObjectMeta's zero creationTimestamp is null in kube, left out here.
    expect(back).toEqual({ ...json, metadata: { name: 'v' } });
    // The Rule's fields join the operations, in Go's order.
    expect(Object.keys((back as any).webhooks[0].rules[0])).toEqual([
      'operations',
      'apiGroups',
      'apiVersions',
      'resources',
    ]);
  });

  test('a service reference, a caBundle and the list kind', () => {
    const item = {
      metadata: { name: 'm' },
      webhooks: [{ name: 'a.b.c', clientConfig: { service: { namespace: 'n', name: 's', port: 443 }, caBundle: Buffer.from('pem').toString('base64') } }],
    };
    const list = { apiVersion: `${GROUP}/v1`, kind: 'MutatingWebhookConfigurationList', metadata: { resourceVersion: '7' }, items: [item] };
    const back = codec.decode(codec.encode(list));
    expect((back.items as any)[0].webhooks).toEqual([
      { name: 'a.b.c', clientConfig: { service: { namespace: 'n', name: 's', port: 443 }, caBundle: Buffer.from('pem').toString('base64') } },
    ]);
  });
});
