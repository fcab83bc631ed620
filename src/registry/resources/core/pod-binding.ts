/**
 * Binding a pod to a node (kube's BindingREST in pkg/registry/core/pod/storage/storage.go), what a
 * scheduler does: a core/v1 Binding POSTed to pods/<name>/binding, or to the legacy `bindings`
 * collection (LegacyBindingREST, the Binding's own name naming the pod). Nothing checks that the
 * node exists, as in kube. The answer is a Status `Success`.
 */
import { ApiError, FieldError, KubeObject, Status, aggregateMessages, errors, failureStatus, fieldErrorString, fieldErrors, goQuote, isObject } from '../../../api';
import type { RequestContext } from '../../context';
import type { SubresourceAnswer, SubresourceEnv } from '../../resource';
import type { Preconditions } from '../../../storage';
import { updatePodCondition } from './pod-condition';
import type { Pod } from './pod-types';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };

/** kube's ValidatePodBinding (pkg/apis/core/validation). */
export function validateBinding(binding: KubeObject): FieldError[] {
  const target = isObject(binding.target) ? binding.target : {};
  const kind = typeof target.kind === 'string' ? target.kind : '';
  const name = typeof target.name === 'string' ? target.name : '';
  const errs: FieldError[] = [];
  if (kind !== '' && kind !== 'Node') errs.push(fieldErrors.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (name === '') errs.push(fieldErrors.required('target.name', ''));
  return errs;
}

/** Why a pod cannot be bound: kube's plain errors inside the update, which become a 409 on pods/binding. */
class BindRefusal extends Error {}

/**
 * kube's BindingREST.Create after mutating admission: the URL's name must be the Binding's, the
 * Binding valid (kube returns its field errors as a plain aggregate: a 500 without a reason), then
 * validating admission, then the pod updated in one guaranteed update under the Binding's uid and
 * resourceVersion as preconditions: not being deleted, not bound yet, no scheduling gates; it gets
 * the node, the Binding's annotations and a PodScheduled=True condition.
 */
export async function bindPod(ctx: RequestContext, name: string, binding: KubeObject, env: SubresourceEnv, validate: () => Promise<void>): Promise<Status> {
  if (name !== (binding.metadata.name ?? '')) throw errors.badRequest('name in URL does not match name in Binding object');
  const errs = validateBinding(binding);
  if (errs.length) throw new ApiError(failureStatus(500, '', aggregateMessages(errs.map(fieldErrorString))));
  await validate();
  const pods = env.store(podsGVR);
  if (!pods) throw errors.notFound({ group: '', resource: 'pods' }, name);
  // kube's NamespaceKeyFunc refuses an empty name (a legacy Binding without one).
  if (!name) throw errors.badRequest('Name parameter required.');
  const node = String((binding.target as { name: string }).name);
  const annotations = binding.metadata.annotations ?? {};
  const preconditions: Preconditions = {};
  if (binding.metadata.uid) preconditions.uid = binding.metadata.uid;
  if (binding.metadata.resourceVersion) preconditions.resourceVersion = binding.metadata.resourceVersion;
  try {
    await pods.guaranteedUpdate(
      ctx,
      name,
      (current) => {
        const pod = current as Pod;
        const podName = pod.metadata.name ?? '';
        if (pod.metadata.deletionTimestamp) throw new BindRefusal(`pod ${podName} is being deleted, cannot be assigned to a host`);
        const assigned = pod.spec?.nodeName ?? '';
        if (assigned !== '') throw new BindRefusal(`pod ${podName} is already assigned to node ${goQuote(assigned)}`);
        if (pod.spec?.schedulingGates?.length) throw new BindRefusal(`pod ${podName} has non-empty .spec.schedulingGates`);
        pod.spec = { ...pod.spec, nodeName: node };
        pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
        pod.status ??= {};
        updatePodCondition(pod.status, { type: 'PodScheduled', status: 'True' }, ctx.now());
        return pod;
      },
      Object.keys(preconditions).length ? preconditions : undefined,
    );
  } catch (e) {
    if (e instanceof BindRefusal) throw errors.conflict({ group: '', resource: 'pods/binding' }, name, e.message);
    throw e;
  }
  // kube's create handler fills in the Status's code.
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** pods/binding: a core/v1 Binding in, a Status out. */
export const bindingAnswer: SubresourceAnswer = {
  group: '',
  version: 'v1',
  kind: 'Binding',
  schemaName: 'io.k8s.api.core.v1.Binding',
  protobufMessage: 'k8s.io.api.core.v1.Binding',
  ownsValidation: true,
  create: (ctx, name, obj, env, validate) => bindPod(ctx, name, obj, env, validate),
};
