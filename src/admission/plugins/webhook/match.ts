/**
 * Whether a webhook is called for a request, and as what (kube's generic.Webhook.ShouldCallHook):
 * its rules against the request's resource, then, under matchPolicy Equivalent, against the
 * resources holding the same objects at another group or version (the object is then sent in that
 * form); its namespaceSelector and objectSelector; its matchConditions. A selector that cannot be
 * parsed is kube's 500, a namespace that does not exist its 404, and a matchCondition that fails
 * to evaluate a 403 under failurePolicy Fail (under Ignore the webhook is skipped).
 */
import { randomUUID } from 'node:crypto';
import { AuthorizationAttributes, KubeObject, UserInfo, errors } from '../../../api';
import { evaluateAdmissionMatchConditions, type AdmissionAuthorizerCheck } from '../../../api/admission-cel';
import type { RequestContext } from '../../../api/request-context';
import type { AdmissionDeps, EquivalentResource } from '../../deps';
import { kindOf, operationOptions, type AdmissionAttributes } from '../../interface';
import type { ParsedSelector, WebhookAccessor } from './accessor';
import type { WebhookClients } from './clients';
import { admissionRequest, type RequestBase, type RequestView } from './review';
import { ruleMatches, type RuleTarget } from './rules';

/** What a dispatch needs from the server. */
export type MatchDeps = Pick<AdmissionDeps, 'getNamespace' | 'equivalentResources' | 'authorize'>;

/** What a dispatcher works with: the webhooks of its type, their clients, the server's dependencies. */
export interface DispatchEnv {
  hooks(): readonly WebhookAccessor[];
  clients: WebhookClients;
  deps: MatchDeps;
}

/** A webhook to call: the form it sees the request in and the AdmissionRequest it is sent (with its uid). */
export interface Invocation {
  hook: WebhookAccessor;
  /** The equivalent resource it matched; undefined when it matched the request's own. */
  equivalent?: EquivalentResource;
  uid: string;
  request: Record<string, unknown>;
  view: RequestView;
}

/**
 * The namespace kube's attributes carry: a request to a Namespace by name names that namespace
 * (kube's RequestInfo reads `/namespaces/<name>` so), a create of one names none.
 */
function attributesNamespace(a: AdmissionAttributes): string {
  if (a.group === '' && a.resource === 'namespaces' && a.operation !== 'CREATE' && a.namespace === '') return a.name;
  return a.namespace;
}

/** One request's matching state, shared by every webhook of a dispatch. */
export class DispatchContext {
  readonly target: RuleTarget;
  private baseCache?: RequestBase;
  private namespaceLabels?: Promise<Record<string, string> | undefined>;
  private equivalentsCache?: readonly EquivalentResource[];

  constructor(
    readonly ctx: RequestContext,
    readonly attrs: AdmissionAttributes,
    private readonly deps: MatchDeps,
  ) {
    const a = attrs;
    this.target = { operation: a.operation, group: a.group, version: a.version, resource: a.resource, subresource: a.subresource, namespace: attributesNamespace(a) };
  }

  /** What the request says of itself in every review; made when a first webhook is to be called. */
  get base(): RequestBase {
    const a = this.attrs;
    return (this.baseCache ??= {
      // A subresource's kind may be another group's (serviceaccounts/token: authentication.k8s.io/v1 TokenRequest).
      requestKind: kindOf(a),
      requestResource: { group: a.group, version: a.version, resource: a.resource },
      requestSubResource: a.subresource,
      name: a.name,
      namespace: this.target.namespace,
      operation: a.operation,
      user: this.ctx.user,
      dryRun: a.dryRun,
      options: operationOptions(this.ctx, a.operation),
    });
  }

  equivalents(): readonly EquivalentResource[] {
    const a = this.attrs;
    return (this.equivalentsCache ??= this.deps.equivalentResources?.(a.group, a.version, a.resource, a.subresource) ?? []);
  }

  /** The labels namespaceSelector is matched against (kube's GetNamespaceLabels), read once per request. */
  labelsOfNamespace(): Promise<Record<string, string> | undefined> {
    return (this.namespaceLabels ??= this.readNamespaceLabels());
  }

  private async readNamespaceLabels(): Promise<Record<string, string> | undefined> {
    const a = this.attrs;
    if (a.resource === 'namespaces' && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
      return a.object?.metadata.labels;
    }
    const name = this.target.namespace;
    const ns = this.deps.getNamespace ? await this.deps.getNamespace(name) : null;
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, name);
    return ns.metadata.labels;
  }

  /** The object as an invocation sees it: the request's own, or converted to the equivalent resource's form. */
  view(equivalent: EquivalentResource | undefined, subResource: string): RequestView {
    const a = this.attrs;
    if (!equivalent) {
      return { kind: this.base.requestKind, resource: this.base.requestResource, subResource, object: a.object, oldObject: a.oldObject };
    }
    const conv = (o: KubeObject | undefined) => (o ? equivalent.fromRequest(o) : undefined);
    return {
      kind: { group: equivalent.group, version: equivalent.version, kind: equivalent.kind },
      resource: { group: equivalent.group, version: equivalent.version, resource: equivalent.resource },
      subResource,
      object: conv(a.object),
      oldObject: conv(a.oldObject),
    };
  }

  /** kube's authorizer library checks, for the requesting user (or the named service account). */
  authorizeCheck(check: AdmissionAuthorizerCheck): Promise<{ decision: 'allow' | 'deny' | 'no-opinion'; reason?: string }> {
    const authorize = this.deps.authorize;
    if (!authorize) return Promise.reject(new Error('no authorizer is available'));
    const sa = check.serviceAccount;
    const user: UserInfo = sa
      ? { name: `system:serviceaccount:${sa.namespace}:${sa.name}`, uid: '', groups: ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`] }
      : (this.ctx.user ?? { name: '', uid: '', groups: [] });
    const attrs: AuthorizationAttributes = check.path !== undefined
      ? { user, verb: check.verb, isResourceRequest: false, path: check.path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' }
      : {
          user,
          verb: check.verb,
          isResourceRequest: true,
          path: '',
          apiGroup: check.group,
          apiVersion: '*',
          namespace: check.namespace,
          resource: check.resource,
          subresource: check.subresource,
          name: check.name,
        };
    return authorize(attrs).then((d) => {
      if (d.error) throw new Error(d.error);
      return { decision: d.decision, ...(d.reason !== undefined ? { reason: d.reason } : {}) };
    });
  }
}

/** kube's LabelSelectorAsSelector result applied: a parse error is kube's 500, a nil selector matches nothing. */
function selectorMatches(parsed: ParsedSelector, labels: Record<string, string> | undefined): boolean {
  if ('error' in parsed) throw errors.internal(new Error(parsed.error));
  return parsed.selector ? parsed.selector.matches(labels) : false;
}

const selectsEverything = (p: ParsedSelector): boolean => 'selector' in p && p.selector !== undefined && p.selector.empty;

/** kube's MatchNamespaceSelector: cluster-scoped objects (Namespaces aside) always match. */
async function namespaceMatches(hook: WebhookAccessor, dc: DispatchContext): Promise<boolean> {
  if (dc.target.namespace === '' && dc.attrs.resource !== 'namespaces') return true;
  if (selectsEverything(hook.namespaceSelector)) return true;
  if ('error' in hook.namespaceSelector) throw errors.internal(new Error(hook.namespaceSelector.error));
  return selectorMatches(hook.namespaceSelector, await dc.labelsOfNamespace());
}

/** kube's MatchObjectSelector: the new object's labels, or the old one's. */
function objectMatches(hook: WebhookAccessor, dc: DispatchContext): boolean {
  if (selectsEverything(hook.objectSelector)) return true;
  const { object, oldObject } = dc.attrs;
  return (!!object && selectorMatches(hook.objectSelector, object.metadata.labels)) || (!!oldObject && selectorMatches(hook.objectSelector, oldObject.metadata.labels));
}

/** The resource a webhook's rules cover: the request's own, an equivalent (matchPolicy Equivalent), or none. */
function matchedResource(hook: WebhookAccessor, dc: DispatchContext): { equivalent?: EquivalentResource } | undefined {
  if (hook.rules.some((r) => ruleMatches(r, dc.target))) return {};
  if (!hook.equivalent) return undefined;
  for (const rule of hook.rules) {
    for (const equivalent of dc.equivalents()) {
      if (ruleMatches(rule, { ...dc.target, group: equivalent.group, version: equivalent.version, resource: equivalent.resource })) return { equivalent };
    }
  }
  return undefined;
}

/**
 * kube's ShouldCallHook: the invocation when `hook` is to be called for the request, undefined
 * when it is skipped; throws the request's ApiError when matching itself fails.
 */
export async function shouldCallHook(hook: WebhookAccessor, dc: DispatchContext): Promise<Invocation | undefined> {
  const matched = matchedResource(hook, dc);
  if (!matched) return undefined;
  if (!(await namespaceMatches(hook, dc))) return undefined;
  if (!objectMatches(hook, dc)) return undefined;
  const view = dc.view(matched.equivalent, dc.attrs.subresource);
  const uid = randomUUID();
  const request = admissionRequest(uid, dc.base, view);
  if (hook.matchConditions.length > 0 && !(await conditionsMatch(hook, dc, view, request))) return undefined;
  return { hook, ...matched, uid, request, view };
}

/** kube's matchconditions matcher with the webhook's failurePolicy. */
async function conditionsMatch(hook: WebhookAccessor, dc: DispatchContext, view: RequestView, request: Record<string, unknown>): Promise<boolean> {
  const compiled = [];
  const failed: string[] = [];
  for (const c of hook.matchConditions) {
    if ('compiled' in c) compiled.push(c.compiled);
    else failed.push(c.error);
  }
  const result = await evaluateAdmissionMatchConditions(compiled, {
    object: view.object ?? null,
    oldObject: view.oldObject ?? null,
    request,
    authorize: (check) => dc.authorizeCheck(check),
  });
  if ('match' in result && !result.match) return false;
  const errs = [...failed, ...('error' in result ? [result.error] : [])];
  if (errs.length === 0) return true;
  if (hook.ignoreFailures) return false;
  const message = errs.length === 1 ? (errs[0] as string) : `[${[...new Set(errs)].join(', ')}]`;
  throw errors.forbidden({ group: dc.attrs.group, resource: dc.attrs.resource }, dc.attrs.name, message);
}
