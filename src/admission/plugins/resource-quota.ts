/**
 * kube's ResourceQuota admission (apiserver pkg/admission/plugin/resourcequota): a write the
 * resource's evaluator handles (a CREATE; for pods also an UPDATE of `resize`) is checked against
 * every matching quota of its namespace and, when allowed, charged by writing the quotas'
 * status.used with compare-and-swap before the write proceeds. What an object charges and which
 * quotas (scopes) it answers to come from the evaluators in api/quota, shared with the controller.
 * Requests are batched per namespace (one evaluation at a time per namespace in this server);
 * several servers on one etcd are kept honest by the CAS and kube's re-read-and-retry loop.
 *
 * The plugin's configuration (kube's ResourceQuotaConfiguration) may list `limitedResources`:
 * resources whose consumption needs a covering quota. A request consuming a resource name that
 * contains one of a limited resource's `matchContains`, with no matching quota limiting that name,
 * is refused (403 `insufficient quota to consume: …`); one whose object matches a limited resource's
 * `matchScopes` with no matching scope in a quota of its namespace fails (kube's plain error, a 500
 * `insufficient quota to match these scopes: …`). With limited resources, a namespace without any
 * quota is evaluated too.
 */
import {
  ApiError,
  FieldError,
  FieldPath,
  KubeObject,
  QuotaEvaluator,
  ResourceList,
  ScopeMatchError,
  type ScopeRequirement,
  addLists,
  aggregateMessages,
  errors,
  exceededNames,
  failureStatus,
  fieldErrorString,
  fieldErrors,
  fromResourceList,
  goPathError,
  isQuotaIgnoredResource,
  listsEqual,
  maskList,
  negativeNames,
  objectCountResourceNames,
  prettyPrintList,
  prettyPrintNames,
  quotaEvaluatorFor,
  quotaScopeSelectors,
  quotaShape,
  removeZeros,
  scopeRequirementText,
  subtractNonNegative,
  toResourceList,
} from '../../api';
import type { RequestContext } from '../../api/request-context';
import { QuotaAccessor, requireDep } from '../deps';
import { AdmissionAttributes, AdmissionPlugin, handlesOperations } from '../interface';
import type { Plugins } from '../plugin-registry';
import { ConfigDecodeError, ConfigScheme, configVersion, defineConfigKind, readConfigSource, s, type ConfigSource } from '../../config/versioned-config';


export const resourceQuotaPluginName = 'ResourceQuota';

/** kube's LimitedResource: a resource whose consumption must be covered by a quota. */
export interface LimitedResource {
  /** The resource's API group ("" for core). */
  apiGroup: string;
  resource: string;
  /** A consumed resource name containing one of these needs a quota limiting it. */
  matchContains: string[];
  /** An object matching one of these scopes needs a quota of its namespace with that scope. */
  matchScopes: ScopeRequirement[];
}

export interface ResourceQuotaAdmissionOptions {
  accessor: QuotaAccessor;
  /** How long one admission waits for its evaluation (kube: 10 s). */
  timeoutMs?: number;
  /** The configuration's limitedResources (none by default). */
  limitedResources?: readonly LimitedResource[];
}

export { objectCountResourceNames };

/**
 * admission.NewForbidden: the request's name, else (a create not yet named) the object's name or
 * generateName, else "Unknown".
 */
function forbidden(a: AdmissionAttributes, message: string): ApiError {
  const meta = a.object?.metadata;
  const name = a.name || meta?.name || meta?.generateName || 'Unknown';
  return errors.forbidden({ group: a.group, resource: a.resource }, name, message);
}

/** A plain Go error returned by admission: the handler answers 500 with no reason and the error's text. */
const plainError = (message: string) => new ApiError(failureStatus(500, '', message));

const hardOf = (q: KubeObject) => toResourceList(quotaShape(q).status?.hard);
const usedOf = (q: KubeObject) => toResourceList(quotaShape(q).status?.used);

/** hasUsageStats: every hard name the evaluator restricts has a usage recorded. */
function hasUsageStats(q: KubeObject, restricted: string[]): boolean {
  const used = quotaShape(q).status?.used ?? {};
  return Object.keys(quotaShape(q).status?.hard ?? {}).every((n) => !restricted.includes(n) || n in used);
}

/** kube's limitedByDefault: the consumed names (positive usage) containing one of a limited resource's matchContains. */
function limitedByDefault(usage: ResourceList, limited: readonly LimitedResource[]): Set<string> {
  const names = new Set<string>();
  for (const l of limited) {
    for (const [name, q] of usage) if (q.sign() > 0 && l.matchContains.some((m) => name.includes(m))) names.add(name);
  }
  return names;
}

/**
 * kube's CheckRequest: the quotas with the request's usage charged (the input itself when nothing
 * is charged), or throws the error the request gets: 403 when a quota is exceeded, its usage is
 * unknown, the object lacks what the quota requires, or a limited resource it consumes has no
 * covering quota; a plain 500 when a limited scope it matches has none. Does not mutate its input.
 */
export function checkRequest(
  quotas: KubeObject[],
  a: AdmissionAttributes,
  now: Date = new Date(),
  ev: QuotaEvaluator = quotaEvaluatorFor(a.group, a.resource),
  limited: readonly LimitedResource[] = [],
): KubeObject[] {
  if (!ev.handles(a.operation, a.subresource)) return quotas;
  const obj = a.object ?? ({ metadata: {} } as KubeObject);

  // kube's getMatchedLimitedScopes: the scopes of every limited resource the object matches (a
  // scope that cannot be evaluated lets the request through, as kube's does).
  let limitedScopes: ScopeRequirement[];
  try {
    limitedScopes = limited.flatMap((l) => l.matchScopes.filter((r) => ev.matchesScope(r, obj)));
  } catch (e) {
    if (e instanceof ScopeMatchError) return quotas;
    throw e;
  }
  // The resource names whose consumption needs a covering quota.
  const limitedHere = limited.filter((l) => l.apiGroup === a.group && l.resource === a.resource);
  const limitedNames = limitedHere.length ? limitedByDefault(ev.usage(obj, now), limitedHere) : new Set<string>();

  const interesting: number[] = [];
  // What the matching quotas limit, and the scopes of every quota the object matches.
  const restrictedNames = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  quotas.forEach((q, i) => {
    const name = q.metadata.name ?? '';
    // kube's MatchingScopes, then Matches (which decides the same requirements again): a requirement
    // that cannot be evaluated fails the request as a plain error.
    let scoped = true;
    try {
      for (const r of quotaScopeSelectors(q)) {
        const matches = ev.matchesScope(r, obj);
        if (matches) restrictedScopes.push(r);
        scoped = matches && scoped;
      }
    } catch (e) {
      if (e instanceof ScopeMatchError) throw plainError(`error matching scopes of quota ${name}, err: ${e.message}`);
      throw e;
    }
    const restricted = ev.matchingResources(Object.keys(quotaShape(q).status?.hard ?? {}));
    if (!scoped || !restricted.length) return;
    const unmet = ev.constraintsError(restricted, obj);
    if (unmet) throw forbidden(a, `failed quota: ${name}: ${unmet}`);
    if (!hasUsageStats(q, restricted)) throw forbidden(a, `status unknown for quota: ${name}, resources: ${prettyPrintNames(restricted)}`);
    interesting.push(i);
    for (const n of restricted) restrictedNames.add(n);
  });

  let delta: ResourceList = ev.usage(obj, now);
  const negative = negativeNames(delta);
  if (negative.length) throw forbidden(a, `quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);
  if (a.operation === 'UPDATE') {
    if (!a.oldObject) throw forbidden(a, 'unable to get previous usage since prior version of object was not found');
    // Charge only the growth, unless the old object never existed (a create through update).
    if (a.oldObject.metadata.resourceVersion) delta = subtractNonNegative(delta, ev.usage(a.oldObject, now));
  }
  delta = removeZeros(delta);
  if (!delta.size) return quotas;

  // Every limited name consumed must be limited by a matching quota, every limited scope matched by one.
  const uncovered = [...limitedNames].filter((n) => !restrictedNames.has(n)).sort();
  if (uncovered.length) throw forbidden(a, `insufficient quota to consume: ${uncovered.join(',')}`);
  const uncoveredScopes = limitedScopes.filter((l) => !restrictedScopes.some((r) => r.scopeName === l.scopeName));
  if (uncoveredScopes.length) throw plainError(`insufficient quota to match these scopes: [${uncoveredScopes.map(scopeRequirementText).join(' ')}]`);
  if (!interesting.length) return quotas;

  // Only the charged quotas are copied (a new status each); the rest are the caller's own objects.
  const out = [...quotas];
  for (const i of interesting) {
    const q = out[i] as KubeObject;
    const hard = hardOf(q);
    const used = usedOf(q);
    const requested = maskList(delta, hard.keys());
    const newUsage = addLists(used, requested);
    const exceeded = exceededNames(maskList(newUsage, requested.keys()), hard);
    if (exceeded.length) {
      throw forbidden(
        a,
        `exceeded quota: ${q.metadata.name ?? ''}, requested: ${prettyPrintList(maskList(requested, exceeded))}, used: ${prettyPrintList(
          maskList(used, exceeded),
        )}, limited: ${prettyPrintList(maskList(hard, exceeded))}`,
      );
    }
    out[i] = { ...q, status: { ...(quotaShape(q).status ?? {}), used: fromResourceList(newUsage) } };
  }
  return out;
}

/** kube's defaultDeny: a waiter not yet released by a successful quota write. */
const defaultDeny = Symbol('DEFAULT DENY');

interface Waiter {
  attrs: AdmissionAttributes;
  /** The evaluator of the request's resource. */
  ev: QuotaEvaluator;
  /** When the request arrived (the pod evaluator's clock for deletion grace periods). */
  now: Date;
  result: unknown; // undefined = allowed, defaultDeny, or the error to throw
  finish: () => void;
}

/** The per-namespace work queue and retry loop of kube's quotaEvaluator. */
class NamespaceWorkQueue {
  private readonly pending = new Map<string, Waiter[]>();
  private readonly active = new Set<string>();

  constructor(private readonly opts: ResourceQuotaAdmissionOptions) {}

  evaluate(a: AdmissionAttributes, ev: QuotaEvaluator, now: Date): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiter.finish = () => undefined;
        reject(errors.internal(new Error('resource quota evaluation timed out')));
      }, this.opts.timeoutMs ?? 10_000);
      const waiter: Waiter = {
        attrs: a,
        ev,
        now,
        result: defaultDeny,
        finish: () => {
          clearTimeout(timer);
          if (waiter.result === undefined) resolve();
          else reject(waiter.result === defaultDeny ? errors.internal(new Error('DEFAULT DENY')) : waiter.result);
        },
      };
      const queue = this.pending.get(a.namespace) ?? [];
      queue.push(waiter);
      this.pending.set(a.namespace, queue);
      if (!this.active.has(a.namespace)) void this.work(a.namespace);
    });
  }

  /** Drains a namespace's queue, one batch at a time. */
  private async work(namespace: string): Promise<void> {
    this.active.add(namespace);
    try {
      for (let batch = this.pending.get(namespace); batch?.length; batch = this.pending.get(namespace)) {
        this.pending.delete(namespace);
        try {
          await this.checkAttributes(namespace, batch);
        } catch (e) {
          for (const w of batch) if (w.result === defaultDeny) w.result = e;
        }
        for (const w of batch) w.finish();
      }
    } finally {
      this.active.delete(namespace);
    }
  }

  private async checkAttributes(namespace: string, waiters: Waiter[]): Promise<void> {
    let quotas: KubeObject[];
    try {
      quotas = await this.opts.accessor.getQuotas(namespace);
    } catch (e) {
      for (const w of waiters) w.result = e;
      return;
    }
    // With limited resources, a namespace without quotas is checked too: its requests may need one.
    if (!quotas.length && !this.opts.limitedResources?.length) {
      for (const w of waiters) w.result = undefined;
      return;
    }
    await this.checkQuotas(namespace, quotas, waiters, 3);
  }

  /** kube's checkQuotas: evaluate every waiter in turn, write the changed quotas, re-read and retry on failure. */
  private async checkQuotas(namespace: string, initial: KubeObject[], waiters: Waiter[], retries: number): Promise<void> {
    let quotas = initial;
    let changed = false;
    for (const w of waiters) {
      let next: KubeObject[];
      try {
        next = checkRequest(quotas, w.attrs, w.now, w.ev, this.opts.limitedResources);
      } catch (e) {
        w.result = e;
        continue;
      }
      // Dry-run requests are checked but never charged.
      if (w.attrs.dryRun) {
        w.result = undefined;
        continue;
      }
      // checkRequest hands back the same object for every quota it did not charge.
      const charges = next.some((q, j) => q !== quotas[j] && !listsEqual(usedOf(quotas[j] as KubeObject), usedOf(q)));
      if (!charges) w.result = undefined;
      changed ||= charges;
      quotas = next;
    }
    if (!changed) return;

    const failed: KubeObject[] = [];
    let lastErr: unknown;
    for (let j = 0; j < quotas.length; j++) {
      const q = quotas[j] as KubeObject;
      if (q === initial[j] || listsEqual(usedOf(initial[j] as KubeObject), usedOf(q))) continue;
      try {
        await this.opts.accessor.updateQuotaStatus(q);
      } catch (e) {
        failed.push(q);
        lastErr = e;
      }
    }
    if (!failed.length) {
      for (const w of waiters) if (w.result === defaultDeny) w.result = undefined;
      return;
    }
    if (retries <= 0) {
      for (const w of waiters) if (w.result === defaultDeny) w.result = lastErr;
      return;
    }
    let fresh: KubeObject[];
    try {
      fresh = await this.opts.accessor.getQuotas(namespace, { fresh: true });
    } catch {
      for (const w of waiters) if (w.result === defaultDeny) w.result = lastErr;
      return;
    }
    // Only the quotas whose write failed are checked again (a deleted one drops out).
    const names = new Set(failed.map((q) => q.metadata.name));
    await this.checkQuotas(namespace, fresh.filter((q) => names.has(q.metadata.name)), waiters, retries - 1);
  }
}

/** The ResourceQuota validating admission plugin. */
export function resourceQuota(opts: ResourceQuotaAdmissionOptions): AdmissionPlugin {
  const evaluator = new NamespaceWorkQueue(opts);
  return {
    name: resourceQuotaPluginName,
    handles: handlesOperations('CREATE', 'UPDATE'),
    async validate(ctx: RequestContext, a: AdmissionAttributes) {
      // Cluster-scoped objects (namespaces among them) are never charged.
      if (!a.namespace || !a.namespaced) return;
      // kube's DefaultIgnoredResources (events, the virtual review resources) are never counted.
      if (isQuotaIgnoredResource(a.group, a.resource)) return;
      // Only writes the resource's evaluator handles can change usage: CREATE (and a pod's resize).
      const ev = quotaEvaluatorFor(a.group, a.resource);
      if (!ev.handles(a.operation, a.subresource)) return;
      // A namespace known (without I/O) to have no quota allows the write, as kube's worker would
      // find at once: no queue, no timer. With limited resources it is evaluated all the same.
      if (!opts.limitedResources?.length) {
        const known = opts.accessor.getQuotas(a.namespace);
        // A live lookup under way: the worker awaits the same one (and sees its error).
        if (known instanceof Promise) known.catch(() => undefined);
        else if (!known.length) return;
      }
      await evaluator.evaluate(a, ev, ctx.now());
    },
  };
}

/**
 * kube's ResourceQuotaConfiguration (apiserver pkg/admission/plugin/resourcequota/apis): read in
 * `apiserver.config.k8s.io/v1` (kind ResourceQuotaConfiguration) and in the older
 * `resourcequota.admission.k8s.io/v1beta1` and `v1alpha1` (kind Configuration), all the same
 * shape, decoded strictly as kube's LoadConfiguration does and validated (a limited resource
 * needs a `resource`). Errors are kube's own text, which the chain prefixes with the plugin's name.
 */
function limitedResourceShape(pkg: string) {
  return s.struct(`${pkg}.LimitedResource`, {
    apiGroup: s.string(),
    resource: s.string(),
    matchContains: s.list(s.string()),
    matchScopes: s.list(
      s.struct('v1.ScopedResourceSelectorRequirement', {
        scopeName: s.string('v1.ResourceQuotaScope'),
        operator: s.string('v1.ScopeSelectorOperator'),
        values: s.list(s.string()),
      }),
    ),
  });
}

function quotaConfigVersion(pkg: string) {
  const shape = s.struct(`${pkg}.Configuration`, { limitedResources: s.list(limitedResourceShape(pkg)) });
  return configVersion(shape, {
    toInternal: (v): ResourceQuotaConfiguration => ({
      limitedResources: (v.limitedResources ?? []).map((l) => ({
        apiGroup: l.apiGroup,
        resource: l.resource,
        matchContains: l.matchContains ?? [],
        matchScopes: (l.matchScopes ?? []).map((r) => ({ scopeName: r.scopeName, operator: r.operator, values: r.values ?? [] })),
      })),
    }),
  });
}

export interface ResourceQuotaConfiguration {
  limitedResources: LimitedResource[];
}

const quotaConfigKind = (group: string, kind: string, versions: string[]) =>
  defineConfigKind<ResourceQuotaConfiguration>({
    group,
    kind,
    versions: Object.fromEntries(versions.map((v) => [v, quotaConfigVersion(v)])),
    internalType: '*resourcequota.Configuration',
  });

/** kube's scheme of the plugin (its name is where kube's config.go makes it). */
const resourceQuotaConfigScheme = new ConfigScheme('k8s.io/apiserver/pkg/admission/plugin/resourcequota/config.go:31', [
  quotaConfigKind('apiserver.config.k8s.io', 'ResourceQuotaConfiguration', ['v1']),
  quotaConfigKind('resourcequota.admission.k8s.io', 'Configuration', ['v1beta1', 'v1alpha1']),
]);

/** kube's ValidateConfiguration. */
function validateConfiguration(c: ResourceQuotaConfiguration): FieldError[] {
  const path = FieldPath.root('limitedResources');
  return c.limitedResources.flatMap((l, i) => (l.resource ? [] : [fieldErrors.required(path.index(i).child('resource'), '')]));
}

/** kube's LoadConfiguration and ValidateConfiguration: no source is the empty configuration. Throws Error with kube's text. */
export function loadResourceQuotaConfiguration(source: ConfigSource | undefined): ResourceQuotaConfiguration {
  if (!source) return { limitedResources: [] };
  const data = readConfigSource(source, (e, file) => new Error(goPathError('open', file, e)));
  let config: ResourceQuotaConfiguration;
  try {
    config = resourceQuotaConfigScheme.decode(data).config as ResourceQuotaConfiguration;
  } catch (e) {
    if (e instanceof ConfigDecodeError) throw new Error(e.message);
    throw e;
  }
  const errs = validateConfiguration(config);
  if (errs.length) throw new Error(aggregateMessages(errs.map(fieldErrorString)));
  return config;
}

/** Configuration: a ResourceQuotaConfiguration (its limitedResources); needs deps.quotas (and deps.quotaTimeoutMs if set). */
export function registerResourceQuota(plugins: Plugins): void {
  plugins.register(resourceQuotaPluginName, {
    readConfig: loadResourceQuotaConfiguration,
    build: ({ limitedResources }, deps) =>
      resourceQuota({ accessor: requireDep(deps, 'quotas', resourceQuotaPluginName), timeoutMs: deps.quotaTimeoutMs, limitedResources }),
  });
}
