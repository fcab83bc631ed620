/**
 * kube's ResourceQuota admission (apiserver pkg/admission/plugin/resourcequota): a CREATE of a
 * counted object is checked against every matching quota of its namespace and, when allowed,
 * charged by writing the quotas' status.used with compare-and-swap before the create proceeds.
 * Requests are batched per namespace (one evaluation at a time per namespace in this server);
 * several servers on one etcd are kept honest by the CAS and kube's re-read-and-retry loop.
 */
import { KubeObject, Quantity, errors, parseQuantity, cloneJson, isQuotaIgnoredResource, objectCountResourceNames } from '../../api';
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

type ResourceList = Map<string, Quantity>;

function toList(map: Record<string, unknown> | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(map ?? {})) out.set(k, parseQuantity(v as string | number));
  return out;
}

function fromList(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of list) out[k] = v.toString();
  return out;
}

/** quota.Add: the union, summing shared names. */
function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? (out.get(k) as Quantity).add(v) : v);
  return out;
}

/** quota.Mask: only the given names. */
function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = list.get(n);
    if (v) out.set(n, v);
  }
  return out;
}

function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!b.get(k)?.equals(v)) return false;
  return true;
}

/** kube's prettyPrint: `name=quantity` sorted by name, joined by ",". */
function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${(list.get(k) as Quantity).toString()}`)
    .join(',');
}

interface QuotaShape {
  spec?: { scopes?: string[]; scopeSelector?: { matchExpressions?: unknown[] } };
  status?: { hard?: Record<string, unknown>; used?: Record<string, unknown> };
}
const shape = (q: KubeObject) => q as unknown as QuotaShape;

/** A quota with scopes never matches an object-count evaluator (kube: MatchesNoScopeFunc). */
function hasScopes(q: KubeObject): boolean {
  const s = shape(q).spec;
  return !!(s?.scopes?.length || s?.scopeSelector?.matchExpressions?.length);
}

const forbidden = (a: AdmissionAttributes, message: string) => errors.forbidden({ group: a.group, resource: a.resource }, a.name || 'Unknown', message);

/**
 * kube's CheckRequest for the object-count evaluator: the quotas with their new usage, or throws
 * the 403 the request gets. Does not mutate its input.
 */
export function checkRequest(quotas: KubeObject[], a: AdmissionAttributes): KubeObject[] {
  const names = objectCountResourceNames(a.group, a.resource);
  const interesting: number[] = [];
  quotas.forEach((q, i) => {
    const hard = toList(shape(q).status?.hard);
    const matched = names.filter((n) => hard.has(n));
    if (!matched.length || hasScopes(q)) return;
    const used = shape(q).status?.used ?? {};
    if (matched.some((n) => !(n in used))) {
      throw forbidden(a, `status unknown for quota: ${q.metadata.name ?? ''}, resources: ${[...matched].sort().join(',')}`);
    }
    interesting.push(i);
  });
  if (!interesting.length) return quotas;
  const delta: ResourceList = new Map(names.map((n) => [n, Quantity.of(1)]));
  const out = quotas.map((q) => cloneJson(q));
  for (const i of interesting) {
    const q = out[i] as KubeObject;
    const hard = toList(shape(q).status?.hard);
    const used = toList(shape(q).status?.used);
    const requested = mask(delta, hard.keys());
    const newUsage = add(used, requested);
    const exceeded = [...mask(newUsage, requested.keys())].filter(([k, v]) => v.cmp(hard.get(k) as Quantity) > 0).map(([k]) => k);
    if (exceeded.length) {
      throw forbidden(
        a,
        `exceeded quota: ${q.metadata.name ?? ''}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(
          mask(used, exceeded),
        )}, limited: ${prettyPrint(mask(hard, exceeded))}`,
      );
    }
    (q as unknown as QuotaShape).status = { ...(shape(q).status ?? {}), used: fromList(newUsage) };
  }
  return out;
}

/** kube's defaultDeny: a waiter not yet released by a successful quota write. */
const defaultDeny = Symbol('DEFAULT DENY');

interface Waiter {
  attrs: AdmissionAttributes;
  result: unknown; // undefined = allowed, defaultDeny, or the error to throw
  finish: () => void;
}

const usedOf = (q: KubeObject) => toList(shape(q).status?.used);

/** The per-namespace work queue and retry loop of kube's quotaEvaluator. */
class QuotaEvaluator {
  private readonly pending = new Map<string, Waiter[]>();
  private readonly active = new Set<string>();

  constructor(private readonly opts: ResourceQuotaAdmissionOptions) {}

  evaluate(a: AdmissionAttributes): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiter.finish = () => undefined;
        reject(errors.internal(new Error('resource quota evaluation timed out')));
      }, this.opts.timeoutMs ?? 10_000);
      const waiter: Waiter = {
        attrs: a,
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
        next = checkRequest(quotas, w.attrs);
      } catch (e) {
        w.result = e;
        continue;
      }
      // Dry-run requests are checked but never charged.
      if (w.attrs.dryRun) {
        w.result = undefined;
        continue;
      }
      const charges = next.some((q, j) => !equals(usedOf(quotas[j] as KubeObject), usedOf(q)));
      if (!charges) w.result = undefined;
      changed ||= charges;
      quotas = next;
    }
    if (!changed) return;

    const failed: KubeObject[] = [];
    let lastErr: unknown;
    for (let j = 0; j < quotas.length; j++) {
      const q = quotas[j] as KubeObject;
      if (equals(usedOf(initial[j] as KubeObject), usedOf(q))) continue;
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
  const evaluator = new QuotaEvaluator(opts);
  return {
    name: resourceQuotaPluginName,
    handles: handlesOperations('CREATE', 'UPDATE'),
    async validate(_ctx: RequestContext, a: AdmissionAttributes) {
      // Subresources, cluster-scoped objects and anything but CREATE never consume object counts.
      if (a.subresource || !a.namespace || !a.namespaced || a.operation !== 'CREATE') return;
      // kube's DefaultIgnoredResources (events, the virtual review resources) are never counted.
      if (isQuotaIgnoredResource(a.group, a.resource)) return;
      await evaluator.evaluate(a);
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
