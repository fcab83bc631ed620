/**
 * The webhooks of the stored configurations, ready to match and call (kube's WebhookAccessor and
 * its configuration managers, apiserver pkg/admission/configuration): configurations sorted by
 * name, webhooks in their order, each with its selectors parsed and its matchConditions compiled
 * once per version of its configuration (by name and resourceVersion), never per request.
 */
import { KubeObject, LabelSelector, LabelSelectorJson, compareGoStrings, labelSelectorAsSelector } from '../../../api';
import { webhooksOf, type RuleWithOperationsJson, type WebhookClientConfigJson, type WebhookJson, type WebhookType } from '../../../api/admissionregistration';
import { CelCompileError, compileAdmissionMatchCondition, type CompiledAdmissionMatchCondition } from '../../../api/admission-cel';

export type { WebhookJson, WebhookType };

/** A parsed label selector: undefined selects nothing (kube: a nil selector), an error is kube's conversion error. */
export type ParsedSelector = { selector: LabelSelector | undefined } | { error: string };

/** One matchCondition, compiled; `error` when it does not compile (kube: evaluated as an error). */
export type MatchCondition = { compiled: CompiledAdmissionMatchCondition } | { name: string; error: string };

export interface WebhookAccessor {
  /** `<configuration>/<webhook>/<n>`, n counting webhooks of the same name (kube's accessor UID). */
  readonly uid: string;
  readonly configurationName: string;
  readonly type: WebhookType;
  readonly name: string;
  readonly hook: WebhookJson;
  readonly rules: readonly RuleWithOperationsJson[];
  readonly clientConfig: WebhookClientConfigJson;
  /** failurePolicy Ignore (kube's default, and a nil policy, is Fail). */
  readonly ignoreFailures: boolean;
  /** matchPolicy Equivalent (kube's v1 default). */
  readonly equivalent: boolean;
  readonly namespaceSelector: ParsedSelector;
  readonly objectSelector: ParsedSelector;
  readonly matchConditions: readonly MatchCondition[];
  /** The call's bound (timeoutSeconds, default 10). */
  readonly timeoutMs: number;
  /** reinvocationPolicy IfNeeded (mutating only). */
  readonly reinvokeIfNeeded: boolean;
}

function parseSelector(sel: LabelSelectorJson | null | undefined): ParsedSelector {
  try {
    return { selector: labelSelectorAsSelector(sel) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

function compileConditions(hook: WebhookJson): MatchCondition[] {
  return (hook.matchConditions ?? []).map((c) => {
    const name = c?.name ?? '';
    try {
      return { compiled: compileAdmissionMatchCondition(name, (c?.expression ?? '').trim()) };
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      // kube's condition filter reports a condition that did not compile when it is evaluated.
      return { name, error: `compilation error: ${e.message}` };
    }
  });
}

/** The accessors of one configuration, in its webhooks' order (kube's getMutatingWebhookConfigurations). */
function webhookAccessors(config: KubeObject, type: WebhookType): WebhookAccessor[] {
  const configurationName = config.metadata.name ?? '';
  const seen = new Map<string, number>();
  return webhooksOf(config).map((hook) => {
    const name = hook.name ?? '';
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return {
      uid: `${configurationName}/${name}/${n}`,
      configurationName,
      type,
      name,
      hook,
      rules: (hook.rules ?? []).map((r) => r ?? {}),
      clientConfig: hook.clientConfig ?? {},
      ignoreFailures: hook.failurePolicy === 'Ignore',
      equivalent: hook.matchPolicy === 'Equivalent',
      namespaceSelector: parseSelector(hook.namespaceSelector),
      objectSelector: parseSelector(hook.objectSelector),
      matchConditions: compileConditions(hook),
      timeoutMs: (hook.timeoutSeconds ?? 10) * 1000,
      reinvokeIfNeeded: type === 'mutating' && hook.reinvocationPolicy === 'IfNeeded',
    };
  });
}

/**
 * Every webhook of one type, from the configurations `list` returns (the informer's objects): kept
 * per configuration name and resourceVersion, the whole list rebuilt only when the set of objects
 * changed. The server's lister returns the same array until a configuration changes, so a request
 * costs one comparison; any other list is compared object by object.
 */
export class WebhookSource {
  private readonly byName = new Map<string, { resourceVersion: string; accessors: WebhookAccessor[] }>();
  private lastList: readonly KubeObject[] | undefined;
  private lastObjects = new Set<KubeObject>();
  private lastHooks: readonly WebhookAccessor[] = [];

  constructor(
    private readonly type: WebhookType,
    private readonly list: () => readonly KubeObject[],
  ) {}

  webhooks(): readonly WebhookAccessor[] {
    const objects = this.list();
    if (objects === this.lastList) return this.lastHooks;
    this.lastList = objects;
    if (objects.length === this.lastObjects.size && objects.every((o) => this.lastObjects.has(o))) return this.lastHooks;
    const sorted = [...objects].sort((a, b) => compareGoStrings(a.metadata.name ?? '', b.metadata.name ?? ''));
    const names = new Set<string>();
    const hooks: WebhookAccessor[] = [];
    for (const config of sorted) {
      const name = config.metadata.name ?? '';
      const rv = config.metadata.resourceVersion ?? '';
      names.add(name);
      let entry = this.byName.get(name);
      if (!entry || entry.resourceVersion !== rv) this.byName.set(name, (entry = { resourceVersion: rv, accessors: webhookAccessors(config, this.type) }));
      hooks.push(...entry.accessors);
    }
    for (const name of this.byName.keys()) if (!names.has(name)) this.byName.delete(name);
    this.lastObjects = new Set(objects);
    this.lastHooks = hooks;
    return hooks;
  }
}
