/**
 * The mutating webhooks of one request (kube's mutating dispatcher and its reinvocation context):
 * every matching webhook in order, each seeing the object as the previous ones left it. A webhook's
 * JSON patch is applied as kube applies it (evanphx/json-patch v4, src/patch), the result decoded
 * again into the kind (a wrong type fails the request, unknown fields are dropped) and written
 * back into the request's object. Each webhook called leaves kube's
 * `mutation.webhook.admission.k8s.io/round_<r>_index_<i>` audit annotation.
 *
 * Reinvocation (kube's webhookReinvokeContext, kept in the chain's ReinvocationContext): a webhook
 * that changes the object makes the chain run its mutating plugins a second time, in-tree ones
 * included, and makes the IfNeeded webhooks called before the change due again. In that second
 * pass (round 1) only due webhooks are called, in order; if the in-tree plugins changed the object
 * since the webhooks last saw it, every IfNeeded webhook called so far is due too.
 */
import { ApiError, KubeObject, cloneJson, equalJson, errors, goJsonScan, goQuote, scanJson, unmarshalTypeMessage } from '../../../api';
import { requestDone, type RequestContext } from '../../../api/request-context';
import { applyJsonPatch } from '../../../patch';
import { ReinvocationContext, kindOf, type AdmissionAttributes } from '../../interface';
import type { WebhookAccessor } from './accessor';
import { addAdmissionAnnotation, callWebhook } from './call';
import { CallingWebhookError } from './errors';
import { DispatchContext, shouldCallHook, type DispatchEnv, type Invocation } from './match';
import { isExemptAdmissionConfigurationResource } from './rules';

const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const FAILED_OPEN_ANNOTATION_PREFIX = `failed-open.${MUTATION_ANNOTATION_PREFIX}`;

/** kube's webhookReinvokeContext: the mutating webhooks' part of the chain's ReinvocationContext. */
class WebhookReinvocation {
  /** The object as the webhooks last left it (a copy), to see whether in-tree plugins changed it since. */
  lastOutput: KubeObject | undefined;
  /** IfNeeded webhooks called since the object last changed. */
  private previouslyInvoked = new Set<string>();
  /** Webhooks due in round 1. */
  readonly due = new Set<string>();

  /** The object changed: the IfNeeded webhooks called before are due again. */
  changed(): void {
    for (const uid of this.previouslyInvoked) this.due.add(uid);
    this.previouslyInvoked = new Set();
  }

  invoked(hook: WebhookAccessor): void {
    if (hook.reinvokeIfNeeded) this.previouslyInvoked.add(hook.uid);
  }
}

/** kube's mutating Dispatch for one pass of the chain: round 0, or round 1 when the chain is reinvoked. */
export async function dispatchMutating(env: DispatchEnv, ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
  if (isExemptAdmissionConfigurationResource(kindOf(attrs).group, attrs.kind)) return;
  const hooks = env.hooks();
  if (hooks.length === 0) return;
  // Called outside a chain (tests), the request has its own context: there is no second pass.
  const chain = (attrs.reinvocation ??= new ReinvocationContext());
  const state = chain.value(REINVOCATION_KEY, () => new WebhookReinvocation());
  // The in-tree plugins changed the object in the second pass: every IfNeeded webhook called is due.
  if (chain.isReinvoke && !equalJson(state.lastOutput ?? null, attrs.object ?? null)) state.changed();
  const dc = new DispatchContext(ctx, attrs, env.deps);
  await runRound(env, dc, hooks, chain.isReinvoke ? 1 : 0, chain, state);
  // Only a second pass compares with it: no copy for the writes no webhook changed.
  if (!chain.isReinvoke && chain.shouldReinvoke) state.lastOutput = attrs.object ? cloneJson(attrs.object) : undefined;
}

/** Where the webhooks keep their state in the chain's ReinvocationContext (kube: the plugin's name). */
const REINVOCATION_KEY = 'MutatingAdmissionWebhook';

async function runRound(env: DispatchEnv, dc: DispatchContext, hooks: readonly WebhookAccessor[], round: 0 | 1, chain: ReinvocationContext, state: WebhookReinvocation): Promise<void> {
  for (let i = 0; i < hooks.length; i++) {
    const hook = hooks[i] as WebhookAccessor;
    const inv = await shouldCallHook(hook, dc);
    // A webhook skipped in round 0 is not called for the first time in round 1.
    if (!inv || (round === 1 && !state.due.has(hook.uid))) continue;
    let changed = false;
    let failure: unknown;
    try {
      changed = await callMutating(env, dc, inv);
    } catch (e) {
      failure = e;
    }
    const mutation = { configuration: hook.configurationName, webhook: hook.name, mutated: changed };
    addAdmissionAnnotation(dc.ctx, `${MUTATION_ANNOTATION_PREFIX}round_${round}_index_${i}`, JSON.stringify(mutation));
    if (changed) {
      state.changed();
      chain.shouldReinvoke = true;
    }
    state.invoked(hook);
    if (failure === undefined) continue;
    if (failure instanceof CallingWebhookError) {
      if (!hook.ignoreFailures) throw failure.toApiError();
      addAdmissionAnnotation(dc.ctx, `${FAILED_OPEN_ANNOTATION_PREFIX}round_${round}_index_${i}`, hook.name);
      // The request's own deadline passed meanwhile: no point going on.
      if (requestDone(dc.ctx)) throw errors.timeout('request did not complete within requested timeout', 0);
      continue;
    }
    throw failure;
  }
}

/** The JSON type name Go's UnmarshalTypeError gives a plain value. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * The operations of a webhook's patch as evanphx's DecodePatch reads them into a list of
 * operation maps: none for `null`; Go's error, as kube's 500, for bad JSON or another shape.
 */
function patchOperations(bytes: Buffer): unknown[] {
  const text = bytes.toString('utf8');
  const depth = scanJson(text);
  if (depth.depthError) throw errors.internal(new Error(depth.depthError));
  let ops: unknown;
  try {
    ops = JSON.parse(text) as unknown;
  } catch {
    // Go's scanner words the error (it recurses per level: only for texts of sane depth).
    const scan = depth.depth <= 1000 ? goJsonScan(bytes) : undefined;
    throw errors.internal(new Error(scan && 'error' in scan ? scan.error : 'invalid character in JSON patch'));
  }
  if (ops === null) return [];
  if (!Array.isArray(ops)) throw errors.internal(new Error(unmarshalTypeMessage(goJsonKind(ops), 'jsonpatch.Patch')));
  for (const op of ops) {
    if (op !== null && (typeof op !== 'object' || Array.isArray(op))) throw errors.internal(new Error(unmarshalTypeMessage(goJsonKind(op), 'jsonpatch.Operation')));
  }
  return ops;
}

/** Replaces the request object's contents (the registry holds that object), keeping its apiVersion and kind. */
function replaceObject(target: KubeObject, next: KubeObject): void {
  const { apiVersion, kind } = target;
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, next, { apiVersion, kind });
}

/** One call, its patch applied: whether the object changed. Throws as callWebhook does, and kube's 500 for a patch that cannot apply. */
async function callMutating(env: DispatchEnv, dc: DispatchContext, inv: Invocation): Promise<boolean> {
  const result = await callWebhook(dc.ctx, inv, true, env.clients);
  if (!result.patch?.length) return false;
  const ops = patchOperations(result.patch);
  if (ops.length === 0) return false;
  const attrs = dc.attrs;
  const current = inv.view.object as KubeObject | undefined;
  if (!attrs.object || !current) {
    throw errors.internal(new Error(`admission webhook ${goQuote(inv.hook.name)} attempted to modify the object, which is not supported for this operation`));
  }
  if (result.patchType !== 'JSONPatch') throw new CallingWebhookError(inv.hook.name, `unsupported patch type ${goQuote(result.patchType)}`);
  let patched: unknown;
  try {
    patched = applyJsonPatch(current, ops, { fieldValidation: 'Ignore' });
  } catch (e) {
    if (e instanceof ApiError) throw errors.internal(new Error(typeof e.cause === 'string' ? e.cause : e.message));
    throw e;
  }
  const decode = inv.equivalent ? inv.equivalent.decode : attrs.decode;
  let next: KubeObject;
  try {
    next = decode ? decode(patched) : (patched as KubeObject);
  } catch (e) {
    throw errors.internal(e);
  }
  const changed = !equalJson(current, next);
  replaceObject(attrs.object, inv.equivalent ? inv.equivalent.toRequest(next) : next);
  return changed;
}
