/**
 * Impersonation (kube's WithImpersonation, apiserver pkg/endpoints/filters/impersonation.go): a
 * request carrying `Impersonate-User`, `Impersonate-Group` (repeatable), `Impersonate-Uid` or
 * `Impersonate-Extra-<key>` headers acts as the user they describe, once the authorizer has allowed
 * the authenticated user the verb `impersonate` on each thing asked for. It runs after
 * authentication and before max-in-flight and authorization, as in kube's DefaultBuildHandlerChain,
 * so the in-flight limit and every later check see the impersonated user.
 */
import type { RequestHandler } from 'express';
import { errors, isApiError } from '../../api';
import type { UserInfo } from '../../api/user-info';
import { serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername } from '../../auth/authn/service-account';
import { addAuthenticatedGroup, SYSTEM_ANONYMOUS, SYSTEM_UNAUTHENTICATED } from '../../auth/authn/types';
import type { Authorizer } from '../../auth/authz/authorizer';
import { authorizationAttributes } from '../../endpoints/authorization-attributes';
import { forbiddenError } from '../../endpoints/forbidden';
import { requestState } from '../../endpoints/request-state';
import { writeError } from '../../endpoints/responses';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

const AUTHN_V1 = 'authentication.k8s.io/v1';

/** One thing a request asks to impersonate: the fields of the v1.ObjectReference kube builds for it. */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  /** The extra's key, for kind UserExtra (kube keeps it in ObjectReference.fieldPath). */
  fieldPath: string;
}

const noHeaders: ReadonlyMap<string, string[]> = new Map();

/**
 * The `Impersonate-*` headers as Go's http.Header holds them: every value of a repeated header apart,
 * names lower-cased. A request without any (nearly every one) allocates nothing.
 */
export function headerValues(rawHeaders: readonly string[]): ReadonlyMap<string, string[]> {
  let out: Map<string, string[]> | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i] ?? '';
    // First letter `i`/`I` before anything allocates: most headers are out at once.
    if ((raw.charCodeAt(0) | 0x20) !== 0x69 || raw.length < 12 || raw.slice(0, 12).toLowerCase() !== 'impersonate-') continue;
    const name = raw.toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    out ??= new Map();
    const values = out.get(name);
    if (values) values.push(value);
    else out.set(name, [value]);
  }
  return out ?? noHeaders;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * An extra's key from its header name: lower-cased, then %-decoded as Go's url.PathUnescape does
 * (no `+` rule); a key that does not decode is kept as it is, as kube keeps it.
 */
export function extraKey(headerSuffix: string): string {
  const lower = headerSuffix.toLowerCase();
  if (!lower.includes('%')) return lower;
  const bytes: number[] = [];
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (c !== 0x25) {
      // Header names are tokens, so ASCII: one byte per character.
      bytes.push(c & 0xff);
      continue;
    }
    if (i + 2 >= lower.length || !isHex(lower.charCodeAt(i + 1)) || !isHex(lower.charCodeAt(i + 2))) return lower;
    bytes.push(parseInt(lower.slice(i + 1, i + 3), 16));
    i += 2;
  }
  // Go keeps the raw bytes; its JSON encoder writes invalid UTF-8 as U+FFFD, which is what this gives.
  return Buffer.from(bytes).toString('utf8');
}

/** Go's %v of a v1.ObjectReference: its seven fields in declaration order, space-separated. */
function goObjectReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

/**
 * What the headers ask to impersonate, in kube's order: the user (or service account), each group,
 * each extra value, the uid. Groups, extras or a uid without a user are a 400 (kube 1.32 answers
 * that with a plain-text 500; later kube, and this server, with a BadRequest Status of the same text).
 */
export function impersonationRequests(headers: ReadonlyMap<string, string[]>): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  const none = { namespace: '', apiVersion: '', fieldPath: '' };
  const user = headers.get(USER_HEADER)?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { ...none, kind: 'ServiceAccount', ...sa } : { ...none, kind: 'User', name: user });
  }
  const groups = headers.get(GROUP_HEADER) ?? [];
  for (const g of groups) out.push({ ...none, kind: 'Group', name: g });
  let hasExtra = false;
  for (const [name, values] of headers) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = extraKey(name.slice(EXTRA_PREFIX.length));
    for (const v of values) out.push({ kind: 'UserExtra', namespace: '', name: v, apiVersion: AUTHN_V1, fieldPath: key });
  }
  const uid = headers.get(UID_HEADER)?.[0] ?? '';
  if (uid) out.push({ kind: 'UID', namespace: '', name: uid, apiVersion: AUTHN_V1, fieldPath: '' });
  if ((groups.length > 0 || hasExtra || uid) && !user) {
    throw errors.badRequest(`requested [${out.map(goObjectReference).join(' ')}] without impersonating a user`);
  }
  return out;
}

/** The group, resource, etc. the `impersonate` check of `r` names (kube's switch on the reference's kind). */
function target(r: ImpersonationRequest): { apiGroup: string; apiVersion: string; resource: string; subresource: string; namespace: string; name: string } {
  const inAuthn = r.apiVersion === AUTHN_V1;
  const base = { apiGroup: inAuthn ? 'authentication.k8s.io' : '', apiVersion: inAuthn ? 'v1' : '', namespace: r.namespace, name: r.name, subresource: '' };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts' };
    case 'User':
      return { ...base, resource: 'users' };
    case 'Group':
      return { ...base, resource: 'groups' };
    case 'UserExtra':
      return { ...base, resource: 'userextras', subresource: r.fieldPath };
    case 'UID':
      return { ...base, resource: 'uids' };
  }
}

/**
 * The impersonated user once every request is allowed, with kube's group rules: a service account
 * gets `system:serviceaccounts` and `system:serviceaccounts:<ns>` unless groups were given; any
 * other user gets `system:authenticated` unless `system:authenticated` or `system:unauthenticated`
 * is among its groups; system:anonymous gets `system:unauthenticated` unless given it.
 */
export function impersonatedUser(requests: readonly ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    switch (r.kind) {
      case 'ServiceAccount':
        name = serviceAccountUsername(r.namespace, r.name);
        if (!groupsSpecified) groups.push(...serviceAccountGroups(r.namespace));
        break;
      case 'User':
        name = r.name;
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        uid = r.name;
        break;
    }
  }
  if (name === SYSTEM_ANONYMOUS && !groups.includes(SYSTEM_UNAUTHENTICATED)) groups.push(SYSTEM_UNAUTHENTICATED);
  const user: UserInfo = { name, uid, groups };
  if (Object.keys(extra).length > 0) user.extra = extra;
  // Any other user gets system:authenticated as an authenticator's user does.
  return addAuthenticatedGroup(user);
}

export function withImpersonation(authorizer: Authorizer): RequestHandler {
  return async (req, res, next) => {
    const headers = headerValues(req.rawHeaders);
    if (headers.size === 0) return next();
    let requests: ImpersonationRequest[];
    try {
      requests = impersonationRequests(headers);
    } catch (e) {
      if (isApiError(e)) return writeError(res, e);
      throw e;
    }
    if (requests.length === 0) return next();
    const state = requestState(res);
    const requestor = state.user;
    // Authentication answers 401 before this filter for a request without a user: a bug if reached.
    if (!requestor) throw new Error('no user found for request');
    for (const r of requests) {
      const attrs = authorizationAttributes(requestor, { ...target(r), verb: 'impersonate', isResourceRequest: true, path: '' });
      const d = await authorizer.authorize(attrs);
      if (d.decision !== 'allow') {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        return writeError(res, forbiddenError(attrs, d.reason));
      }
    }
    state.impersonator = requestor;
    state.user = impersonatedUser(requests, headers.has(GROUP_HEADER));
    // Nothing below this filter sees the impersonation headers.
    for (const name of headers.keys()) {
      if (name === USER_HEADER || name === GROUP_HEADER || name === UID_HEADER || name.startsWith(EXTRA_PREFIX)) delete req.headers[name];
    }
    next();
  };
}
