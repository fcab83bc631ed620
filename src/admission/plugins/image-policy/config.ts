/**
 * ImagePolicyWebhook's configuration, read as kube 1.32 reads it (plugin/pkg/admission/imagepolicy:
 * config.go and NewImagePolicyWebhook):
 *
 *   imagePolicy:
 *     kubeConfigFile: /path/to/backend.kubeconfig
 *     allowTTL: 50        # seconds an allowed answer is cached (default 300, 1..1800)
 *     denyTTL: 50         # seconds a denied answer is cached (default 30, 1..1800)
 *     retryBackoff: 500   # milliseconds before the first retry (default 500, up to 5 minutes)
 *     defaultAllow: true  # what a failed call decides
 *
 * The document is unversioned, YAML or JSON, decoded as apimachinery's YAMLOrJSONDecoder does: the
 * first JSON value or YAML document only, through Go's encoding/json (field names matched without
 * regard to case, unknown fields ignored, the first type error reported). 0 means "the default",
 * -1 "off" (no caching, no wait between retries); any other value outside the bounds is kube's
 * `valid value is between <min> and <max>, got <value>`, thrown naming its field
 * (`imagePolicy.allowTTL`), which kube's message leaves out and the registry adds.
 */
import { formatGoDurationNanos, goJsonScan, goPathError, scanJson, unmarshalTypeMessage } from '../../../api';
import { DocNumber, DocObject, docFromPlain, jsonKind, parseJsonDoc, type DocValue } from '../../../config/config-decode';
import { decodeConfigYaml, maxYamlDepth, maxYamlNodes } from '../../../config/config-yaml';
import { readConfigSource, type ConfigSource } from '../../../config/versioned-config';
import { PluginConfigError } from '../../plugin-registry';

/** The configuration after kube's normalization; durations in milliseconds. */
export interface ImagePolicyConfig {
  kubeConfigFile: string;
  /** How long an allowed answer is cached; 0: not cached. */
  allowTtlMs: number;
  /** How long a denied answer is cached; 0: not cached. */
  denyTtlMs: number;
  /** The first wait before a retry (kube's backoff then grows it ×1.5). */
  retryBackoffMs: number;
  defaultAllow: boolean;
}

/** The fields as decoded, before normalization (kube's imagePolicyWebhookConfig; durations are Go int64s). */
export interface RawImagePolicyConfig {
  kubeConfigFile: string;
  allowTTL: bigint;
  denyTTL: bigint;
  retryBackoff: bigint;
  defaultAllow: boolean;
}

const NS = 1n;
const MS = 1_000_000n;
const SECOND = 1_000_000_000n;
const MINUTE = 60n * SECOND;

/** config.go's bounds and defaults, in nanoseconds. */
const bounds = {
  retryBackoff: { name: 'backoff', scale: MS, min: 1n * NS, max: 5n * MINUTE, def: 500n * MS },
  allowTTL: { name: 'allow cache', scale: SECOND, min: SECOND, max: 30n * MINUTE, def: 5n * MINUTE },
  denyTTL: { name: 'deny cache', scale: SECOND, min: SECOND, max: 30n * MINUTE, def: 30n * SECOND },
} as const;

/** A configuration kube's plugin refuses; the message is kube's, `field` the field at fault when known. */
export class ImagePolicyConfigError extends PluginConfigError {
  override readonly name = 'ImagePolicyConfigError';
}

/**
 * kube's normalizeConfigDuration: -1 turns the setting off (0), 0 takes the default, anything else
 * is scaled to nanoseconds (wrapping as Go's int64 multiplication does) and must be within bounds.
 */
function normalizeDuration(raw: RawImagePolicyConfig, field: keyof typeof bounds): bigint {
  const value = raw[field];
  const b = bounds[field];
  if (value === -1n) return 0n;
  if (value === 0n) return b.def;
  const ns = BigInt.asIntN(64, value * b.scale);
  if (ns < b.min || ns > b.max) {
    throw new ImagePolicyConfigError(
      `valid value is between ${formatGoDurationNanos(b.min)} and ${formatGoDurationNanos(b.max)}, got ${formatGoDurationNanos(ns)}`,
      `imagePolicy.${field}`,
    );
  }
  return ns;
}

/** kube's normalizeWebhookConfig, in its order (backoff, then the allow and deny TTLs). */
function normalizeImagePolicyConfig(raw: RawImagePolicyConfig): ImagePolicyConfig {
  const retryBackoff = normalizeDuration(raw, 'retryBackoff');
  const allowTTL = normalizeDuration(raw, 'allowTTL');
  const denyTTL = normalizeDuration(raw, 'denyTTL');
  const ms = (ns: bigint): number => Number(ns) / 1e6;
  return { kubeConfigFile: raw.kubeConfigFile, allowTtlMs: ms(allowTTL), denyTtlMs: ms(denyTTL), retryBackoffMs: ms(retryBackoff), defaultAllow: raw.defaultAllow };
}

// ---- Decoding: apimachinery's YAMLOrJSONDecoder into kube's AdmissionConfig ----

/** Go's unicode.IsSpace before a `{`: the decoder's test for a JSON stream. */
const JSON_START = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*\{/;

const CONFIG_TYPE = 'imagepolicy.AdmissionConfig';
const WEBHOOK_TYPE = 'imagepolicy.imagePolicyWebhookConfig';

/** The Go types of imagePolicyWebhookConfig's fields, by JSON name. */
const fieldTypes = {
  kubeConfigFile: 'string',
  allowTTL: 'time.Duration',
  denyTTL: 'time.Duration',
  retryBackoff: 'time.Duration',
  defaultAllow: 'bool',
} as const;
type FieldName = keyof typeof fieldTypes;

/** encoding/json's field lookup: an exact name first, else one equal without regard to case. */
function fieldFor<K extends string>(names: readonly K[], key: string): K | undefined {
  return names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
}

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

/**
 * Decodes the document into kube's AdmissionConfig as encoding/json does (not strictly). `yaml`:
 * the document came from YAML, whose conversion to JSON (sigs.k8s.io/yaml) turns a number or
 * boolean meant for a string field into its text. Throws Go's UnmarshalTypeError text.
 */
function decodeDocument(doc: DocValue, yaml: boolean): RawImagePolicyConfig {
  const out: RawImagePolicyConfig = { kubeConfigFile: '', allowTTL: 0n, denyTTL: 0n, retryBackoff: 0n, defaultAllow: false };
  if (doc === null) return out;
  if (!(doc instanceof DocObject)) throw new ImagePolicyConfigError(unmarshalTypeMessage(jsonKind(doc), CONFIG_TYPE));
  for (const [key, value] of doc.entries) {
    if (!fieldFor(['imagePolicy'], key) || value === null) continue;
    if (!(value instanceof DocObject)) {
      throw new ImagePolicyConfigError(unmarshalTypeMessage(jsonKind(value), WEBHOOK_TYPE, { struct: 'AdmissionConfig', name: 'imagePolicy' }));
    }
    for (const [k, v] of value.entries) {
      const field = fieldFor(Object.keys(fieldTypes) as FieldName[], k);
      if (!field || v === null) continue;
      const mismatch = (what: string): ImagePolicyConfigError =>
        new ImagePolicyConfigError(unmarshalTypeMessage(what, fieldTypes[field], { struct: 'imagePolicyWebhookConfig', name: `imagePolicy.${field}` }));
      if (field === 'kubeConfigFile') {
        if (typeof v === 'string') out.kubeConfigFile = v;
        else if (yaml && v instanceof DocNumber) out.kubeConfigFile = v.text;
        else if (yaml && typeof v === 'boolean') out.kubeConfigFile = String(v);
        else throw mismatch(jsonKind(v));
      } else if (field === 'defaultAllow') {
        if (typeof v !== 'boolean') throw mismatch(jsonKind(v));
        out.defaultAllow = v;
      } else {
        if (!(v instanceof DocNumber)) throw mismatch(jsonKind(v));
        // An int64: Go's ParseInt of the literal, so `1.0`, `1e3` and overflows are refused.
        if (!/^-?[0-9]+$/.test(v.text)) throw mismatch(`number ${v.text}`);
        const n = BigInt(v.text);
        if (n < MIN_INT64 || n > MAX_INT64) throw mismatch(`number ${v.text}`);
        out[field] = n;
      }
    }
  }
  return out;
}

/** json.Decoder.Decode of the first JSON value (what follows it is not read). */
function decodeJson(data: Buffer): RawImagePolicyConfig {
  let bytes = data;
  const depth = scanJson(data.toString('utf8'));
  if (depth.depthError) throw new ImagePolicyConfigError(depth.depthError);
  // Ours, not kube's (10,000): Go's syntax check below recurses per level.
  if (depth.depth > maxYamlDepth) throw new ImagePolicyConfigError(`nesting deeper than ${maxYamlDepth} levels`);
  const scan = goJsonScan(data);
  if ('error' in scan) {
    if (scan.error === 'unexpected end of JSON input') throw new ImagePolicyConfigError('unexpected EOF');
    // The first value is complete: the decoder stops there.
    if (/ after top-level value$/.test(scan.error)) bytes = data.subarray(0, scan.offset - 1);
    else throw new ImagePolicyConfigError(`json: offset ${scan.offset}: ${scan.error}`);
  }
  return decodeDocument(parseJsonDoc(bytes.toString('utf8')), false);
}

/**
 * The first YAML document as apimachinery's YAMLReader frames it (lines up to a `---` line; a
 * separator followed by anything but a comment is an error), or undefined when there is none.
 */
function firstYamlDocument(text: string): string | undefined {
  let doc = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest !== '' && !rest.startsWith('#')) throw new ImagePolicyConfigError(`invalid Yaml document separator: ${rest}`);
      if (doc !== '') return doc;
      continue;
    }
    doc += line;
  }
  return doc === '' ? undefined : doc;
}

/** YAMLToJSONDecoder: the document converted to JSON by sigs.k8s.io/yaml, then decoded by encoding/json. */
function decodeYaml(text: string): RawImagePolicyConfig {
  const doc = firstYamlDocument(text);
  // The decoder found no document at all.
  if (doc === undefined) throw new ImagePolicyConfigError('EOF');
  let value: DocValue;
  try {
    value = docFromPlain(decodeConfigYaml(doc).value, maxYamlNodes);
  } catch (e) {
    if (e instanceof Error) throw new ImagePolicyConfigError(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  try {
    return decodeDocument(value, true);
  } catch (e) {
    if (e instanceof ImagePolicyConfigError) throw new ImagePolicyConfigError(`error unmarshaling JSON: while decoding JSON: ${e.message}`);
    throw e;
  }
}

/** Decodes a configuration's bytes (not normalized). Throws ImagePolicyConfigError with kube's message. */
export function decodeImagePolicyConfig(data: Buffer | string): RawImagePolicyConfig {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const text = bytes.toString('utf8');
  return JSON_START.test(text) ? decodeJson(bytes) : decodeYaml(text);
}

/**
 * The plugin's configuration from where the AdmissionConfiguration says it is: decoded and
 * normalized. Throws ImagePolicyConfigError: kube's `no config specified` without one, its read,
 * decode and bounds errors otherwise.
 */
export function loadImagePolicyConfig(source: ConfigSource | undefined): ImagePolicyConfig {
  if (!source) throw new ImagePolicyConfigError('no config specified');
  // A failed read: kube stops the server here (klog.Fatalf) naming the file.
  const data = readConfigSource(source, (e, file) => new ImagePolicyConfigError(`couldn't open admission plugin configuration ${file}: ${goPathError('open', file, e)}`));
  return normalizeImagePolicyConfig(decodeImagePolicyConfig(data));
}
