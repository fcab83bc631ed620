/** What a handler passes down with every registry call (never express's req/res). */
import type { UserInfo } from './user-info';

export interface RequestContext {
  user?: UserInfo;
  /** The request's namespace ("" for cluster-scoped or all-namespaces). */
  namespace: string;
  /** Warnings to return as `Warning: 299 - "..."` headers. */
  warnings: string[];
  dryRun: boolean;
  signal?: AbortSignal;
  now: () => Date;
  /**
   * The write's options as kube's meta/v1 CreateOptions, UpdateOptions, PatchOptions or
   * DeleteOptions carry them (dryRun aside, which is `dryRun` above): what admission webhooks
   * receive as `options`. Set by the write handlers; absent for writes the server makes itself.
   */
  writeOptions?: Readonly<Record<string, unknown>>;
  /**
   * Audit annotations added while the request is handled (kube's admission attributes'
   * AddAnnotation: image policy and admission webhooks), for the audit event.
   */
  auditAnnotations?: Map<string, string>;
}

/**
 * Adds an audit annotation to the request (kube's AddAnnotation): a key set before with another
 * value keeps its first value and the call returns false, as kube refuses to overwrite it.
 */
export function addAuditAnnotation(ctx: RequestContext, key: string, value: string): boolean {
  const annotations = (ctx.auditAnnotations ??= new Map());
  const had = annotations.get(key);
  if (had !== undefined && had !== value) return false;
  annotations.set(key, value);
  return true;
}
