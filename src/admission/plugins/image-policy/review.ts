/**
 * The ImageReview (imagepolicy.k8s.io/v1alpha1) ImagePolicyWebhook sends and the status it reads
 * back, as kube's plugin and client-go make and decode them:
 *
 * - the spec lists the images of the pod's containers then init containers (of its ephemeral
 *   containers for the `ephemeralcontainers` subresource), the pod's annotations whose key holds
 *   `.image-policy.k8s.io/`, and the namespace;
 * - the body is Go's encoding/json of the typed object (field order, `omitempty`,
 *   `"metadata":{"creationTimestamp":null}`, `"status":{"allowed":false}`, sorted map keys,
 *   HTML-safe escapes, a trailing newline); the spec's own encoding is also the cache key, as
 *   kube keys its cache on json.Marshal of the spec;
 * - the answer is decoded as kube's legacy codec decodes it into an ImageReview: JSON when it
 *   starts with `{`, else YAML; apiVersion and kind may be left out, other ones are refused; the
 *   status fields must have their Go types. Failures carry Go's words.
 */
import { compareGoStrings, goJsonScan, goJsonString, scanJson, setKey, unmarshalTypeMessage, type KubeObject } from '../../../api';
import { ConfigYamlError, decodeConfigYaml, maxYamlDepth } from '../../../config/config-yaml';

const IMAGE_REVIEW_API_VERSION = 'imagepolicy.k8s.io/v1alpha1';

export interface ImageReviewSpec {
  /** The images, in kube's order; an empty image stays an entry (`{}`). */
  containers: string[];
  annotations: Record<string, string>;
  namespace: string;
}

export interface ImageReviewStatus {
  allowed: boolean;
  reason: string;
  auditAnnotations: Record<string, string>;
}

/** kube's filterAnnotations: the keys matching `*.image-policy.k8s.io/*`. */
export function imagePolicyAnnotations(all: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(all ?? {})) if (k.includes('.image-policy.k8s.io/') && typeof v === 'string') out[k] = v;
  return out;
}

type Containers = Array<{ image?: unknown }> | undefined;

/** The spec kube's Validate builds for a pod (the whole pod, or its `ephemeralcontainers` subresource). */
export function imageReviewSpecFor(pod: KubeObject, subresource: string, namespace: string): ImageReviewSpec {
  const spec = (pod.spec ?? {}) as { containers?: Containers; initContainers?: Containers; ephemeralContainers?: Containers };
  const list = subresource === 'ephemeralcontainers' ? [...(spec.ephemeralContainers ?? [])] : [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  return {
    containers: list.map((c) => (typeof c?.image === 'string' ? c.image : '')),
    annotations: imagePolicyAnnotations(pod.metadata.annotations),
    namespace,
  };
}

/** Go's encoding/json of ImageReviewSpec: every field `omitempty`, map keys sorted. Also the cache key. */
export function encodeImageReviewSpec(spec: ImageReviewSpec): string {
  const parts: string[] = [];
  if (spec.containers.length) parts.push(`"containers":[${spec.containers.map((image) => (image ? `{"image":${goJsonString(image)}}` : '{}')).join(',')}]`);
  const keys = Object.keys(spec.annotations).sort(compareGoStrings);
  if (keys.length) parts.push(`"annotations":{${keys.map((k) => `${goJsonString(k)}:${goJsonString(spec.annotations[k] as string)}`).join(',')}}`);
  if (spec.namespace) parts.push(`"namespace":${goJsonString(spec.namespace)}`);
  return `{${parts.join(',')}}`;
}

/** The request body: the whole typed ImageReview, as kube's JSON encoder writes it. */
export function encodeImageReviewRequest(encodedSpec: string): string {
  return `{"kind":"ImageReview","apiVersion":"${IMAGE_REVIEW_API_VERSION}","metadata":{"creationTimestamp":null},"spec":${encodedSpec},"status":{"allowed":false}}\n`;
}

/** An answer kube's decoder refuses; the message is Go's. */
export class ImageReviewDecodeError extends Error {
  override readonly name = 'ImageReviewDecodeError';
}

/** The scheme kube's image policy codec decodes with (legacyscheme), as its `no kind` errors name it. */
const LEGACY_SCHEME = 'k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30';

/** Go's type of the struct the json serializer reads apiVersion and kind into. */
const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Go's unicode.IsSpace before a `{`: what the JSON serializer recognizes as its own. */
const JSON_START = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*\{/;

/** The JSON kind name Go's UnmarshalTypeError gives a plain value. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const versionKindError = (why: string) => new ImageReviewDecodeError(`couldn't get version/kind; json parse error: ${why}`);

/** The answer as a plain value: JSON (with Go's syntax error) when it starts with `{`, else YAML. */
function parseAnswer(body: string): unknown {
  if (JSON_START.test(body)) {
    const depth = scanJson(body);
    if (depth.depthError) throw versionKindError(depth.depthError);
    // Ours, not kube's (10,000): Go's syntax check below recurses per level.
    if (depth.depth > maxYamlDepth) throw versionKindError(`nesting deeper than ${maxYamlDepth} levels`);
    const scan = goJsonScan(Buffer.from(body, 'utf8'));
    if ('error' in scan) throw versionKindError(scan.error);
    return JSON.parse(body) as unknown;
  }
  try {
    return decodeConfigYaml(body).value;
  } catch (e) {
    if (e instanceof ConfigYamlError) throw new ImageReviewDecodeError(e.message);
    throw e;
  }
}

/**
 * SimpleMetaFactory.Interpret: apiVersion and kind read by encoding/json (field names matched
 * without regard to case), each a string or absent.
 */
function interpret(doc: unknown): { apiVersion: string; kind: string } {
  const out = { apiVersion: '', kind: '' };
  if (doc === null || doc === undefined) return out;
  if (!isObject(doc)) throw versionKindError(unmarshalTypeMessage(kindOf(doc), FIND_KIND_TYPE));
  for (const [key, v] of Object.entries(doc)) {
    const lower = key.toLowerCase();
    const field = lower === 'apiversion' ? 'apiVersion' : lower === 'kind' ? 'kind' : undefined;
    if (!field || v === null) continue;
    if (typeof v !== 'string') throw versionKindError(unmarshalTypeMessage(kindOf(v), 'string', { struct: '', name: field }));
    out[field] = v;
  }
  return out;
}

/**
 * Decodes the webhook's answer into the review's status. Throws ImageReviewDecodeError with the
 * words kube's decoder would use.
 */
export function decodeImageReviewResponse(body: string): ImageReviewStatus {
  const doc = parseAnswer(body);
  const gvk = interpret(doc);
  // Missing parts are taken from the ImageReview being decoded into.
  const apiVersion = gvk.apiVersion || IMAGE_REVIEW_API_VERSION;
  const kind = gvk.kind || 'ImageReview';
  if (apiVersion !== IMAGE_REVIEW_API_VERSION || kind !== 'ImageReview') {
    throw new ImageReviewDecodeError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "${LEGACY_SCHEME}"`);
  }
  const out: ImageReviewStatus = { allowed: false, reason: '', auditAnnotations: {} };
  if (!isObject(doc)) return out;
  const typeError = (v: unknown, struct: string, field: string, goType: string) =>
    new ImageReviewDecodeError(unmarshalTypeMessage(kindOf(v), goType, { struct, name: field }));
  // The other top-level fields must be objects too (their insides are not read here).
  for (const [field, goType] of [['metadata', 'v1.ObjectMeta'], ['spec', 'v1alpha1.ImageReviewSpec']] as const) {
    const v = doc[field];
    if (v !== undefined && v !== null && !isObject(v)) throw typeError(v, 'ImageReview', field, goType);
  }
  const status = doc.status;
  if (status === undefined || status === null) return out;
  if (!isObject(status)) throw typeError(status, 'ImageReview', 'status', 'v1alpha1.ImageReviewStatus');
  const { allowed, reason, auditAnnotations } = status;
  if (allowed !== undefined && allowed !== null) {
    if (typeof allowed !== 'boolean') throw typeError(allowed, 'ImageReviewStatus', 'status.allowed', 'bool');
    out.allowed = allowed;
  }
  if (reason !== undefined && reason !== null) {
    if (typeof reason !== 'string') throw typeError(reason, 'ImageReviewStatus', 'status.reason', 'string');
    out.reason = reason;
  }
  if (auditAnnotations !== undefined && auditAnnotations !== null) {
    if (!isObject(auditAnnotations)) throw typeError(auditAnnotations, 'ImageReviewStatus', 'status.auditAnnotations', 'map[string]string');
    for (const [k, v] of Object.entries(auditAnnotations)) {
      // A null value is Go's zero value, the empty string.
      if (v !== null && typeof v !== 'string') throw typeError(v, 'ImageReviewStatus', 'status.auditAnnotations', 'string');
      setKey(out.auditAnnotations, k, v ?? '');
    }
  }
  return out;
}
