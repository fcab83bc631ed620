/**
 * The pods/ephemeralcontainers subresource's strategy (kube 1.32's podEphemeralContainersStrategy,
 * pkg/registry/core/pod/strategy.go): a GET, PUT or PATCH of the whole Pod of which only
 * spec.ephemeralContainers is taken. Ephemeral containers may be added, never removed or changed;
 * this is how `kubectl debug` adds its container. Nothing runs them here (no kubelet): their
 * status never appears.
 */
import { cloneJson, type KubeObject } from '../../../api';
import { type Strategy, baseStrategy } from '../../resource';
import { dropDisabledPodFields } from './pod-drop';
import type { Pod } from './pod-types';
import { validatePodEphemeralContainersUpdate } from './pod-validation';

/** Replaces `target`'s own keys with `source`'s, in `source`'s order (references to `target` stay valid). */
function replaceContents(target: object, source: object): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
}

/**
 * kube's dropNonEphemeralContainerUpdates (dropPodUpdates): the stored pod, with the written one's
 * name, namespace, resourceVersion and uid, and its ephemeral containers. Labels, annotations,
 * managedFields and everything else stay as stored, as in kube 1.32.
 */
function keepOnlyEphemeralContainers(obj: KubeObject, old: KubeObject): void {
  const pod = obj as Pod;
  const prev = cloneJson(old) as Pod;
  const meta = pod.metadata;
  const identity = { name: meta.name, namespace: meta.namespace, resourceVersion: meta.resourceVersion, uid: meta.uid };
  const ephemeral = pod.spec?.ephemeralContainers;
  // The metadata object is mutated in place: the store holds a reference to it.
  replaceContents(meta, prev.metadata);
  for (const [k, v] of Object.entries(identity)) {
    if (v === undefined) delete (meta as Record<string, unknown>)[k];
    else (meta as Record<string, unknown>)[k] = v;
  }
  // The stored pod's fields in its order, the metadata object being the one kept.
  replaceContents(pod, { ...prev, metadata: meta });
  pod.spec ??= {};
  if (ephemeral === undefined) delete pod.spec.ephemeralContainers;
  else pod.spec.ephemeralContainers = ephemeral;
}

export const ephemeralContainersStrategy: Strategy = {
  ...baseStrategy,
  allowUnconditionalUpdate: true,
  prepareForUpdate: (_ctx, obj, old) => {
    keepOnlyEphemeralContainers(obj, old);
    dropDisabledPodFields(obj as Pod, old as Pod);
  },
  validateUpdate: (_ctx, obj, old) => validatePodEphemeralContainersUpdate(obj as Pod, old as Pod),
};
