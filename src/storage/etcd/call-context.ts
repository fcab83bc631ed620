/**
 * A unary etcd call bound to the request it serves, as kube's etcd3 store binds each call to the
 * request's context (grpc-go): the call ends when the context does — its deadline's timer fired or
 * the client went away — and grpc cancels it (RST_STREAM), so an abandoned call does not linger.
 *
 * The request-timeout filter's timer is what ends a request's context at its deadline (and writes
 * kube's 504 in the same turn, before any storage error can reach the handler). The call's own gRPC
 * deadline, `deadlineGraceMs` later, is a backstop for a context nothing times.
 */
import type { Etcd3 } from 'etcd3';
import { contextSignal, type CallContext } from '../../api/request-context';

/** grpc-js's CallOptions, as etcd3's calls take them (grpc-js is etcd3's, not ours to import). */
export type EtcdCallOptions = NonNullable<Parameters<Etcd3['kv']['range']>[1]>;
type Interceptor = NonNullable<EtcdCallOptions['interceptors']>[number];

/**
 * The local status a cancelled call ends with (etcd sees only the RST_STREAM CANCEL either way).
 * Not CANCELLED, which grpc-go reports: etcd3 counts CANCELLED as a connection fault and drops its
 * channels, so the next call would dial etcd again (and cut the watches sharing the connection) on
 * every client that goes away. FAILED_PRECONDITION is no fault to etcd3; the store reports the
 * context's own error (ContextDone) whatever the status.
 */
const cancelledStatus = 9;

/** How long after the request's deadline the call's own gRPC deadline falls (see above). */
export const deadlineGraceMs = 1000;

/**
 * A call bound to its request's context. The context's calls in flight are kept in one set per
 * context, which a single listener (added by the context's first call) cancels when it ends: an
 * AbortSignal listener added and removed per call cost more than the rest of the binding.
 */
export class BoundCall {
  /** Per-call options for etcd3 (merged over the client's defaults). */
  readonly options: EtcdCallOptions;
  /** Cancels the call once grpc-js has made it. */
  private cancel: (() => void) | undefined = undefined;
  private ended = false;

  constructor(
    private readonly signal: AbortSignal,
    private readonly calls: Set<{ end(): void }> | undefined,
    deadlineAt: number | undefined,
  ) {
    // etcd3 awaits its auth metadata before making the call, so the context may end before this runs.
    const interceptor: Interceptor = (options, nextCall) => {
      const call = nextCall(options);
      this.cancel = () => call.cancelWithStatus(cancelledStatus, String(this.signal.reason));
      // grpc-js starts the call right after its interceptors return: cancel it once started.
      if (this.ended) queueMicrotask(this.cancel);
      // The typings want grpc-js's InterceptingCall class; the next call is what grpc-js uses anyway.
      return call as ReturnType<Interceptor>;
    };
    this.options = { interceptors: [interceptor] };
    if (deadlineAt !== undefined) this.options.deadline = Date.now() + (deadlineAt - performance.now()) + deadlineGraceMs;
    if (!calls) this.ended = true;
  }

  /** The context ended: cancel the call (now, or as soon as grpc-js has made it). */
  end(): void {
    this.ended = true;
    this.cancel?.();
  }

  /** Stops listening to the context: call once the call has settled. */
  release(): void {
    this.calls?.delete(this);
  }
}

/** Call options that cancel the call when `ctx` ends, with a gRPC deadline just past its own. */
export function bindToContext(ctx: CallContext): BoundCall {
  const signal = contextSignal(ctx);
  // A context already done: the call is cancelled as soon as it is made.
  if (signal.aborted) return new BoundCall(signal, undefined, ctx.deadlineAt);
  let calls = ctx.etcdCalls;
  if (!calls) {
    const inFlight = new Set<{ end(): void }>();
    calls = ctx.etcdCalls = inFlight;
    signal.addEventListener(
      'abort',
      () => {
        for (const c of inFlight) c.end();
        inFlight.clear();
      },
      { once: true },
    );
  }
  const bound = new BoundCall(signal, calls, ctx.deadlineAt);
  calls.add(bound);
  return bound;
}
