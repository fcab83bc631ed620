/**
 * The mutating webhooks of one request (kube's mutating dispatcher and its reinvocation context):
 * every matching webhook in order, each seeing the object as the previous ones left it. A webhook's
 * JSON patch is applied as kube applies it (evanphx/json-patch v4, src/patch), the result decoded
 * again into the kind (a wrong type fails the request, unknown fields are dropped) and written
 * back into the request's object. Each webhook called leaves kube's
 * `mutation.webhook.admission.k8s.io/round_<r>_index_<i>` audit annotation.
 *
 * Reinvocation (reinvocationPolicy IfNeeded): when a webhook changes the object, the IfNeeded
 * webhooks called before it are due again; after the first round, those are called once more, in
 * order (round 1). kube re-runs its whole mutating chain for that second round; here the in-tree
 * mutating plugins run before the webhooks and change nothing a second pass would, so only the
 * webhooks are run again.
 */
import { ApiError, KubeObject, equalJson, errors, goJsonScan, goQuote, scanJson, unmarshalTypeMessage } from '../../../api';
import type { RequestContext } from '../../../api/request-context';
import { applyJsonPatch } from '../../../patch';
import type { AdmissionAttributes } from '../../interface';
import type { WebhookAccessor } from './accessor';
import { addAdmissionAnnotation, callWebhook } from './call';
import { CallingWebhookError } from './errors';
import { DispatchContext, shouldCallHook, type DispatchEnv, type Invocation } from './match';
import { isExemptAdmissionConfigurationResource } from './rules';

const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const FAILED_OPEN_ANNOTATION_PREFIX = `failed-open.${MUTATION_ANNOTATION_PREFIX}`;

/** kube's webhookReinvokeContext. */
class Reinvocation {
  /** IfNeeded webhooks called since the object last changed. */
  private previouslyInvoked = new Set<string>();
  /** Webhooks due in round 1. */
  readonly due = new Set<string>();

  changed(): void {
    for (const uid of this.previouslyInvoked) this.due.add(uid);
    this.previouslyInvoked = new Set();
  }

  invoked(hook: WebhookAccessor): void {
    if (hook.reinvokeIfNeeded) this.previouslyInvoked.add(hook.uid);
  }
}

/** kube's mutating Dispatch for one request (both rounds). */
export async function dispatchMutating(env: DispatchEnv, ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
  if (isExemptAdmissionConfigurationResource(attrs.group, attrs.kind)) return;
  const hooks = env.hooks();
  if (hooks.length === 0) return;
  const dc = new DispatchContext(ctx, attrs, env.deps);
  const reinvocation = new Reinvocation();
  await runRound(env, dc, hooks, 0, reinvocation);
  if (reinvocation.due.size > 0) await runRound(env, dc, hooks, 1, reinvocation);
}

async function runRound(env: DispatchEnv, dc: DispatchContext, hooks: readonly WebhookAccessor[], round: 0 | 1, reinvocation: Reinvocation): Promise<void> {
  for (let i = 0; i < hooks.length; i++) {
    const hook = hooks[i] as WebhookAccessor;
    const inv = await shouldCallHook(hook, dc);
    // A webhook skipped in round 0 is not called for the first time in round 1.
    if (!inv || (round === 1 && !reinvocation.due.has(hook.uid))) continue;
    let changed = false;
    let failure: unknown;
    try {
      changed = await callMutating(env, dc, inv);
    } catch (e) {
      failure = e;
    }
    const mutation = { configuration: hook.configurationName, webhook: hook.name, mutated: changed };
    addAdmissionAnnotation(dc.ctx, `${MUTATION_ANNOTATION_PREFIX}round_${round}_index_${i}`, JSON.stringify(mutation));
    if (changed) reinvocation.changed();
    reinvocation.invoked(hook);
    if (failure === undefined) continue;
    if (failure instanceof CallingWebhookError) {
      if (!hook.ignoreFailures) throw failure.toApiError();
      addAdmissionAnnotation(dc.ctx, `${FAILED_OPEN_ANNOTATION_PREFIX}round_${round}_index_${i}`, hook.name);
      // The request's own deadline passed meanwhile: no point going on.
      if (dc.ctx.signal?.aborted) throw errors.timeout('request did not complete within requested timeout', 0);
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
