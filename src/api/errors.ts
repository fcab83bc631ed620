/**
 * ApiError: the one error type every client-visible failure becomes. It holds a kube Status;
 * factories mirror k8s.io/apimachinery/pkg/api/errors word for word.
 */
import { FieldError, fieldErrorBody, fieldErrorString } from './field-errors';
import { goQuote } from './go-format';
import {
  GroupKind,
  GroupResource,
  Status,
  StatusDetails,
  groupKindString,
  groupResourceString,
} from './types';

export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StorageReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable';

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? 'unknown error');
    this.name = 'ApiError';
  }
  get code(): number {
    return this.status.code ?? 500;
  }
  get reason(): StatusReason {
    return (this.status.reason ?? '') as StatusReason;
  }
  /** Extra response headers this error asks for (Retry-After). */
  headers(): Record<string, string> {
    const s = this.status.details?.retryAfterSeconds;
    return s && s > 0 ? { 'Retry-After': String(s) } : {};
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** Builds a Failure Status with kube's key order, dropping empty optional fields. */
export function failureStatus(code: number, reason: StatusReason, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' };
  if (message) s.message = message;
  if (reason) s.reason = reason;
  const d = details && compactDetails(details);
  if (d) s.details = d;
  if (code) s.code = code;
  return s;
}

function compactDetails(d: StatusDetails): StatusDetails | undefined {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

const make = (code: number, reason: StatusReason, message: string, details?: StatusDetails): ApiError =>
  new ApiError(failureStatus(code, reason, message, details));

const grDetails = (gr: GroupResource, name: string): StatusDetails => ({
  name,
  group: gr.group,
  kind: gr.resource,
});

/** kube's utilerrors aggregate: one message bare, several de-duplicated and bracketed. */
export function aggregateMessages(messages: string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length === 1) return unique[0] as string;
  return `[${unique.join(', ')}]`;
}

export const errors = {
  notFound: (gr: GroupResource, name: string) =>
    make(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, grDetails(gr, name)),

  alreadyExists: (gr: GroupResource, name: string) =>
    make(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, grDetails(gr, name)),

  generateNameConflict: (gr: GroupResource, name: string, retryAfterSeconds = 1) =>
    make(
      409,
      'AlreadyExists',
      `${groupResourceString(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
      { ...grDetails(gr, name), retryAfterSeconds },
    ),

  conflict: (gr: GroupResource, name: string, inner: string) =>
    make(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${inner}`, grDetails(gr, name)),

  /** The 409 for a stale resourceVersion on update. */
  modifiedConflict: (gr: GroupResource, name: string) =>
    errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again'),

  invalid: (gk: GroupKind, name: string, errs: FieldError[]) => {
    const gks = groupKindString(gk);
    // StatusCause.field is omitempty: a whole-object error (path "") has no field key.
    const causes = errs.map((e) => (e.field ? { reason: e.type, message: fieldErrorBody(e), field: e.field } : { reason: e.type, message: fieldErrorBody(e) }));
    let message: string;
    if (errs.length === 0) message = `${gks} "${name}" is invalid`;
    else message = `${gks} "${name}" is invalid: ${aggregateMessages(errs.map(fieldErrorString))}`;
    return make(422, 'Invalid', message, { name, group: gk.group, kind: gk.kind, causes });
  },

  badRequest: (message: string) => make(400, 'BadRequest', message),

  unauthorized: (message = 'Unauthorized') => make(401, 'Unauthorized', message),

  /** apimachinery's NewForbidden: without a group or resource (a non-resource request) the message is `forbidden: <reason>`. */
  forbidden: (gr: GroupResource, name: string, reason: string) => {
    if (!gr.group && !gr.resource) return make(403, 'Forbidden', `forbidden: ${reason}`, grDetails(gr, name));
    const what = name ? `${groupResourceString(gr)} ${goQuote(name)}` : groupResourceString(gr);
    return make(403, 'Forbidden', `${what} is forbidden: ${reason}`, grDetails(gr, name));
  },

  methodNotSupported: (gr: GroupResource, verb: string) =>
    make(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${groupResourceString(gr)}"`, {
      group: gr.group,
      kind: gr.resource,
    }),

  /** go-restful's 404 for a path no route serves; it carries an empty details object. */
  routeNotFound: () => make(404, 'NotFound', 'the server could not find the requested resource', {}),

  /** go-restful's 405 for a route that exists without that method (empty details too). */
  routeMethodNotAllowed: () => make(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),

  notAcceptable: (accepted: string[]) =>
    make(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),

  notAcceptableMessage: (message: string) => make(406, 'NotAcceptable', message),

  unsupportedMediaType: (accepted: string[]) =>
    make(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),

  requestEntityTooLarge: (limit: number) =>
    make(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),

  expired: (message: string) => make(410, 'Expired', message),

  tooManyRequests: (message: string, retryAfterSeconds = 0) =>
    make(429, 'TooManyRequests', `Too many requests: ${message}`, { retryAfterSeconds }),

  /** etcd unreachable or a storage timeout during an operation. */
  serverTimeout: (gr: GroupResource, operation: string, retryAfterSeconds = 2) =>
    make(
      500,
      'ServerTimeout',
      `The ${operation} operation against ${groupResourceString(gr)} could not be completed at this time, please try again.`,
      { group: gr.group, kind: gr.resource, name: operation, retryAfterSeconds },
    ),

  timeout: (message: string, retryAfterSeconds = 0) =>
    make(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds }),

  tooLargeResourceVersion: (requested: bigint | string, current: bigint | string, retryAfterSeconds = 1) =>
    make(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds,
    }),

  internal: (err: unknown) => {
    const msg = err instanceof Error ? err.message : String(err);
    return make(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
  },

  serviceUnavailable: (message: string) => make(503, 'ServiceUnavailable', message),
};

/** Status for a successful delete: `{status: Success, details: {name, group, kind, uid}}` with no code. */
export function successStatus(details: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
  const d = compactDetails(details);
  if (d && Object.keys(d).length) s.details = d;
  return s;
}
