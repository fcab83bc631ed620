/** Request body decoding (JSON/YAML) and response encoding, with kube's key order and trailing newline. */
import * as yaml from 'js-yaml';
import { YamlError } from './yaml-decode';
import { decodeYamlAsync, type BodyDecoded, type PruneTarget } from './body-worker';
import { errors, isObject, parseJsonBounded, stringifyJson, summarizeData } from '../api';
import { type OutputFormat, supportedMediaTypes } from './negotiation';

/** The protobuf codec as the endpoints use it (storage/codec/protobuf-codec.ts implements it). */
export interface ProtobufSerializer {
  supports(apiVersion: string, kind: string): boolean;
  /** `into` names the kind the endpoint expects (fills a missing kind, words errors as kube). */
  decode(body: Buffer, opts?: { into?: { apiVersion: string; kind: string } }): Record<string, unknown>;
  encode(obj: Record<string, unknown>): Buffer;
  encodeWatchEvent(type: string, objectBytes: Buffer): Buffer;
}

/**
 * The CBOR codec as the endpoints use it (storage/codec/cbor-codec.ts implements it); present only
 * while CBORServingAndStorage is on.
 */
export interface CborSerializer {
  /** Self-described CBOR of one object, list or Status. */
  encode(obj: Record<string, unknown>): Buffer;
  /** One item of an `application/cbor-seq` watch stream; `objectBytes` is encode(object). */
  encodeWatchEvent(type: string, objectBytes: Buffer): Buffer;
  /** One CBOR item → kube's JSON shape; throws (any Error) when the body is not acceptable CBOR. */
  decode(body: Buffer): unknown;
}

/** Parses a request body; undecodable input is a 400 naming the expected kind as kube does. */
export async function decodeBody(
  body: Buffer,
  format: OutputFormat,
  expectedKind: string,
  protobuf?: ProtobufSerializer,
  expectedApiVersion = 'v1',
  cbor?: CborSerializer,
): Promise<unknown> {
  if (format === 'yaml') return (await decodeYamlBody(body, expectedKind)).value;
  return decodeBodySync(body, format, expectedKind, protobuf, expectedApiVersion, cbor);
}

/**
 * decodeBody for every format but YAML (whose large bodies are decoded off the event loop: use
 * decodeYamlBody): synchronous, so a small write's decode costs no promise.
 */
export function decodeBodySync(
  body: Buffer,
  format: Exclude<OutputFormat, 'yaml'>,
  expectedKind: string,
  protobuf?: ProtobufSerializer,
  expectedApiVersion = 'v1',
  cbor?: CborSerializer,
): unknown {
  if (format === 'protobuf') {
    if (!protobuf) throw errors.unsupportedMediaType(supportedMediaTypes({ cbor: !!cbor, protobuf: false }));
    return protobuf.decode(body, { into: { apiVersion: expectedApiVersion, kind: expectedKind } });
  }
  if (format === 'cbor') {
    if (!cbor) throw errors.unsupportedMediaType(supportedMediaTypes({ protobuf: !!protobuf }));
    try {
      const v = cbor.decode(body);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        throw new Error(`cbor: cannot unmarshal ${Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'string' ? 'byte string' : typeof v === 'number' ? 'integer' : 'primitives'} into Go value of type v1.TypeMeta`);
      }
      return v;
    } catch (e) {
      // kube: the CBOR meta factory cannot read apiVersion/kind, worded by transformDecodeError.
      throw errors.badRequest(
        `the object provided is unrecognized (must be of type ${expectedKind}): unable to determine group/version/kind: ${(e as Error).message} (${summarizeData(body)})`,
      );
    }
  }
  const text = body.toString('utf8');
  try {
    // Go's decoder refuses nesting past 10000 levels (json-depth.ts); V8's parser would not.
    return parseJsonBounded(text);
  } catch (e) {
    const why = `json parse error: ${(e as Error).message}`;
    throw errors.badRequest(
      `the object provided is unrecognized (must be of type ${expectedKind}): couldn't get version/kind; ${why} (${summarizeData(body)})`,
    );
  }
}

/**
 * A create/update YAML body: its value and repeated keys (yaml-decode.ts). What go-yaml refuses is
 * 400 with its error as kube's YAML serializer returns it, before any version/kind is read.
 * Large and deep bodies are decoded off the event loop (body-worker.ts).
 */
export async function decodeYamlBody(body: Buffer, expectedKind: string, signal?: AbortSignal, prune?: PruneTarget): Promise<BodyDecoded> {
  try {
    return await decodeYamlAsync(body.toString('utf8'), signal, prune);
  } catch (e) {
    if (!(e instanceof YamlError)) throw e;
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${expectedKind}): ${e.message} (${summarizeData(body)})`);
  }
}

/** Puts kind, apiVersion and metadata first, as Go's struct order does. */
export function orderTopLevel(obj: unknown): unknown {
  if (!isObject(obj)) return obj;
  const out: Record<string, unknown> = {};
  for (const k of ['kind', 'apiVersion', 'metadata']) if (k in obj) out[k] = obj[k];
  for (const [k, v] of Object.entries(obj)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * Encodes a response body in the negotiated format: JSON (kube's key order, trailing newline,
 * indented when pretty), YAML, protobuf or CBOR (when their serializer is given; else JSON).
 */
export function encodeBody(obj: unknown, format: OutputFormat, pretty: boolean, protobuf?: ProtobufSerializer, cbor?: CborSerializer): Buffer {
  if (format === 'protobuf' && protobuf) return protobuf.encode(obj as Record<string, unknown>);
  if (format === 'cbor' && cbor) return cbor.encode(obj as Record<string, unknown>);
  const ordered = orderTopLevel(obj);
  // go-yaml (sigs.k8s.io/yaml) double-quotes the strings it must quote, e.g. timestamps and numbers.
  if (format === 'yaml') return Buffer.from(yaml.dump(ordered, { noRefs: true, lineWidth: -1, sortKeys: false, quotingType: '"' }));
  return Buffer.from((pretty ? JSON.stringify(ordered, null, 2) : stringifyJson(ordered)) + '\n');
}
