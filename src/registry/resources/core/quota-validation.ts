/**
 * ResourceQuota validation as kube's pkg/apis/core/validation (ValidateResourceQuota, …Update,
 * …StatusUpdate) and the resource-name sets of pkg/apis/core/helper, with kube's messages.
 */
import { FieldError, FieldPath, KubeObject, Quantity, QuantityParseError, fieldErrors, goQuote, isExtendedResourceName, isQualifiedName, parseQuantity } from '../../../api';

export type QuantityMap = Record<string, string | number>;

export interface ScopedResourceSelectorRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

export interface QuotaSpec {
  hard?: QuantityMap;
  scopes?: string[];
  scopeSelector?: { matchExpressions?: ScopedResourceSelectorRequirement[] };
}

export interface QuotaStatus {
  hard?: QuantityMap;
  used?: QuantityMap;
}

export const quotaSpec = (o: KubeObject): QuotaSpec => (o.spec as QuotaSpec | undefined) ?? {};
export const quotaStatus = (o: KubeObject): QuotaStatus => (o.status as QuotaStatus | undefined) ?? {};

const computeNames = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];
const integerNames = ['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers'];
const standardQuotaNames = new Set([
  ...computeNames,
  'ephemeral-storage',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.ephemeral-storage',
  ...integerNames,
]);
const standardNames = new Set([...standardQuotaNames, 'storage']);
const integerSet = new Set(integerNames);

/** The scopes of 1.32 (PriorityClass and CrossNamespacePodAffinity are GA). */
export const standardScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];

const isQuotaHugePages = (n: string) => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-');

/** helper.IsStandardQuotaResourceName. */
export function isStandardQuotaResourceName(name: string): boolean {
  return standardQuotaNames.has(name) || isQuotaHugePages(name);
}

/** helper.IsStandardResourceName (any resource a quota or a container may name unprefixed). */
export function isStandardResourceName(name: string): boolean {
  return standardNames.has(name) || isQuotaHugePages(name);
}

/** helper.IsIntegerResourceName (so `count/…` names, being "extended", must be integers). */
export function isIntegerResourceName(name: string): boolean {
  return integerSet.has(name) || isExtendedResourceName(name);
}

/** helper.IsResourceQuotaScopeValidForResource. */
function isScopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || computeNames.includes(resource);
    case 'BestEffort':
      return resource === 'pods';
    default:
      return true;
  }
}

/** ValidateResourceQuotaResourceName (with validateResourceName before it, so `foo` gets two errors). */
function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
  const unprefixed = !name.includes('/');
  if (!errs.length && unprefixed && !isStandardResourceName(name)) {
    errs.push(fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  if (unprefixed && !isStandardQuotaResourceName(name)) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

/** ValidateResourceQuantityValue: non-negative, integral for integer resources. */
function validateQuantity(name: string, raw: string | number, path: FieldPath): FieldError[] {
  let q: Quantity;
  try {
    q = parseQuantity(raw);
  } catch (e) {
    // The decoder rejects these first (400); kept so a bad stored value cannot slip through.
    if (!(e instanceof QuantityParseError)) throw e;
    return [fieldErrors.invalid(path, String(raw), e.message)];
  }
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(fieldErrors.invalid(path, q.toString(), 'must be greater than or equal to 0'));
  // kube passes the Quantity value itself, which prints as a Go struct dump.
  if (isIntegerResourceName(name) && q.milliValue() % 1000n !== 0n) {
    errs.push({ type: 'FieldValueInvalid', field: String(path), badValueText: q.goStructString(), detail: 'must be an integer' });
  }
  return errs;
}

function validateResourceList(map: QuantityMap | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, q] of Object.entries(map ?? {})) {
    errs.push(...validateResourceName(name, path.key(name)), ...validateQuantity(name, q, path.key(name)));
  }
  return errs;
}

/** Go's %#v of a []core.ResourceQuotaScope. */
export function goScopes(scopes: string[] | undefined): string {
  if (!scopes) return '[]core.ResourceQuotaScope(nil)';
  return `[]core.ResourceQuotaScope{${scopes.map(goQuote).join(', ')}}`;
}

const goStrings = (xs: string[] | undefined) => (xs ? `[]string{${xs.map(goQuote).join(', ')}}` : '[]string(nil)');

/** Go's %#v of the *core.ScopeSelector (the pointer is dereferenced by the field-error printer). */
function goScopeSelector(sel: NonNullable<QuotaSpec['scopeSelector']>): string {
  const reqs = sel.matchExpressions;
  const inner = reqs
    ? `[]core.ScopedResourceSelectorRequirement{${reqs
        .map((r) => `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(r.scopeName ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${goStrings(r.values)}}`)
        .join(', ')}}`
    : '[]core.ScopedResourceSelectorRequirement(nil)';
  return `core.ScopeSelector{MatchExpressions:${inner}}`;
}

const conflictingPairs = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

function validateScopes(spec: QuotaSpec, path: FieldPath): FieldError[] {
  const scopes = spec.scopes ?? [];
  if (!scopes.length) return [];
  const p = path.child('scopes');
  const bad = (detail: string): FieldError => ({ type: 'FieldValueInvalid', field: String(p), badValueText: goScopes(spec.scopes), detail });
  const hard = Object.keys(spec.hard ?? {}).sort();
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!standardScopes.includes(scope)) errs.push(bad('unsupported scope'));
    for (const r of hard) if (isStandardQuotaResourceName(r) && !isScopeValidForResource(scope, r)) errs.push(bad('unsupported scope applied to resource'));
  }
  for (const pair of conflictingPairs) if (pair.every((s) => scopes.includes(s))) errs.push(bad('conflicting scopes'));
  return errs;
}

const existsOnlyScopes = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];

function validateScopeSelector(spec: QuotaSpec, path: FieldPath): FieldError[] {
  const sel = spec.scopeSelector;
  if (!sel) return [];
  const p = path.child('scopeSelector').child('matchExpressions');
  const whole = (detail: string): FieldError => ({ type: 'FieldValueInvalid', field: String(p), badValueText: goScopeSelector(sel), detail });
  const hard = Object.keys(spec.hard ?? {}).sort();
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const req of sel.matchExpressions ?? []) {
    const scope = req.scopeName ?? '';
    if (!standardScopes.includes(scope)) errs.push(fieldErrors.invalid(p.child('scopeName'), scope, 'unsupported scope'));
    for (const r of hard) if (isStandardQuotaResourceName(r) && !isScopeValidForResource(scope, r)) errs.push(whole('unsupported scope applied to resource'));
    if (existsOnlyScopes.includes(scope) && req.operator !== 'Exists') {
      errs.push(
        fieldErrors.invalid(
          p.child('operator'),
          req.operator ?? '',
          "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (!req.values?.length) {
          errs.push(fieldErrors.required(p.child('values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (req.values?.length) {
          errs.push({
            type: 'FieldValueInvalid',
            field: String(p.child('values')),
            badValueText: goStrings(req.values),
            detail: "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          });
        }
        break;
      default:
        errs.push(fieldErrors.invalid(p.child('operator'), req.operator ?? '', 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  // kube reports this one with spec.scopes as the bad value, not the selector.
  for (const pair of conflictingPairs) {
    if (pair.every((s) => seen.has(s))) errs.push({ type: 'FieldValueInvalid', field: String(p), badValueText: goScopes(spec.scopes), detail: 'conflicting scopes' });
  }
  return errs;
}

/** ValidateResourceQuotaSpec. */
export function validateQuotaSpec(spec: QuotaSpec): FieldError[] {
  const path = FieldPath.root('spec');
  return [...validateResourceList(spec.hard, path.child('hard')), ...validateScopes(spec, path), ...validateScopeSelector(spec, path)];
}

/** The status maps (ValidateResourceQuotaStatus). */
export function validateQuotaStatus(status: QuotaStatus): FieldError[] {
  const path = FieldPath.root('status');
  return [...validateResourceList(status.hard, path.child('hard')), ...validateResourceList(status.used, path.child('used'))];
}

/** ValidateResourceQuota (metadata is validated by the generic store). */
export function validateQuota(o: KubeObject): FieldError[] {
  return [...validateQuotaSpec(quotaSpec(o)), ...validateQuotaStatus(quotaStatus(o))];
}

/** ValidateResourceQuotaUpdate: the spec again, and spec.scopes may not change (compared as sets). */
export function validateQuotaUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateQuotaSpec(quotaSpec(o));
  const now = new Set(quotaSpec(o).scopes ?? []);
  const before = new Set(quotaSpec(old).scopes ?? []);
  if (now.size !== before.size || [...now].some((s) => !before.has(s))) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.scopes', badValueText: goScopes(quotaSpec(o).scopes), detail: 'field is immutable' });
  }
  return errs;
}

/** The canonical form of every quantity of a map (kube re-serialises Quantities on every write). */
export function canonicalQuantities(map: QuantityMap | undefined): Record<string, string> | undefined {
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = parseQuantity(v).toString();
  return out;
}
