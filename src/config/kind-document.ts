/**
 * What kube's JSON/YAML serializer (apimachinery runtime/serializer/json, behind a codec factory's
 * recognizing decoder) does with a document before it knows the type to decode into: JSON when
 * the text starts with `{` (Go's white space skipped), else YAML converted to JSON; then apiVersion
 * and kind read by SimpleMetaFactory.Interpret, and the apiVersion split by
 * schema.ParseGroupVersion. Shared by configuration files (versioned-config.ts) and the answers of
 * admission webhooks, which client-go decodes the same way.
 */
import { goJsonScan, scanJson, unmarshalTypeMessage } from '../api';
import { DocObject, DocValue, docFromPlain, jsonKind, parseJsonDoc } from './config-decode';
import { decodeConfigYaml, maxYamlDepth, maxYamlNodes } from './config-yaml';

/** A document the serializer cannot read a kind from; `message` is kube's text. */
export class KindDocumentError extends Error {
  override readonly name = 'KindDocumentError';
}

export interface KindDocument {
  /** The document as the serializer's JSON. */
  doc: DocValue;
  /** YAML only: go-yaml's repeated keys (for strict decoding), in its wording. */
  yamlDuplicates: string[];
  /** As written ('' when absent). */
  apiVersion: string;
  kind: string;
  /** apiVersion split. */
  group: string;
  version: string;
}

/** Go's type of the struct the serializer reads apiVersion and kind into (SimpleMetaFactory). */
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Go's unicode.IsSpace, which utilyaml.IsJSONBuffer trims before looking for `{`. */
const JSON_START = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*\{/;

/** SimpleMetaFactory.Interpret failing. */
const kindError = (why: string): KindDocumentError => new KindDocumentError(`couldn't get version/kind; json parse error: ${why}`);

/** The text as the JSON document the serializer works on, and (YAML) go-yaml's repeated keys. */
function readDocument(text: string): { doc: DocValue; yamlDuplicates: string[] } {
  if (JSON_START.test(text)) {
    const depth = scanJson(text);
    if (depth.depthError) throw kindError(depth.depthError);
    // Our limit, not kube's (10000): the decoders after this one recurse per level.
    if (depth.depth > maxYamlDepth) throw kindError(`nesting deeper than ${maxYamlDepth} levels`);
    const scan = goJsonScan(Buffer.from(text, 'utf8'));
    if ('error' in scan) throw kindError(scan.error);
    return { doc: parseJsonDoc(text), yamlDuplicates: [] };
  }
  try {
    const { value, duplicates } = decodeConfigYaml(text);
    return { doc: docFromPlain(value, maxYamlNodes), yamlDuplicates: duplicates };
  } catch (e) {
    // sigs.k8s.io/yaml's YAMLToJSON error, unwrapped as the serializer returns it.
    throw new KindDocumentError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * SimpleMetaFactory.Interpret: apiVersion and kind read by encoding/json (field names matched
 * case-insensitively, the last one winning), Go's error when either is not a string.
 */
function interpret(doc: DocValue): { apiVersion: string; kind: string } {
  const out = { apiVersion: '', kind: '' };
  if (doc === null) return out;
  if (!(doc instanceof DocObject)) throw kindError(unmarshalTypeMessage(jsonKind(doc), findKindType));
  let typeError: string | undefined;
  for (const [key, v] of doc.entries) {
    const lower = key.toLowerCase();
    const field = lower === 'apiversion' ? 'apiVersion' : lower === 'kind' ? 'kind' : undefined;
    if (!field || v === null) continue;
    if (typeof v === 'string') out[field] = v;
    else typeError ??= unmarshalTypeMessage(jsonKind(v), 'string', { struct: '', name: field });
  }
  if (typeError) throw kindError(typeError);
  return out;
}

/** schema.ParseGroupVersion. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  throw new KindDocumentError(`unexpected GroupVersion string: ${apiVersion}`);
}

/** The document and the kind it names, as the serializer reads them. Throws KindDocumentError. */
export function readKindDocument(text: string): KindDocument {
  const { doc, yamlDuplicates } = readDocument(text);
  const { apiVersion, kind } = interpret(doc);
  return { doc, yamlDuplicates, apiVersion, kind, ...parseGroupVersion(apiVersion) };
}
