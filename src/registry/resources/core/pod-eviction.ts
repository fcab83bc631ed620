/**
 * Evicting a pod (kube's EvictionREST, pkg/registry/core/pod/storage/eviction.go): a policy/v1
 * Eviction POSTed to pods/<name>/eviction deletes the pod under the Eviction's deleteOptions. No
 * PodDisruptionBudgets are served here, so none ever refuses an eviction: kube with no budget
 * covering the pod. The pod first gets kube's DisruptionTarget condition (one status write, no
 * admission), then is deleted (no admission either: kube's REST passes ValidateAllObjectFunc, the
 * Eviction's own create being what was admitted). The answer is a Status `Success`.
 */
import { ApiError, FieldError, KubeObject, Status, errors, failureStatus, fieldErrors, isObject } from '../../../api';
import { withNamespace } from '../../../api/request-context';
import type { RequestContext } from '../../context';
import type { ObjectWrites, SubresourceAnswer, SubresourceEnv } from '../../resource';
import type { Preconditions } from '../../../storage';
import { updatePodCondition } from './pod-condition';
import type { Pod } from './pod-types';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const deleteOptionsGK = { group: 'meta.k8s.io', kind: 'DeleteOptions' };
const policies = ['Foreground', 'Background', 'Orphan'];

/** kube's EvictionsRetry: 20 tries, 500 ms apart (10% jitter). */
const retrySteps = 20;
const retryDelayMs = 500;

/** The DeleteOptions an Eviction carries (meta/v1, as decoded against its schema). */
export interface EvictionDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

/**
 * kube's propagateDryRun: the request's dryRun fills an Eviction's that has none; both given must
 * agree, else kube's plain error (a 500 without a reason).
 */
export function propagateDryRun(eviction: KubeObject, requestDryRun: string[]): EvictionDeleteOptions {
  const given = isObject(eviction.deleteOptions) ? (eviction.deleteOptions as EvictionDeleteOptions) : undefined;
  if (!given) return { dryRun: requestDryRun };
  const opts = { ...given };
  const body = opts.dryRun ?? [];
  if (body.length === 0) {
    opts.dryRun = requestDryRun;
    return opts;
  }
  if (requestDryRun.length === 0) return opts;
  if (body.length !== requestDryRun.length || body.some((v, i) => v !== requestDryRun[i])) {
    throw new ApiError(failureStatus(500, '', `Non-matching dry-run options in request and content: [${requestDryRun.join(' ')}] and [${body.join(' ')}]`));
  }
  return opts;
}

/** kube's ValidateDeleteOptions, which its store's BeforeDelete runs on the eviction's options. */
export function validateEvictionDeleteOptions(opts: EvictionDeleteOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errs.push(fieldErrors.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (opts.propagationPolicy !== undefined && !policies.includes(opts.propagationPolicy)) {
    errs.push(fieldErrors.notSupported('propagationPolicy', opts.propagationPolicy, [...policies, 'nil']));
  }
  for (const v of opts.dryRun ?? []) if (v !== 'All') errs.push(fieldErrors.notSupported('dryRun', v, ['All']));
  return errs;
}

/** kube's canIgnorePDB: a terminal, pending or terminating pod is deleted without asking budgets. */
function canIgnoreBudgets(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

/** kube's shouldEnforceResourceVersion: any pod but a terminal or terminating one is deleted at the version read. */
function enforcesResourceVersion(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || !!pod.metadata.deletionTimestamp);
}

const isConflict = (e: unknown) => e instanceof ApiError && e.code === 409;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request's context with the eviction's own dry-run decision (kube carries it in the DeleteOptions). */
function withDryRun(ctx: RequestContext, dryRun: boolean): RequestContext {
  const child = withNamespace(ctx, ctx.namespace);
  child.dryRun = dryRun;
  return child;
}

/** kube's precondition conflict inside the condition update, named after the kind (`Pod "x"`). */
function preconditionConflict(name: string, message: string): ApiError {
  return errors.conflict({ group: '', resource: 'Pod' }, name, message);
}

/**
 * kube's addConditionAndDeletePod: unless a dry run, the latest pod (checked against the
 * preconditions) gets DisruptionTarget=True through the status strategy, and a resourceVersion
 * precondition moves to the version that write made; then the pod is deleted.
 */
async function addConditionAndDelete(ctx: RequestContext, pods: ObjectWrites, name: string, options: EvictionDeleteOptions): Promise<void> {
  let preconditions: Preconditions | undefined = options.preconditions ? { ...options.preconditions } : undefined;
  if (!ctx.dryRun) {
    const r = await pods.update(
      ctx,
      name,
      (latest) => {
        const pod = latest as Pod;
        const uid = preconditions?.uid;
        if (uid && uid !== pod.metadata.uid) {
          throw preconditionConflict(name, `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
        }
        const rv = preconditions?.resourceVersion;
        if (rv && rv !== pod.metadata.resourceVersion) {
          throw preconditionConflict(name, `the ResourceVersion in the precondition (${rv}) does not match the ResourceVersion in record (${pod.metadata.resourceVersion ?? ''}). The object might have been modified`);
        }
        pod.status ??= {};
        updatePodCondition(pod.status, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, ctx.now());
        return pod;
      },
      { subresource: 'status', admission: false },
    );
    if (preconditions?.resourceVersion !== undefined) preconditions = { ...preconditions, resourceVersion: r.object.metadata.resourceVersion };
  }
  const errs = validateEvictionDeleteOptions(options);
  if (errs.length) throw errors.invalid(deleteOptionsGK, '', errs);
  await pods.delete(ctx, name, {
    preconditions,
    gracePeriodSeconds: options.gracePeriodSeconds,
    propagationPolicy: options.propagationPolicy,
    orphanDependents: options.orphanDependents,
    admission: false,
  });
}

/** kube's EvictionREST.Create after mutating admission, with no PodDisruptionBudget to consult. */
export async function evictPod(ctx: RequestContext, name: string, eviction: KubeObject, env: SubresourceEnv, validate: () => Promise<void>): Promise<Status> {
  if (name !== (eviction.metadata.name ?? '')) throw errors.badRequest('name in URL does not match name in Eviction object');
  const original = propagateDryRun(eviction, ctx.dryRun ? ['All'] : []);
  await validate();
  const pods = env.store(podsGVR);
  if (!pods) throw errors.notFound({ group: '', resource: 'pods' }, name);
  const deleteCtx = withDryRun(ctx, (original.dryRun ?? []).length > 0);
  const rvUnset = original.preconditions?.resourceVersion === undefined;
  // A pod budgets would not guard is deleted at the version read, retried on conflicts unless the
  // client gave a version itself; a budget-guarded one (running) goes on to the budgets: none here.
  let guarded = false;
  let lastConflict: unknown;
  for (let step = 0; step < retrySteps && !guarded; step++) {
    if (step > 0) await sleep(retryDelayMs * (1 + Math.random() * 0.1));
    try {
      const pod = (await pods.get(deleteCtx, name)) as Pod;
      if (!canIgnoreBudgets(pod)) {
        guarded = true;
        break;
      }
      const options = { ...original };
      if (enforcesResourceVersion(pod) && rvUnset) options.preconditions = { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion };
      await addConditionAndDelete(deleteCtx, pods, name, options);
      return evicted();
    } catch (e) {
      if (!rvUnset || !isConflict(e)) throw e;
      lastConflict = e;
    }
  }
  if (!guarded) throw lastConflict;
  // No budget covers the pod: it goes with the client's own options, once.
  await addConditionAndDelete(deleteCtx, pods, name, original);
  return evicted();
}

/** kube's answer to a successful eviction, with the code its create handler fills in. */
function evicted(): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** pods/eviction: a policy/v1 Eviction in, a Status out. */
export const evictionAnswer: SubresourceAnswer = {
  group: 'policy',
  version: 'v1',
  kind: 'Eviction',
  schemaName: 'io.k8s.api.policy.v1.Eviction',
  protobufMessage: 'k8s.io.api.policy.v1.Eviction',
  // kube's EvictionREST.AcceptsGroupVersion: clients of the removed policy/v1beta1 still evict.
  alsoAccepts: ['policy/v1beta1'],
  ownsValidation: true,
  create: (ctx, name, obj, env, validate) => evictPod(ctx, name, obj, env, validate),
};
