/**
 * The SubjectAccessReview an authorization webhook is sent and the status it answers with, as
 * kube's plugin/pkg/authorizer/webhook builds and reads them: the v1 spec made from the request's
 * attributes, the body encoded as Go's encoding/json writes the typed object (field order, every
 * `omitempty`, `"metadata":{"creationTimestamp":null}`, `"status":{"allowed":false}`, HTML-safe
 * escapes, sorted map keys, a trailing newline), v1beta1's `group` where v1 says `groups`, and the
 * answer decoded as client-go decodes it into the typed object.
 */
import { compareGoStrings, goJsonString, goSubjectAccessReviewSpec, type AuthorizationAttributes, type SubjectAccessReviewSpec } from '../../api';

export type SarVersion = 'v1' | 'v1beta1';

/** The status fields the webhook's answer decides with (kube's SubjectAccessReviewStatus). */
export interface SarStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/**
 * kube's Authorize: the user (name, uid, groups, extra) and the resource or non-resource
 * attributes, every field set; the encoder leaves out what Go's `omitempty` does.
 */
export function sarSpecFor(a: AuthorizationAttributes): SubjectAccessReviewSpec {
  const u = a.user;
  const spec: SubjectAccessReviewSpec = { user: u.name, groups: u.groups, uid: u.uid, ...(u.extra ? { extra: u.extra } : {}) };
  if (a.isResourceRequest) {
    spec.resourceAttributes = { namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name };
  } else spec.nonResourceAttributes = { path: a.path, verb: a.verb };
  return spec;
}

/**
 * Go's encoding/json text of goSubjectAccessReviewSpec's value: fields in the order given, but the
 * keys of `extra` (the spec's one map) sorted again, since a JS object lists integer-like keys first.
 * Recursion is bounded by the spec's own shape.
 */
function goJson(v: unknown, isMap = false): string {
  if (typeof v === 'string') return goJsonString(v);
  if (Array.isArray(v)) return `[${v.map((x) => goJson(x)).join(',')}]`;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (isMap) keys.sort(compareGoStrings);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJson(o[k], !isMap && k === 'extra')}`).join(',')}}`;
}

/**
 * The spec as Go encodes the version's SubjectAccessReviewSpec (`group` in v1beta1, `groups` in
 * v1). Also the decision cache's key (kube keys on json.Marshal of the v1 spec).
 */
export function encodeSarSpec(spec: SubjectAccessReviewSpec, version: SarVersion = 'v1'): string {
  return goJson(goSubjectAccessReviewSpec(spec, version === 'v1' ? 'groups' : 'group'));
}

/** The request body kube's webhook client sends: the whole typed object, newline-terminated (json.Encoder). */
export function encodeSarRequest(spec: SubjectAccessReviewSpec, version: SarVersion): string {
  return (
    `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/${version}",` +
    `"metadata":{"creationTimestamp":null},"spec":${encodeSarSpec(spec, version)},"status":{"allowed":false}}\n`
  );
}

/** A webhook answer client-go could not decode; the message is Go's. */
class SarDecodeError extends Error {
  override readonly name = 'SarDecodeError';
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** encoding/json's UnmarshalTypeError text for a status field. */
function typeError(value: unknown, field: string, goType: string): SarDecodeError {
  return new SarDecodeError(`json: cannot unmarshal ${jsonType(value)} into Go struct field SubjectAccessReviewStatus.status.${field} of type ${goType}`);
}

/** The scheme client-go's decoder names in `no kind … is registered` (kubernetes/scheme/register.go). */
const CLIENT_SCHEME = 'k8s.io/client-go/kubernetes/scheme/register.go:83';

/**
 * Decodes the webhook's answer as client-go's decoder does into a SubjectAccessReview of `version`:
 * a JSON object whose apiVersion (when given) is authorization.k8s.io v1 or v1beta1 (both convert)
 * and whose kind (when given) is SubjectAccessReview; status fields of the wrong type fail as Go
 * fails them. Throws SarDecodeError.
 */
export function decodeSarResponse(body: string, version: SarVersion): SarStatus {
  let doc: unknown;
  const trimmed = body.trimStart();
  if (!trimmed.startsWith('{')) {
    // Not JSON: kube's recognizer tries YAML, which reads this as a scalar, not an object.
    throw new SarDecodeError(
      trimmed === ''
        ? "Object 'Kind' is missing in ''"
        : 'couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
  }
  try {
    doc = JSON.parse(body);
  } catch (e) {
    throw new SarDecodeError(`couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`);
  }
  const o = doc as Record<string, unknown>;
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const kind = typeof o.kind === 'string' ? o.kind : '';
  if (apiVersion !== '' && apiVersion !== 'authorization.k8s.io/v1' && apiVersion !== 'authorization.k8s.io/v1beta1') {
    throw new SarDecodeError(`no kind "${kind || 'SubjectAccessReview'}" is registered for version "${apiVersion}" in scheme "${CLIENT_SCHEME}"`);
  }
  if (kind !== '' && kind !== 'SubjectAccessReview') {
    throw new SarDecodeError(`no kind "${kind}" is registered for version "${apiVersion || `authorization.k8s.io/${version}`}" in scheme "${CLIENT_SCHEME}"`);
  }
  const status = o.status;
  const out: SarStatus = { allowed: false, denied: false, reason: '', evaluationError: '' };
  if (status === undefined || status === null) return out;
  if (typeof status !== 'object' || Array.isArray(status)) {
    throw new SarDecodeError(`json: cannot unmarshal ${jsonType(status)} into Go struct field SubjectAccessReview.status of type ${version}.SubjectAccessReviewStatus`);
  }
  const st = status as Record<string, unknown>;
  for (const f of ['allowed', 'denied'] as const) {
    const v = st[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'boolean') throw typeError(v, f, 'bool');
    out[f] = v;
  }
  for (const f of ['reason', 'evaluationError'] as const) {
    const v = st[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw typeError(v, f, 'string');
    out[f] = v;
  }
  return out;
}
