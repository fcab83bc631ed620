/**
 * The AdmissionReview a webhook is sent and how its answer is read (kube's webhook/request and the
 * client-go decoding under it):
 *
 * - the request carries every field of admission.k8s.io/v1 AdmissionRequest, in Go's field order
 *   and with Go's `omitempty`; `object`, `oldObject` and `options` are `null` when absent, as a
 *   RawExtension without an object encodes. v1beta1 has the same fields under its own apiVersion.
 * - the answer is decoded as client-go decodes it into the review it sent: JSON (or YAML: kube's
 *   decoder recognises both), apiVersion and kind read first (config/kind-document.ts: `couldn't
 *   get version/kind; json parse error: …`), a kind the webhook scheme does not hold refused, the other review version
 *   not converted, the response's fields typed as Go types them (Go's UnmarshalTypeError, bad
 *   base64 in `patch`), unknown fields ignored. An `apiVersion`/`kind` left out is filled in for
 *   decoding but not kept, so a v1 answer without them fails the GVK check as in kube.
 * - then kube's checks (VerifyAdmissionResponse): v1 answers need a response, the request's uid,
 *   apiVersion and kind, and a patch only with its patchType (and only from mutating webhooks);
 *   v1beta1 answers are checked for nothing but a response, a patch meaning JSONPatch.
 */
import { StatusDetails, UserInfo, compareGoStrings, goQuote, unmarshalTypeMessage } from '../../../api';
import { s, strictDecode, type Decoded } from '../../../config/config-decode';
import { KindDocumentError, readKindDocument, type KindDocument } from '../../../config/kind-document';
import type { WebhookStatus } from './errors';

export type ReviewVersion = 'v1' | 'v1beta1';

const ADMISSION_GROUP = 'admission.k8s.io';

/** The first of a webhook's admissionReviewVersions this server speaks (kube's CreateAdmissionObjects). */
export function reviewVersionFor(versions: readonly string[] | null | undefined): ReviewVersion | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** What a request says of itself, the same for every webhook it is sent to (kube's attributes). */
export interface RequestBase {
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource: string;
  name: string;
  namespace: string;
  operation: string;
  user: UserInfo | undefined;
  dryRun: boolean;
  options: Record<string, unknown> | undefined;
}

/** What one webhook is shown: the resource and kind it matched (the request's own, or an equivalent's), and the object in that form. */
export interface RequestView {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource: string;
  object: unknown;
  oldObject: unknown;
}

/** authentication/v1 UserInfo as Go encodes it: every field omitempty, extra's keys sorted. */
function userInfoJson(u: UserInfo | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!u) return out;
  if (u.name) out.username = u.name;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = u.groups;
  const keys = Object.keys(u.extra ?? {}).sort(compareGoStrings);
  if (keys.length) out.extra = Object.fromEntries(keys.map((k) => [k, (u.extra as Record<string, string[]>)[k]]));
  return out;
}

/** The AdmissionRequest (v1 and v1beta1 alike), keys in Go's field order. */
export function admissionRequest(uid: string, base: RequestBase, view: RequestView): Record<string, unknown> {
  const r: Record<string, unknown> = { uid, kind: view.kind, resource: view.resource };
  if (view.subResource) r.subResource = view.subResource;
  r.requestKind = base.requestKind;
  r.requestResource = base.requestResource;
  if (base.requestSubResource) r.requestSubResource = base.requestSubResource;
  if (base.name) r.name = base.name;
  if (base.namespace) r.namespace = base.namespace;
  r.operation = base.operation;
  r.userInfo = userInfoJson(base.user);
  r.object = view.object ?? null;
  r.oldObject = view.oldObject ?? null;
  r.dryRun = base.dryRun;
  r.options = base.options ?? null;
  return r;
}

/** The request body: the review as client-go's encoder writes it (newline-terminated). */
export function encodeReview(version: ReviewVersion, request: Record<string, unknown>): string {
  return `${JSON.stringify({ kind: 'AdmissionReview', apiVersion: `${ADMISSION_GROUP}/${version}`, request })}\n`;
}

// ---- Reading the answer ----

/** An answer client-go could not decode; the message is Go's. */
export class ReviewDecodeError extends Error {
  override readonly name = 'ReviewDecodeError';
}

/** An answer that decoded but fails kube's checks (VerifyAdmissionResponse's text). */
export class InvalidReviewError extends Error {
  override readonly name = 'InvalidReviewError';
}

/** The scheme kube's webhook client manager builds (util/webhook/client.go), as `no kind … in scheme` names it. */
const WEBHOOK_SCHEME = 'k8s.io/apiserver/pkg/util/webhook/client.go:71';

/** meta/v1's kinds every scheme holds unversioned (metav1.AddToGroupVersion). */
const unversionedKinds = new Set(['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUES = new Map([...B64].map((c, i) => [c.charCodeAt(0), i]));

/**
 * base64.StdEncoding.DecodeString as encoding/json decodes a `[]byte` field: newlines skipped,
 * padding required, Go's `illegal base64 data at input byte N`.
 */
export function decodeGoStdBase64(text: string): Buffer {
  const src = Buffer.from(text, 'utf8');
  const out: number[] = [];
  const corrupt = (at: number): never => {
    throw new Error(`illegal base64 data at input byte ${at}`);
  };
  const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;
  let si = 0;
  for (;;) {
    const quantum: number[] = [];
    let done = false;
    while (quantum.length < 4) {
      if (si === src.length) {
        if (quantum.length === 0) return Buffer.from(out);
        corrupt(si - quantum.length);
      }
      const c = src[si++] as number;
      const v = B64_VALUES.get(c);
      if (v !== undefined) {
        quantum.push(v);
        continue;
      }
      if (isNewline(c)) continue;
      if (c !== 0x3d) corrupt(si - 1);
      // Padding: "==" after two symbols, "=" after three, then only newlines.
      if (quantum.length < 2) corrupt(si - 1);
      if (quantum.length === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) corrupt(src.length);
        if (src[si] !== 0x3d) corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) corrupt(si);
      done = true;
      break;
    }
    const [a = 0, b = 0, c = 0, d = 0] = quantum;
    const val = (a << 18) | (b << 12) | (c << 6) | d;
    if (quantum.length >= 2) out.push((val >> 16) & 0xff);
    if (quantum.length >= 3) out.push((val >> 8) & 0xff);
    if (quantum.length === 4) out.push(val & 0xff);
    if (done) return Buffer.from(out);
  }
}

/** AdmissionResponse.patch, a Go `[]byte`: a base64 string, or (as encoding/json allows) an array of bytes. */
const patchBytes = s.custom<Buffer | undefined>(
  '[]uint8',
  (json) => {
    if (json === null) return undefined;
    if (typeof json === 'string') return decodeGoStdBase64(json);
    if (Array.isArray(json) && json.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255)) return Buffer.from(json as number[]);
    const kind = Array.isArray(json) ? 'array' : typeof json === 'object' ? 'object' : typeof json === 'boolean' ? 'bool' : typeof json;
    throw new Error(unmarshalTypeMessage(kind, '[]uint8', { struct: 'AdmissionResponse', name: 'response.patch' }));
  },
  () => undefined,
);

const statusShape = s.struct('v1.Status', {
  kind: s.string(),
  apiVersion: s.string(),
  metadata: s.struct('v1.ListMeta', { selfLink: s.string(), resourceVersion: s.string(), continue: s.string(), remainingItemCount: s.ptr(s.int64()) }),
  status: s.string(),
  message: s.string(),
  reason: s.string('v1.StatusReason'),
  details: s.ptr(
    s.struct('v1.StatusDetails', {
      name: s.string(),
      group: s.string(),
      kind: s.string(),
      uid: s.string('types.UID'),
      causes: s.list(s.struct('v1.StatusCause', { reason: s.string('v1.CauseType'), message: s.string(), field: s.string() })),
      retryAfterSeconds: s.int32(),
    }),
  ),
  code: s.int32(),
});

/** The review's shape: the request a webhook may echo back is not read (kube decodes it, nobody uses it). */
const reviewShape = (pkg: ReviewVersion) =>
  s.struct(`${pkg}.AdmissionReview`, {
    kind: s.string(),
    apiVersion: s.string(),
    response: s.ptr(
      s.struct(`${pkg}.AdmissionResponse`, {
        uid: s.string('types.UID'),
        allowed: s.bool(),
        status: s.ptr(statusShape),
        patch: patchBytes,
        patchType: s.ptr(s.string(`${pkg}.PatchType`)),
        auditAnnotations: s.map(s.string()),
        warnings: s.list(s.string()),
      }),
    ),
  });

const shapes = { v1: reviewShape('v1'), v1beta1: reviewShape('v1beta1') };

export type DecodedReview = Decoded<(typeof shapes)['v1']>;

/**
 * Decodes a webhook's answer to a review of `sent`'s version as client-go decodes it into that
 * typed review. Throws ReviewDecodeError with Go's text.
 */
export function decodeReview(body: string, sent: ReviewVersion): DecodedReview {
  let read: KindDocument;
  try {
    read = readKindDocument(body);
  } catch (e) {
    if (e instanceof KindDocumentError) throw new ReviewDecodeError(e.message);
    throw e;
  }
  // The serializer fills in what the document leaves out from the review it decodes into.
  const kind = read.kind || 'AdmissionReview';
  let { group, version: v } = read;
  if (v === '' && (group === '' || group === ADMISSION_GROUP)) [group, v] = [ADMISSION_GROUP, sent];
  const apiVersion = group === '' ? v : `${group}/${v}`;
  const version = group === ADMISSION_GROUP && (v === 'v1' || v === 'v1beta1') ? v : undefined;
  // The scheme also holds meta's kinds: they decode, then fail to convert into the review.
  const metaKind = (group === '' && v === 'v1' && unversionedKinds.has(kind)) || (version !== undefined && kind === 'WatchEvent');
  if (metaKind) throw new ReviewDecodeError(`converting (v1.${kind}) to (${sent}.AdmissionReview): unknown conversion`);
  if (kind !== 'AdmissionReview' || !version) throw new ReviewDecodeError(`no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(WEBHOOK_SCHEME)}`);
  if (version !== sent) throw new ReviewDecodeError(`converting (${version}.AdmissionReview) to (${sent}.AdmissionReview): unknown conversion`);
  const decoded = strictDecode(shapes[sent].node, read.doc);
  if (decoded.error !== undefined) throw new ReviewDecodeError(decoded.error);
  return decoded.value as DecodedReview;
}

/** What a webhook decided (kube's webhookrequest.AdmissionResponse). */
export interface AdmissionResult {
  allowed: boolean;
  status?: WebhookStatus;
  /** The patch's bytes; only from a mutating webhook. */
  patch?: Buffer;
  /** `JSONPatch` (v1beta1's implied one included), or '' without a patch. */
  patchType: string;
  auditAnnotations: Record<string, string>;
  warnings: string[];
}

/** metav1.Status as the denial carries it; a cause's empty fields left out, as Go's omitempty writes it. */
function statusOf(st: Decoded<typeof statusShape> | undefined): WebhookStatus | undefined {
  if (!st) return undefined;
  const out: WebhookStatus = { status: st.status, message: st.message, reason: st.reason, code: st.code };
  const m = st.metadata;
  if (m) {
    const metadata = {
      ...(m.selfLink ? { selfLink: m.selfLink } : {}),
      ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
      ...(m.continue ? { continue: m.continue } : {}),
      ...(m.remainingItemCount !== undefined && m.remainingItemCount !== null ? { remainingItemCount: m.remainingItemCount } : {}),
    };
    if (Object.keys(metadata).length > 0) out.metadata = metadata;
  }
  if (st.details) {
    const causes = st.details.causes?.map(({ reason, message, field }) => ({ ...(reason ? { reason } : {}), ...(message ? { message } : {}), ...(field ? { field } : {}) }));
    out.details = { ...st.details, ...(causes ? { causes } : {}) } as StatusDetails;
  }
  return out;
}

/** kube's VerifyAdmissionResponse. Throws InvalidReviewError. */
export function verifyReview(uid: string, mutating: boolean, sent: ReviewVersion, review: DecodedReview): AdmissionResult {
  const r = review.response;
  if (!r) throw new InvalidReviewError('webhook response was absent');
  const base = { allowed: r.allowed, auditAnnotations: r.auditAnnotations ?? {}, warnings: r.warnings ?? [] };
  const status = statusOf(r.status);
  if (sent === 'v1beta1') {
    // v1beta1 answers were never checked for uid, kind or patchType: a patch is a JSON patch.
    const patch = mutating && r.patch?.length ? r.patch : undefined;
    return { ...base, ...(status ? { status } : {}), ...(patch ? { patch, patchType: 'JSONPatch' } : { patchType: '' }) };
  }
  if (r.uid !== uid) throw new InvalidReviewError(`expected response.uid=${goQuote(uid)}, got ${goQuote(r.uid)}`);
  const slash = review.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : review.apiVersion.slice(0, slash);
  const version = slash < 0 ? review.apiVersion : review.apiVersion.slice(slash + 1);
  if (review.apiVersion !== `${ADMISSION_GROUP}/v1` || review.kind !== 'AdmissionReview') {
    throw new InvalidReviewError(`expected webhook response of ${ADMISSION_GROUP}/v1, Kind=AdmissionReview, got ${group}/${version}, Kind=${review.kind}`);
  }
  const hasPatch = (r.patch?.length ?? 0) > 0;
  if (mutating) {
    if (hasPatch && r.patchType === undefined) throw new InvalidReviewError('webhook returned response.patch but not response.patchType');
    if (!hasPatch && r.patchType !== undefined) throw new InvalidReviewError('webhook returned response.patchType but not response.patch');
    if (r.patchType === '') throw new InvalidReviewError(`webhook returned invalid response.patchType of ${goQuote('')}`);
  } else {
    if (hasPatch) throw new InvalidReviewError('validating webhook may not return response.patch');
    if (r.patchType !== undefined) throw new InvalidReviewError('validating webhook may not return response.patchType');
  }
  return { ...base, ...(status ? { status } : {}), ...(hasPatch ? { patch: r.patch } : {}), patchType: r.patchType ?? '' };
}
