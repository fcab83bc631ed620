/**
 * AuthorizationConfiguration (`--authorization-config`), as kube-apiserver 1.32 loads it
 * (pkg/kubeapiserver/authorizer LoadAndValidateData): `apiserver.config.k8s.io` v1, v1beta1 and
 * v1alpha1 (and seed 002's `apiserver.k8s.io` spellings), decoded strictly, the webhook TTLs
 * defaulted (5m, 30s), validated as k8s.io/apiserver/pkg/apis/apiserver/validation does — its
 * messages and its field paths, which leave `webhook` out (`authorizers[0].timeout`) — with every
 * matchCondition compiled (api/authorization-cel.ts), then kube-apiserver's own rule that a
 * non-webhook authorizer is named after its type in lower case.
 *
 * Ours: types ABAC and Node, and webhooks of connection type InClusterConfig (which kube-apiserver
 * cannot use either: it has no in-cluster configuration of its own) are refused as unsupported
 * values; seed 002's `platformConfigFile` is read as `kubeConfigFile`.
 *
 * Messages: kube returns a read error as Go's (`open /x: no such file or directory`), a decode error
 * as `failed to load AuthorizationConfiguration from file: …` and validation errors bare; here the
 * last two also name the file.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { FieldError, FieldPath, aggregateMessages, compareGoStrings, fieldErrors, goQuote, isDNS1123Subdomain } from '../../api';
import { compileMatchCondition, type CompiledMatchCondition } from '../../api/authorization-cel';
import { CelCompileError } from '../../api/cel';
import { formatGoDuration, goPathError } from '../../api';
import { configVersion, defineConfigKind, loadConfig, s, type ConfigSource, type Decoded } from '../versioned-config';

// ---- The internal type ----

export interface WebhookMatchCondition {
  expression: string;
  /** Set by validation. */
  compiled?: CompiledMatchCondition;
}

export interface WebhookConfiguration {
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  timeoutMs: number;
  subjectAccessReviewVersion: string;
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: string;
  connectionInfo: { type: string; kubeConfigFile?: string };
  matchConditions: WebhookMatchCondition[];
}

export interface AuthorizerConfiguration {
  type: string;
  name: string;
  webhook?: WebhookConfiguration;
}

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfiguration[];
}

// ---- Versions (identical in 1.32 but for their Go package names) ----

function versionShape(pkg: string) {
  return s.struct(`${pkg}.AuthorizationConfiguration`, {
    authorizers: s.list(
      s.struct(`${pkg}.AuthorizerConfiguration`, {
        type: s.string(),
        name: s.string(),
        webhook: s.ptr(
          s.struct(`${pkg}.WebhookConfiguration`, {
            authorizedTTL: s.duration(),
            unauthorizedTTL: s.duration(),
            timeout: s.duration(),
            subjectAccessReviewVersion: s.string(),
            matchConditionSubjectAccessReviewVersion: s.string(),
            failurePolicy: s.string(),
            connectionInfo: s.struct(`${pkg}.WebhookConnectionInfo`, {
              type: s.string(),
              kubeConfigFile: s.ptr(s.string()),
              platformConfigFile: s.ptr(s.string()),
            }),
            matchConditions: s.list(s.struct(`${pkg}.WebhookMatchCondition`, { expression: s.string() })),
          }),
        ),
      }),
    ),
  });
}

type Versioned = Decoded<ReturnType<typeof versionShape>>;

/** kube's SetDefaults_WebhookConfiguration. */
function setDefaults(v: Versioned): void {
  for (const a of v.authorizers ?? []) {
    if (!a.webhook) continue;
    if (a.webhook.authorizedTTL === 0) a.webhook.authorizedTTL = 300_000;
    if (a.webhook.unauthorizedTTL === 0) a.webhook.unauthorizedTTL = 30_000;
  }
}

function toInternal(v: Versioned): AuthorizationConfiguration {
  return {
    authorizers: (v.authorizers ?? []).map((a): AuthorizerConfiguration => {
      const w = a.webhook;
      if (!w) return { type: a.type, name: a.name };
      const kubeConfigFile = w.connectionInfo.kubeConfigFile ?? w.connectionInfo.platformConfigFile;
      return {
        type: a.type,
        name: a.name,
        webhook: {
          authorizedTTLMs: w.authorizedTTL,
          unauthorizedTTLMs: w.unauthorizedTTL,
          timeoutMs: w.timeout,
          subjectAccessReviewVersion: w.subjectAccessReviewVersion,
          matchConditionSubjectAccessReviewVersion: w.matchConditionSubjectAccessReviewVersion,
          failurePolicy: w.failurePolicy,
          connectionInfo: { type: w.connectionInfo.type, ...(kubeConfigFile !== undefined ? { kubeConfigFile } : {}) },
          matchConditions: (w.matchConditions ?? []).map((m) => ({ expression: m.expression })),
        },
      };
    }),
  };
}

const versions = Object.fromEntries(
  (['v1', 'v1beta1', 'v1alpha1'] as const).map((v) => [v, configVersion(versionShape(v), { defaults: setDefaults, toInternal })]),
);

export const authorizationConfigKind = defineConfigKind<AuthorizationConfiguration>({
  group: 'apiserver.config.k8s.io',
  kind: 'AuthorizationConfiguration',
  versions: {
    ...versions,
    // Seed 002 names the alpha and beta versions' group apiserver.k8s.io: both spellings load.
    'apiserver.k8s.io/v1alpha1': versions.v1alpha1!,
    'apiserver.k8s.io/v1beta1': versions.v1beta1!,
  },
  scheme: 'pkg/runtime/scheme.go:100',
  internalType: '*apiserver.AuthorizationConfiguration',
  // kube: no data is the empty v1alpha1 configuration, which validation then refuses.
  emptyFile: { version: 'v1alpha1' },
  validate: (c) => validateAuthorizationConfiguration(c),
  fileError: (p) => {
    const file = p.path === undefined ? '' : ` ${goQuote(p.path)}`;
    if (p.stage === 'read') return p.detail;
    if (p.stage === 'decode') return `failed to load AuthorizationConfiguration from file${file}: ${p.detail}`;
    return `invalid authorization configuration${p.path === undefined ? '' : ` in file ${goQuote(p.path)}`}: ${p.detail}`;
  },
});

// ---- Validation (k8s.io/apiserver/pkg/apis/apiserver/validation) ----

/** The authorizer types served here (kube also knows ABAC and Node), sorted as kube lists them. */
export const AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook'];
/** kube-apiserver's repeatableAuthorizerTypes. */
const REPEATABLE_TYPES = new Set(['Webhook']);
const MAX_MATCH_CONDITIONS = 64;
const MAX_TIMEOUT_MS = 30_000;

/** Go's %#v of the internal WebhookConnectionInfo (kube's bad value for an unknown type). */
function connectionInfoText(c: WebhookConfiguration['connectionInfo']): string {
  const file = c.kubeConfigFile === undefined ? '(*string)(nil)' : '(*string)(0xc000010000)';
  return `apiserver.WebhookConnectionInfo{Type:${goQuote(c.type)}, KubeConfigFile:${file}}`;
}

/** kube's ValidateAuthorizationConfiguration over our types; compiles the matchConditions in place. */
export function validateAuthorizationConfiguration(c: AuthorizationConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  if (c.authorizers.length === 0) errs.push(fieldErrors.required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  c.authorizers.forEach((a, i) => {
    const p = FieldPath.root('authorizers').index(i);
    if (a.type === '') {
      errs.push(fieldErrors.required(p.child('type')));
      return;
    }
    if (!AUTHORIZER_TYPES.includes(a.type)) {
      errs.push(fieldErrors.notSupported(p.child('type'), a.type, AUTHORIZER_TYPES));
      return;
    }
    if (seenTypes.has(a.type) && !REPEATABLE_TYPES.has(a.type)) {
      errs.push(fieldErrors.duplicate(p.child('type'), a.type));
      return;
    }
    seenTypes.add(a.type);
    if (a.name === '') errs.push(fieldErrors.required(p.child('name')));
    else if (seenNames.has(a.name)) errs.push(fieldErrors.duplicate(p.child('name'), a.name));
    else {
      const bad = isDNS1123Subdomain(a.name);
      if (bad.length) errs.push(fieldErrors.invalid(p.child('name'), a.name, `authorizer name is invalid: ${bad.join(', ')}`));
    }
    seenNames.add(a.name);
    if (a.type === 'Webhook') {
      if (!a.webhook) errs.push(fieldErrors.required(p.child('webhook'), 'required when type=Webhook'));
      // kube passes the authorizer's path on: the webhook's fields are reported without `webhook.`.
      else errs.push(...validateWebhookConfiguration(a.webhook, p));
    } else if (a.webhook) {
      errs.push(fieldErrors.invalid(p.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
  });
  return errs;
}

function validateWebhookConfiguration(w: WebhookConfiguration, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (w.timeoutMs === 0) errs.push(fieldErrors.required(p.child('timeout')));
  else if (w.timeoutMs > MAX_TIMEOUT_MS || w.timeoutMs < 0) errs.push(fieldErrors.invalid(p.child('timeout'), formatGoDuration(w.timeoutMs), 'must be > 0s and <= 30s'));
  for (const [field, ms] of [['authorizedTTL', w.authorizedTTLMs], ['unauthorizedTTL', w.unauthorizedTTLMs]] as const) {
    if (ms === 0) errs.push(fieldErrors.required(p.child(field)));
    else if (ms < 0) errs.push(fieldErrors.invalid(p.child(field), formatGoDuration(ms), 'must be > 0s'));
  }
  const sarVersion = p.child('subjectAccessReviewVersion');
  if (w.subjectAccessReviewVersion === '') errs.push(fieldErrors.required(sarVersion));
  else if (w.subjectAccessReviewVersion !== 'v1' && w.subjectAccessReviewVersion !== 'v1beta1') {
    errs.push(fieldErrors.notSupported(sarVersion, w.subjectAccessReviewVersion, ['v1', 'v1beta1']));
  }
  const mcVersion = p.child('matchConditionSubjectAccessReviewVersion');
  if (w.matchConditionSubjectAccessReviewVersion === '') {
    if (w.matchConditions.length > 0) errs.push(fieldErrors.required(mcVersion, 'required if match conditions are specified'));
  } else if (w.matchConditionSubjectAccessReviewVersion !== 'v1') {
    errs.push(fieldErrors.notSupported(mcVersion, w.matchConditionSubjectAccessReviewVersion, ['v1']));
  }
  if (w.failurePolicy === '') errs.push(fieldErrors.required(p.child('failurePolicy')));
  else if (w.failurePolicy !== 'NoOpinion' && w.failurePolicy !== 'Deny') errs.push(fieldErrors.notSupported(p.child('failurePolicy'), w.failurePolicy, ['NoOpinion', 'Deny']));
  errs.push(...validateConnectionInfo(w.connectionInfo, p.child('connectionInfo')));
  errs.push(...compileMatchConditions(w.matchConditions, p.child('matchConditions')));
  return errs;
}

function validateConnectionInfo(c: WebhookConfiguration['connectionInfo'], p: FieldPath): FieldError[] {
  const fp = p.child('kubeConfigFile');
  switch (c.type) {
    case '':
      return [fieldErrors.required(p.child('type'))];
    case 'InClusterConfig':
      // kube validates it and then cannot build it; refused here as not served.
      return [fieldErrors.notSupported(p.child('type'), c.type, ['KubeConfigFile'])];
    case 'KubeConfigFile': {
      const f = c.kubeConfigFile;
      if (f === undefined || f === '') return [fieldErrors.required(fp)];
      if (!path.isAbsolute(f)) return [fieldErrors.invalid(fp, f, 'must be an absolute path')];
      try {
        if (!statSync(f).isFile()) return [fieldErrors.invalid(fp, f, 'must be a regular file')];
      } catch (e) {
        return [fieldErrors.invalid(fp, f, `error loading file: ${goPathError('stat', f, e)}`)];
      }
      return [];
    }
    default:
      return [{ type: 'FieldValueNotSupported', field: String(p.child('type')), badValueText: connectionInfoText(c), detail: 'supported values: "InClusterConfig", "KubeConfigFile"' }];
  }
}

/** Go's *PathError text of a failed os.Stat. */
/** kube's compileMatchConditions: at most 64, each non-blank, unique and compiling to a bool. */
function compileMatchConditions(conditions: WebhookMatchCondition[], p: FieldPath): FieldError[] {
  if (conditions.length > MAX_MATCH_CONDITIONS) return [fieldErrors.tooMany(p, conditions.length, MAX_MATCH_CONDITIONS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((m, i) => {
    const ep = p.index(i).child('expression');
    if (m.expression.trim() === '') {
      errs.push(fieldErrors.required(ep));
      return;
    }
    if (seen.has(m.expression)) {
      errs.push(fieldErrors.duplicate(ep, m.expression));
      return;
    }
    seen.add(m.expression);
    try {
      m.compiled = compileMatchCondition(m.expression);
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      errs.push(e.fieldError(ep, m.expression));
    }
  });
  return errs;
}

/**
 * kube-apiserver's checks after validation: an authorizer that is not a webhook is named after its
 * type in lower case (`rbac`, `alwaysallow`), as the flags name them; and every type of
 * `requiredTypes` (on a reload, the non-webhook types the server started with) is still there.
 */
function apiserverErrors(c: AuthorizationConfiguration, requiredTypes: ReadonlySet<string>): string[] {
  const errs = c.authorizers
    .filter((a) => a.type !== 'Webhook' && a.name !== a.type.toLowerCase())
    .map((a) => `expected name ${a.type.toLowerCase()} for authorizer ${a.type} instead of ${a.name}`);
  const seen = new Set(c.authorizers.map((a) => a.type));
  const missing = [...requiredTypes].filter((t) => !seen.has(t)).sort(compareGoStrings);
  if (missing.length) errs.push(`missing required types: [${missing.join(' ')}]`);
  return errs;
}

/**
 * Loads, validates and checks an AuthorizationConfiguration from a file or its text: the
 * configuration with every matchCondition compiled, or a thrown Error whose message is the one a
 * failed start (or a refused reload) reports. `requiredTypes`: see apiserverErrors.
 */
export function loadAuthorizationConfig(source: ConfigSource, requiredTypes: ReadonlySet<string> = new Set()): AuthorizationConfiguration {
  const c = loadConfig(source, authorizationConfigKind);
  const errs = apiserverErrors(c, requiredTypes);
  if (errs.length) {
    const where = source.path === undefined ? '' : ` in file ${goQuote(source.path)}`;
    throw new Error(`invalid authorization configuration${where}: ${aggregateMessages(errs)}`);
  }
  return c;
}
