/**
 * Namespaces delete in two steps (kube's namespace REST): the first DELETE marks the namespace
 * Terminating and returns it; the namespace controller empties it and removes the `kubernetes`
 * finalizer through /finalize, which deletes it. Deleting a Terminating namespace again answers it
 * as it is, without admission, while its spec finalizers remain (kube's namespace REST).
 */
import { KubeObject } from '../api';
import { GenericStore } from './generic-store';

export class NamespaceStore extends GenericStore {
  protected override finalizersPending(obj: KubeObject): boolean {
    return super.finalizersPending(obj) || specFinalizers(obj).length > 0;
  }

  protected override admitsRepeatedDelete(existing: KubeObject): boolean {
    return specFinalizers(existing).length === 0;
  }

  protected override markDeleted(obj: KubeObject, now: Date): void {
    super.markDeleted(obj, now);
    obj.status = { ...((obj.status as object | undefined) ?? {}), phase: 'Terminating' };
  }
}

export function specFinalizers(ns: KubeObject): string[] {
  return (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
}
