/** What a handler passes down with every registry call (never express's req/res). */
import { setMaxListeners } from 'node:events';
import type { StoredJson } from './stored-json';
import type { UserInfo } from './user-info';

/** Go's ctx.Err() texts: why a request's context is done. */
export type ContextEnd = 'context deadline exceeded' | 'context canceled';

/**
 * What a storage write needs of the request it serves (kube hands the request's context to etcd):
 * when its time is up and whether it has ended. A write not yet sent to etcd once it is done is
 * never sent (grpc-go fails a call on a done context before sending anything).
 */
export interface CallContext {
  /**
   * When the request's time is up (kube's request context deadline: --request-timeout, or a
   * shorter `?timeout=`), a `performance.now()` reading. Absent for long-running requests and the
   * writes the server makes itself.
   */
  deadlineAt?: number;
  /**
   * Set once the context is done before the request is (kube: ctx.Err()): the request-timeout
   * filter's timer fired, or a call bounded by the deadline ran out (deadline exceeded); the client
   * closed the connection or reset the HTTP/2 stream before the answer was complete (canceled).
   */
  ended?: ContextEnd;
  /**
   * What `contextSignal` hands out, made the first time something waits on the context's end (an
   * admission webhook's call in flight); `endContext` aborts it. Absent for most requests.
   */
  endSignal?: AbortController;
  /** The request's etcd calls in flight, cancelled when it ends (storage/etcd/call-context.ts); set by storage. */
  etcdCalls?: Set<{ end(): void }>;
  /** The JSON the request's create or update stored, for its answer (api/stored-json.ts); set by storage. */
  storedJson?: StoredJson;
}

export interface RequestContext extends CallContext {
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

/** The time left before the request's deadline, in ms (0 or less: passed); undefined without one. */
export function remainingMs(ctx: RequestContext): number | undefined {
  return ctx.deadlineAt === undefined ? undefined : ctx.deadlineAt - performance.now();
}

/**
 * kube's ctx.Err(): why the request's context is done, or undefined while it is not. The deadline
 * counts as passed when something timed to it fired (`ended`; a timer may fire a little before the
 * clock reads the deadline) or when the clock has passed it (the event loop was busy meanwhile).
 */
export function contextError(ctx: CallContext): ContextEnd | undefined {
  if (ctx.ended !== undefined) return ctx.ended;
  const at = ctx.deadlineAt;
  return at !== undefined && performance.now() >= at ? 'context deadline exceeded' : undefined;
}

/**
 * Marks the context done (kube: its cancel func, or its deadline's timer), once: the first reason
 * stays. Whatever waits on `contextSignal` is aborted with that reason.
 */
export function endContext(ctx: CallContext, why: ContextEnd): void {
  if (ctx.ended !== undefined) return;
  ctx.ended = why;
  ctx.endSignal?.abort(why);
}

/**
 * The context's end as an AbortSignal (kube: ctx.Done()), its reason Go's ctx.Err() text: already
 * aborted when the context is done, else aborted by `endContext`. For work that can be cut off
 * mid-way (an outgoing HTTP call); a write checks `contextError` before it is sent instead.
 */
export function contextSignal(ctx: CallContext): AbortSignal {
  const done = contextError(ctx);
  if (done) return AbortSignal.abort(done);
  if (!ctx.endSignal) {
    ctx.endSignal = new AbortController();
    // Every admission webhook called in parallel listens to it (a context's etcd calls share one
    // listener), each removing its own when it ends: Node's leak warning past 10 would be noise.
    setMaxListeners(0, ctx.endSignal.signal);
  }
  return ctx.endSignal.signal;
}

/** Records that something timed to the request's deadline ran out: the deadline has passed, whatever the clock says. */
export function deadlineReached(ctx: CallContext): void {
  endContext(ctx, 'context deadline exceeded');
}

/**
 * The request's context with another namespace (kube's request.WithNamespace, a derived context):
 * a copy, but one that ends with the request — the timer or the client's close marks the original.
 */
export function withNamespace<T extends RequestContext>(ctx: T, namespace: string): T {
  const child: T = { ...ctx, namespace };
  Object.defineProperties(child, {
    ended: {
      enumerable: true,
      get: () => ctx.ended,
      set: (v: ContextEnd | undefined) => {
        ctx.ended = v;
      },
    },
    // One end for both: a signal handed out through either is aborted when the request ends.
    endSignal: {
      enumerable: true,
      get: () => ctx.endSignal,
      set: (v: AbortController | undefined) => {
        ctx.endSignal = v;
      },
    },
  });
  return child;
}

/** Whether the request has ended (server shutting down, client gone) or its deadline passed (kube: ctx.Done()). */
export function requestDone(ctx: RequestContext): boolean {
  return !!ctx.signal?.aborted || contextError(ctx) !== undefined;
}
