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
  /**
   * When the request's time is up (kube's request context deadline: --request-timeout, or a
   * shorter `?timeout=`), a `performance.now()` reading. Absent for long-running requests and the
   * writes the server makes itself.
   */
  deadlineAt?: number;
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

/** The time left before the request's deadline, in ms (0 or less: passed); undefined without one. */
export function remainingMs(ctx: RequestContext): number | undefined {
  return ctx.deadlineAt === undefined ? undefined : ctx.deadlineAt - performance.now();
}

/** Whether the request has ended (server shutting down) or its deadline passed (kube: ctx.Done()). */
export function requestDone(ctx: RequestContext): boolean {
  const left = remainingMs(ctx);
  return !!ctx.signal?.aborted || (left !== undefined && left <= 0);
}
