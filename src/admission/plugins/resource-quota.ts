/**
 * kube's ResourceQuota admission (apiserver pkg/admission/plugin/resourcequota): a write the
 * resource's evaluator handles (a CREATE; for pods also an UPDATE of `resize`) is checked against
 * every matching quota of its namespace and, when allowed, charged by writing the quotas'
 * status.used with compare-and-swap before the write proceeds. What an object charges and which
 * quotas (scopes) it answers to come from the evaluators in api/quota, shared with the controller.
 * Requests are batched per namespace (one evaluation at a time per namespace in this server);
 * several servers on one etcd are kept honest by the CAS and kube's re-read-and-retry loop.
 */
import {
  ApiError,
  KubeObject,
  QuotaEvaluator,
  ResourceList,
  ScopeMatchError,
  addLists,
  errors,
  exceededNames,
  failureStatus,
  fromResourceList,
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
  subtractNonNegative,
  toResourceList,
} from '../../api';
import type { RequestContext } from '../../api/request-context';
import { QuotaAccessor, requireDep } from '../deps';
import { AdmissionAttributes, AdmissionPlugin, handlesOperations } from '../interface';
import type { Plugins } from '../plugin-registry';
import { configVersion, defineConfigKind, loadConfig, s, type ConfigSource } from '../../config/versioned-config';

export const resourceQuotaPluginName = 'ResourceQuota';

export interface ResourceQuotaAdmissionOptions {
  accessor: QuotaAccessor;
  /** How long one admission waits for its evaluation (kube: 10 s). */
  timeoutMs?: number;
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

/**
 * kube's CheckRequest: the quotas with the request's usage charged (the input itself when nothing
 * is charged), or throws the error the request gets: 403 when a quota is exceeded, its usage is
 * unknown, or the object lacks what the quota requires. Does not mutate its input.
 */
export function checkRequest(quotas: KubeObject[], a: AdmissionAttributes, now: Date = new Date(), ev: QuotaEvaluator = quotaEvaluatorFor(a.group, a.resource)): KubeObject[] {
  if (!ev.handles(a.operation, a.subresource)) return quotas;
  const obj = a.object ?? ({ metadata: {} } as KubeObject);
  const interesting: number[] = [];
  quotas.forEach((q, i) => {
    const name = q.metadata.name ?? '';
    // kube's MatchingScopes, then Matches (which decides the same requirements again): a requirement
    // that cannot be evaluated fails the request as a plain error.
    let scoped = true;
    try {
      for (const r of quotaScopeSelectors(q)) scoped = ev.matchesScope(r, obj) && scoped;
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
  if (!delta.size || !interesting.length) return quotas;

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
    if (!quotas.length) {
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
        next = checkRequest(quotas, w.attrs, w.now, w.ev);
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
      await evaluator.evaluate(a, ev, ctx.now());
    },
  };
}

/**
 * kube's ResourceQuotaConfiguration (`apiserver.config.k8s.io/v1`; kube's older
 * `resourcequota.admission.k8s.io` Configuration is not read): only its absence, or an empty
 * `limitedResources`, is supported yet; anything else is refused rather than ignored.
 */
function quotaConfigShape(pkg: string) {
  return s.struct(`${pkg}.Configuration`, {
    limitedResources: s.list(
      s.struct(`${pkg}.LimitedResource`, { apiGroup: s.string(), resource: s.string(), matchContains: s.list(s.string()), matchScopes: s.list(s.any()) }),
    ),
  });
}
const quotaConfigVersion = (pkg: string) => configVersion(quotaConfigShape(pkg), { toInternal: (v) => ({ limitedResources: v.limitedResources ?? [] }) });
const resourceQuotaConfigurationKind = defineConfigKind<{ limitedResources: unknown[] }>({
  group: 'apiserver.config.k8s.io',
  kind: 'ResourceQuotaConfiguration',
  versions: {
    v1: quotaConfigVersion('v1'),
  },
  internalType: '*resourcequota.Configuration',
});

function checkResourceQuotaConfiguration(source: ConfigSource | undefined): void {
  if (!source) return;
  const config = loadConfig(source, resourceQuotaConfigurationKind);
  if (config.limitedResources.length) throw new Error('limitedResources is not supported by this server');
}

/** Configuration: a ResourceQuotaConfiguration without limitedResources; needs deps.quotas (and deps.quotaTimeoutMs if set). */
export function registerResourceQuota(plugins: Plugins): void {
  plugins.register(resourceQuotaPluginName, (config, deps) => {
    checkResourceQuotaConfiguration(config);
    return resourceQuota({ accessor: requireDep(deps, 'quotas', resourceQuotaPluginName), timeoutMs: deps.quotaTimeoutMs });
  });
}
