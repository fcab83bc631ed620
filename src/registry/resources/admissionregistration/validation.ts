/**
 * admissionregistration.k8s.io/v1 webhook configuration validation, after kubernetes
 * pkg/apis/admissionregistration/validation (ValidateMutatingWebhookConfiguration,
 * ValidateValidatingWebhookConfiguration and their Update forms), with kube's field paths, messages
 * and order. Metadata is validated by the generic store (DNS-subdomain names). matchConditions are
 * compiled by api/admission-cel.ts. Updates are relaxed where kube's are: a rule the stored object
 * already breaks (side effects, review versions, unique names, selector label values, unchanged
 * matchConditions) is not enforced on it. A matchCondition expression the write introduces is
 * checked in kube's environment for new expressions (no two-variable comprehensions, which came
 * after its compatibility version), one the stored object has in the stored expressions' one.
 */
import {
  type FieldError,
  FieldPath,
  type KubeObject,
  type LabelSelectorJson,
  fieldErrors,
  goQuote,
  isDNS1035Label,
  isDNS1123Subdomain,
  isQualifiedName,
  validateLabelSelector,
} from '../../../api';
import { semanticEqual } from '../../../api/semantic-equal';
import { CelCompileError, compileAdmissionMatchCondition } from '../../../api/admission-cel';
import { type MatchConditionJson, type RuleWithOperationsJson, type WebhookClientConfigJson, type WebhookJson, type WebhookKind, webhooksOf } from './common';
import { type GoURL, GoUrlError, goQuoteBytes, parseURL } from '../../../api/go-net-url';

/** kube's validationOptions for webhook configurations. */
interface WebhookValidationOptions {
  /** Skip matchConditions altogether (an update that leaves every webhook's conditions as they were). */
  ignoreMatchConditions: boolean;
  /** sideEffects must be None or NoneOnDryRun (else Unknown and Some are allowed too). */
  requireNoSideEffects: boolean;
  /** admissionReviewVersions must name v1 or v1beta1. */
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  /** Selector label values are not checked (the stored object already has a bad one). */
  allowInvalidLabelValueInSelector: boolean;
  /**
   * The stored object's matchCondition expressions, as written (kube's preexistingExpressions):
   * one of them is compiled as a stored expression, any other as a new one.
   */
  preexistingExpressions: ReadonlySet<string>;
}

/** What a create (and an update of a valid object) must meet. */
const strictOptions: WebhookValidationOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
  preexistingExpressions: new Set(),
};

// Each list is sorted, as kube's sets.String.List() gives it in NotSupported and Required messages.
const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const allSideEffectClasses = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const reinvocationPolicies = ['IfNeeded', 'Never'];
const scopes = ['*', 'Cluster', 'Namespaced'];
/** AcceptedAdmissionReviewVersions: what the previous kube release understands. */
const acceptedReviewVersions = ['v1', 'v1beta1'];
const maxMatchConditions = 64;

const root = (name: string): FieldPath => FieldPath.root(name);

/** Go's %#v of a []admissionregistration.OperationType (kube validates the internal type). */
const operationsText = (ops: string[]): string => `[]admissionregistration.OperationType{${ops.map(goQuote).join(', ')}}`;

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function validateFullyQualifiedName(path: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [fieldErrors.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** validateResources: resource names, each optionally with a subresource, and kube's rules on their wildcards. */
function validateResources(resources: string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const withWildcardSubresource = new Set<string>(); // x/*
  const subresourcesOfAnyResource = new Set<string>(); // */x
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErrors.required(path.index(i)));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // As kube: the last entry without a subresource decides.
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSubresource.has(res)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesOfAnyResource.has(sub)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSubresource.add(res);
    if (res === '*') subresourcesOfAnyResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard) errs.push(fieldErrors.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) {
    errs.push(fieldErrors.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

/** validateRule with subresources allowed (webhook rules). */
function validateRule(rule: RuleWithOperationsJson, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const groups = rule.apiGroups ?? [];
  const versions = rule.apiVersions ?? [];
  if (groups.length === 0) errs.push(fieldErrors.required(path.child('apiGroups')));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(path.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  // The group may be empty (the core group); a version may not.
  if (versions.length === 0) errs.push(fieldErrors.required(path.child('apiVersions')));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(path.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(path.child('apiVersions').index(i)));
  });
  errs.push(...validateResources(rule.resources ?? [], path.child('resources')));
  if (rule.scope != null && !scopes.includes(rule.scope)) errs.push(fieldErrors.notSupported(path.child('scope'), rule.scope, scopes));
  return errs;
}

function validateRuleWithOperations(rule: RuleWithOperationsJson, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(fieldErrors.required(path.child('operations')));
  if (ops.length > 1 && ops.includes('*')) {
    errs.push({ ...fieldErrors.invalid(path.child('operations'), ops, "if '*' is present, must not specify other operations"), badValueText: operationsText(ops) });
  }
  ops.forEach((op, i) => {
    if (!operations.includes(op)) errs.push(fieldErrors.notSupported(path.child('operations').index(i), op, operations));
  });
  errs.push(...validateRule(rule, path));
  return errs;
}

/** validateAdmissionReviewVersions: DNS-1035 labels, no repeats, and (when required) v1 or v1beta1 among them. */
function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, path: FieldPath): FieldError[] {
  if (versions.length < 1) return [fieldErrors.required(path, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let hasAccepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(path.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(path.index(i), v, msg));
    if (acceptedReviewVersions.includes(v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted) errs.push(fieldErrors.invalid(path, versions, `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

const urlForm = '; desired format: https://host[/path]';

/** apiserver webhook.ValidateWebhookURL with https required. */
export function validateWebhookUrl(path: FieldPath, url: string): FieldError[] {
  let u: GoURL;
  try {
    u = parseURL(url);
  } catch (e) {
    if (!(e instanceof GoUrlError)) throw e;
    return [fieldErrors.required(path, `url must be a valid URL: ${e.message}${urlForm}`)];
  }
  // The values are Go strings kube quotes with %q: the fragment's bytes may not be UTF-8.
  const invalid = (value: string, bytes: Buffer, detail: string): FieldError => ({ ...fieldErrors.invalid(path, value, detail), badValueText: goQuoteBytes(bytes) });
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${urlForm}`));
  if (u.host.length === 0) errs.push(fieldErrors.invalid(path, u.host, `host must be specified${urlForm}`));
  if (u.user !== undefined) errs.push(invalid(u.user, Buffer.from(u.user), 'user information is not permitted in the URL'));
  if (u.fragmentBytes.length) errs.push(invalid(u.fragment, u.fragmentBytes, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length) errs.push(invalid(u.rawQuery, Buffer.from(u.rawQuery), 'query parameters are not permitted in the URL'));
  return errs;
}

/** apiserver webhook.ValidateWebhookService: name, namespace, port 1..65535, and a path of DNS-subdomain segments. */
export function validateWebhookService(path: FieldPath, name: string, namespace: string, urlPath: string | null | undefined, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(fieldErrors.required(path.child('name'), 'service name is required'));
  if (namespace.length === 0) errs.push(fieldErrors.required(path.child('namespace'), 'service namespace is required'));
  if (!(port >= 1 && port <= 65535)) errs.push(fieldErrors.invalid(path.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (urlPath == null || urlPath === '/' || urlPath === '') return errs;
  const p = path.child('path');
  if (urlPath === '//') return [...errs, fieldErrors.invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(p, urlPath, "must start with a '/'"));
  // As kube: the first character goes whether or not it is the '/', and one trailing '/' is allowed.
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(fieldErrors.invalid(p, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(p, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

function validateClientConfig(cc: WebhookClientConfigJson, path: FieldPath): FieldError[] {
  const hasUrl = cc.url != null;
  const hasService = cc.service != null;
  if (hasUrl === hasService) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  if (hasUrl) return validateWebhookUrl(path.child('url'), cc.url as string);
  const s = cc.service ?? {};
  // The port is defaulted (443) before validation; an unset one is Go's zero after conversion.
  // kube hands the service's name and namespace over in the other order than ValidateWebhookService
  // takes them: a missing name is reported as a missing namespace, and the reverse.
  return validateWebhookService(path.child('service'), s.namespace ?? '', s.name ?? '', s.path, s.port ?? 0);
}

/**
 * validateMatchCondition: a compiling expression (kube trims it first) and a qualified name. The
 * expression is new unless the stored object has it; kube looks the trimmed expression up among
 * the stored ones as written, so one stored with surrounding spaces counts as new.
 */
function validateMatchCondition(mc: MatchConditionJson, preexisting: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = mc.name ?? '';
  const expression = (mc.expression ?? '').trim();
  if (expression.length === 0) {
    errs.push(fieldErrors.required(path.child('expression')));
  } else {
    try {
      compileAdmissionMatchCondition(name, expression, { newExpression: !preexisting.has(expression) });
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      errs.push(e.fieldError(path.child('expression'), expression));
    }
  }
  if (name.length === 0) errs.push(fieldErrors.required(path.child('name')));
  else for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(path.child('name'), name, msg));
  return errs;
}

function validateMatchConditions(conditions: (MatchConditionJson | null)[], preexisting: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errs.push(fieldErrors.tooMany(path, conditions.length, maxMatchConditions));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const mc = c ?? {};
    errs.push(...validateMatchCondition(mc, preexisting, path.index(i)));
    const name = mc.name ?? '';
    if (name.length === 0) return;
    if (names.has(name)) errs.push(fieldErrors.duplicate(path.index(i).child('name'), name));
    else names.add(name);
  });
  return errs;
}

/** validateMutatingWebhook / validateValidatingWebhook (the latter has no reinvocationPolicy). */
function validateWebhook(hook: WebhookJson, kind: WebhookKind, opts: WebhookValidationOptions, path: FieldPath): FieldError[] {
  const errs = validateFullyQualifiedName(path.child('name'), hook.name ?? '');
  (hook.rules ?? []).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule ?? {}, path.child('rules').index(i))));
  if (hook.failurePolicy != null && !failurePolicies.includes(hook.failurePolicy)) {
    errs.push(fieldErrors.notSupported(path.child('failurePolicy'), hook.failurePolicy, failurePolicies));
  }
  if (hook.matchPolicy != null && !matchPolicies.includes(hook.matchPolicy)) errs.push(fieldErrors.notSupported(path.child('matchPolicy'), hook.matchPolicy, matchPolicies));
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffectClasses : allSideEffectClasses;
  if (hook.sideEffects == null) errs.push(fieldErrors.required(path.child('sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(hook.sideEffects)) errs.push(fieldErrors.notSupported(path.child('sideEffects'), hook.sideEffects, allowedSideEffects));
  if (hook.timeoutSeconds != null && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(fieldErrors.invalid(path.child('timeoutSeconds'), hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  const selectorOpts = { allowInvalidValues: opts.allowInvalidLabelValueInSelector };
  errs.push(...validateLabelSelector(hook.namespaceSelector, selectorOpts, path.child('namespaceSelector')));
  errs.push(...validateLabelSelector(hook.objectSelector, selectorOpts, path.child('objectSelector')));
  if (kind === 'mutating' && hook.reinvocationPolicy != null && !reinvocationPolicies.includes(hook.reinvocationPolicy)) {
    errs.push(fieldErrors.notSupported(path.child('reinvocationPolicy'), hook.reinvocationPolicy, reinvocationPolicies));
  }
  errs.push(...validateClientConfig(hook.clientConfig ?? {}, path.child('clientConfig')));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions ?? [], opts.preexistingExpressions, path.child('matchConditions')));
  return errs;
}

/** validateMutatingWebhookConfiguration / validateValidatingWebhookConfiguration without the metadata. */
function validateWebhooks(obj: KubeObject, kind: WebhookKind, opts: WebhookValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((hook, i) => {
    const path = root('webhooks').index(i);
    errs.push(...validateWebhook(hook, kind, opts, path));
    errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions ?? [], opts.requireRecognizedAdmissionReviewVersion, path.child('admissionReviewVersions')));
    const name = hook.name ?? '';
    if (!opts.requireUniqueWebhookNames || name.length === 0) return;
    if (names.has(name)) errs.push(fieldErrors.duplicate(path.child('name'), name));
    else names.add(name);
  });
  return errs;
}

/** ValidateMutatingWebhookConfiguration / ValidateValidatingWebhookConfiguration (the create rules). */
export function validateWebhookConfiguration(obj: KubeObject, kind: WebhookKind): FieldError[] {
  return validateWebhooks(obj, kind, strictOptions);
}

/** The rules an update is held to, given what the stored object already breaks (kube's Update options). */
function updateOptions(obj: KubeObject, old: KubeObject): WebhookValidationOptions {
  const oldHooks = webhooksOf(old);
  const newHooks = webhooksOf(obj);
  const names = oldHooks.map((h) => h.name ?? '');
  return {
    ignoreMatchConditions: newHooks.length === oldHooks.length && newHooks.every((h, i) => semanticEqual(h.matchConditions, oldHooks[i]?.matchConditions)),
    requireNoSideEffects: oldHooks.every((h) => h.sideEffects != null && noSideEffectClasses.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = h.admissionReviewVersions ?? [];
      return versions.length === 0 || versions.some((v) => acceptedReviewVersions.includes(v));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: oldHooks.some((h) => hasInvalidSelector(h.namespaceSelector) || hasInvalidSelector(h.objectSelector)),
    preexistingExpressions: new Set(oldHooks.flatMap((h) => (h.matchConditions ?? []).map((mc) => mc?.expression ?? ''))),
  };
}

function hasInvalidSelector(sel: LabelSelectorJson | null | undefined): boolean {
  return validateLabelSelector(sel, { allowInvalidValues: false }, root('')).length > 0;
}

/** ValidateMutatingWebhookConfigurationUpdate / ValidateValidatingWebhookConfigurationUpdate without the metadata. */
export function validateWebhookConfigurationUpdate(obj: KubeObject, old: KubeObject, kind: WebhookKind): FieldError[] {
  return validateWebhooks(obj, kind, updateOptions(obj, old));
}
