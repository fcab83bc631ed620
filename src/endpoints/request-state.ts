/**
 * The typed state of one request, made by the first filter and read by every later stage through
 * `requestState(res)` — never through `res.locals` and a cast (kube keeps the same things in the
 * request's context.Context). It is also the RequestContext the registry receives: one object,
 * so the dry-run flag, the warnings and the user a handler sets are the ones the filters, the
 * error path and the registry see.
 */
import type { RequestContext } from '../api/request-context';
import type { UserInfo } from '../api/user-info';
import type { CborSerializer } from './codec';
import type { RequestInfo } from './request-info';

export interface RequestState extends RequestContext {
  /** The request id, sent back as `Audit-Id` (kube's audit ID). */
  readonly auditId: string;
  /** When the first filter saw the request (process.hrtime.bigint()). */
  readonly received: bigint;
  /** What the path and method say the request is (kube's RequestInfo). */
  readonly info: RequestInfo;
  /**
   * Who the request acts as: set by the authentication filter (system:anonymous for anonymous
   * requests), replaced by the impersonation filter with the impersonated user.
   */
  user?: UserInfo;
  /**
   * When the request impersonates: the user who authenticated (what kube's audit event records as
   * `user`, with `user` above as its `impersonatedUser`). Unset otherwise.
   */
  impersonator?: UserInfo;
  /** Warnings for `Warning: 299 - "…"` headers (endpoints/warnings.ts bounds them as kube does). */
  readonly warnings: string[];
  /** The CBOR serializer when the request may negotiate CBOR (its gate on), errors included. */
  cbor?: CborSerializer;
  /** The audit event of this request, when auditing (the audit issue fills this slot). */
  audit?: unknown;
  /** The request-timeout filter's timer while the request runs. */
  deadline?: NodeJS.Timeout;
  /**
   * Set when the request-timeout filter answered 504 while the handler still works: settles when
   * the handler ends its (silenced) response. Until then the request holds its in-flight slot, as
   * kube's handler goroutine does.
   */
  handlerAfterTimeout?: Promise<void>;
}

/** What holds a request's state: the response (express's, over HTTP/1.1 or HTTP/2). */
type Holder = object;

/**
 * The state lives in the response's `locals` bag under a symbol only this module knows: a WeakMap
 * entry per request would cost every garbage collection an ephemeron to trace, and a property
 * added to the response itself would give responses several hidden classes (slower everywhere
 * express touches them).
 */
const kState = Symbol('requestState');
type Holding = { [kState]?: RequestState };

function bag(holder: Holder): Holding {
  const h = holder as { locals?: Holding };
  return (h.locals ??= {});
}

/** Creates the state of a new request (the request-info filter; tests). */
export function beginRequest(holder: Holder, init: { auditId: string; info: RequestInfo; received?: bigint }): RequestState {
  const state: RequestState = {
    auditId: init.auditId,
    received: init.received ?? process.hrtime.bigint(),
    info: init.info,
    warnings: [],
    namespace: '',
    dryRun: false,
    now: () => new Date(),
    // Set by a create's or an update's storage write (api/stored-json.ts); present from the start, as the others.
    storedJson: undefined,
  };
  bag(holder)[kState] = state;
  return state;
}

/** The state of a request that went through the filter chain; throws (a bug) if it did not. */
export function requestState(holder: Holder): RequestState {
  const s = (holder as { locals?: Holding }).locals?.[kState];
  if (!s) throw new Error('request state missing: the request did not pass the request-info filter');
  return s;
}

/** The state if there is one (paths that may run before the first filter, e.g. a raw error). */
export function maybeRequestState(holder: Holder): RequestState | undefined {
  return (holder as { locals?: Holding }).locals?.[kState];
}
