/**
 * kube's protobuf wire form (`application/vnd.kubernetes.protobuf`) for the kinds we serve:
 * objects are the magic `k8s\0` + runtime.Unknown{typeMeta, raw}; watch streams are
 * length-prefixed metav1.WatchEvent frames. The server keeps objects in kube's JSON shape; this
 * codec translates both ways (apimachinery pkg/runtime/serializer/protobuf/protobuf.go).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as protobuf from 'protobufjs';
import { ApiError, errors, summarizeData } from '../../api';
import { ProtoWriter } from './proto-writer';
import { MessagePlan, ProtobufSchema, loadProtoRoot } from './protobuf-schema';
import { ProtoWireError, readMessage } from './proto-json-reader';
import { writeMessage } from './proto-json-writer';
import { PROTOBUF_KINDS, type ProtobufKind } from './protobuf-kinds';

/** The media type of protobuf requests and responses. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** The media type of a protobuf watch response. */
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';
/** The 4-byte prefix of every protobuf-encoded object: `k8s\0`. */
export const PROTOBUF_MAGIC: Buffer = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Whether `data` starts with kube's protobuf magic (byte compares: no view allocated per call). */
export function hasProtobufMagic(data: Buffer): boolean {
  return data.length >= 4 && data[0] === 0x6b && data[1] === 0x38 && data[2] === 0x73 && data[3] === 0x00;
}

const FRAME_PLACEHOLDER = new Uint8Array(4);

/** kube-apiserver's scheme name, as it appears in "no kind is registered" errors. */
const SCHEME_NAME = 'pkg/api/legacyscheme/scheme.go:30';

type Json = Record<string, unknown>;

/** A group version kind; `apiVersion` is the JSON form (`v1`, `apps/v1`). */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/** Options for {@link ProtobufCodec.decode}. */
export interface ProtobufDecodeOptions {
  /**
   * The kind the endpoint expects (kube's defaultGVK and `into`). When given, a missing kind or
   * version in the envelope is defaulted from it (copyKindDefaults), and error messages are worded
   * as kube's transformDecodeError words them for this kind.
   */
  into?: TypeMeta;
}

/** A decoded watch frame. */
export interface ProtobufWatchEvent {
  type: string;
  object: Json;
}

const tag = (id: number, wireType: number): number => ((id << 3) | wireType) >>> 0;

/**
 * Translates between kube's JSON object shape and kube's protobuf encoding. The kinds it knows are
 * the unversioned ones of protobuf-kinds.ts plus those the server adds as it installs resources
 * (each declaration names its message; registry/resource.ts protobufKindsOf).
 */
export class ProtobufCodec {
  private readonly byVersionKind = new Map<string, MessagePlan>();
  private readonly anyVersionKind = new Map<string, MessagePlan>();

  private constructor(private readonly schema: ProtobufSchema) {
    for (const row of PROTOBUF_KINDS) this.addKind(row);
  }

  /**
   * Parses the .proto files under `protoDir` (default: `proto/` at the package root, found from
   * this file's location so it works from src/ and dist/) and compiles the kinds of protobuf-kinds.ts
   * and `kinds`. Throws Error when a file fails to parse or a kind names a message that is not declared.
   */
  static async load(protoDir?: string, kinds: readonly ProtobufKind[] = []): Promise<ProtobufCodec> {
    const dir = protoDir ?? path.join(await findPackageRoot(__dirname), 'proto');
    const entries = await fs.readdir(dir, { recursive: true });
    const files = entries.filter((f) => f.endsWith('.proto')).sort().map((f) => path.join(dir, f));
    if (files.length === 0) throw new Error(`no .proto files under ${dir}`);
    const codec = new ProtobufCodec(new ProtobufSchema(await loadProtoRoot(dir, files)));
    for (const row of kinds) codec.addKind(row);
    return codec;
  }

  /**
   * Gives a kind its protobuf form from now on. Throws Error when the message is not declared in
   * proto/. A kind is never forgotten: values of a resource no longer served still decode (the
   * watch cache reads the whole keyspace), and nothing routes to it any more.
   */
  addKind(row: ProtobufKind): void {
    const plan = this.schema.plan(row.message);
    if (row.apiVersion === '*') this.anyVersionKind.set(row.kind, plan);
    else this.byVersionKind.set(`${row.apiVersion}/${row.kind}`, plan);
  }

  /** Whether proto/ declares `message` (addKind would accept a row naming it). */
  declares(message: string): boolean {
    try {
      this.schema.plan(message);
      return true;
    } catch {
      return false;
    }
  }

  /** True when objects of this apiVersion and kind have a protobuf form here. */
  supports(apiVersion: string, kind: string): boolean {
    return this.planFor(apiVersion, kind) !== undefined;
  }

  /**
   * Decodes a protobuf request body (magic + runtime.Unknown) into kube's JSON shape, with
   * `kind` and `apiVersion` from the envelope. Throws ApiError BadRequest for anything malformed,
   * for a missing kind/version, or for a kind this codec does not know.
   */
  decode(body: Buffer, options: ProtobufDecodeOptions = {}): Json {
    const fail = (message: string, gvk?: TypeMeta): ApiError => decodeError(message, body, gvk, options.into);
    if (body.length === 0) throw fail('empty data');
    if (!hasProtobufMagic(body)) {
      throw fail(`provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_MAGIC].join(' ')}]`);
    }
    if (body.length === PROTOBUF_MAGIC.length) throw fail('empty body');

    let unknown: DecodedUnknown;
    try {
      unknown = readUnknown(body.subarray(PROTOBUF_MAGIC.length));
    } catch (e) {
      throw fail(wireErrorMessage(e));
    }
    const actual = applyKindDefaults(unknown.typeMeta, options.into);
    const { apiVersion: av, kind: k } = unknown.typeMeta;
    const goTypeMeta = `runtime.TypeMeta{APIVersion:${JSON.stringify(av)}, Kind:${JSON.stringify(k)}}`;
    if (!actual.kind) throw fail(`Object 'Kind' is missing in '${goTypeMeta}'`, actual);
    if (!versionOf(actual.apiVersion)) throw fail(`Object 'apiVersion' is missing in '${goTypeMeta}'`, actual);
    const plan = this.planFor(actual.apiVersion, actual.kind);
    if (!plan) {
      const q = JSON.stringify;
      const msg = `no kind ${q(actual.kind)} is registered for version ${q(actual.apiVersion)} in scheme ${q(SCHEME_NAME)}`;
      throw fail(msg, actual);
    }
    let fields: Json;
    try {
      fields = readMessage(unknown.raw, plan);
    } catch (e) {
      throw fail(wireErrorMessage(e), actual);
    }
    return { kind: actual.kind, apiVersion: actual.apiVersion, ...fields };
  }

  /**
   * Encodes an object in kube's JSON shape as magic + runtime.Unknown{typeMeta, raw}. The object
   * must carry `apiVersion` and `kind`; list `items` are encoded as the item message (their own
   * kind/apiVersion are not part of the wire form). Throws ApiError NotAcceptable (kube's
   * errNotMarshalable) for a kind without a protobuf form, and Error for a malformed object.
   */
  encode(obj: Json): Buffer {
    const { apiVersion, kind } = obj;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) {
      throw new Error('protobuf encode: object has no apiVersion/kind');
    }
    const plan = this.planFor(apiVersion, kind);
    if (!plan) {
      throw errors.notAcceptableMessage(
        `object *${versionOf(apiVersion)}.${kind} does not implement the protobuf marshalling ` +
          'interface and cannot be encoded to a protobuf message',
      );
    }
    const w = new ProtoWriter();
    w.raw(PROTOBUF_MAGIC);
    w.tag(1, 2).fork(); // Unknown.typeMeta (runtime.TypeMeta: apiVersion = 1, kind = 2)
    w.tag(1, 2).string(apiVersion);
    w.tag(2, 2).string(kind);
    w.ldelim();
    w.tag(2, 2).fork(); // Unknown.raw
    writeMessage(w, plan, obj, kind);
    w.ldelim();
    // kube always writes contentEncoding = 3 and contentType = 4, empty.
    w.tag(3, 2).string('');
    w.tag(4, 2).string('');
    return w.finish();
  }

  /**
   * One frame of a `;stream=watch` response: 4-byte big-endian length, then a bare
   * metav1.WatchEvent{type = 1, object = 2: RawExtension{raw = 1}} whose raw is `objectBytes`
   * (a full {@link encode} output, magic included).
   */
  encodeWatchEvent(type: string, objectBytes: Buffer): Buffer {
    const w = new ProtoWriter(objectBytes.length + type.length + 24);
    w.raw(FRAME_PLACEHOLDER);
    w.tag(1, 2).string(type);
    w.tag(2, 2).fork();
    w.tag(1, 2).bytes(objectBytes);
    w.ldelim();
    const frame = w.finish();
    frame.writeUInt32BE(frame.length - 4, 0);
    return frame;
  }

  /**
   * Decodes one complete watch frame (length prefix included) back into its type and object.
   * Throws ApiError BadRequest when the frame or the object inside is malformed.
   */
  decodeWatchEvent(frame: Buffer): ProtobufWatchEvent {
    if (frame.length < 4 || frame.readUInt32BE(0) !== frame.length - 4) {
      throw errors.badRequest('watch frame length does not match its prefix');
    }
    let type = '';
    let raw: Buffer = Buffer.alloc(0);
    try {
      const r = protobuf.Reader.create(frame.subarray(4));
      while (r.pos < r.len) {
        const t = r.uint32();
        if (t === tag(1, 2)) type = Buffer.from(r.bytes()).toString('utf8');
        else if (t === tag(2, 2)) raw = readRawExtension(Buffer.from(r.bytes()));
        else r.skipType(t & 7);
      }
    } catch (e) {
      throw errors.badRequest(wireErrorMessage(e));
    }
    return { type, object: this.decode(raw) };
  }

  private planFor(apiVersion: string, kind: string): MessagePlan | undefined {
    return this.byVersionKind.get(`${apiVersion}/${kind}`) ?? this.anyVersionKind.get(kind);
  }
}

interface DecodedUnknown {
  typeMeta: TypeMeta;
  raw: Uint8Array;
}

/** Reads runtime.Unknown {typeMeta = 1, raw = 2, contentEncoding = 3, contentType = 4}. */
function readUnknown(bytes: Uint8Array): DecodedUnknown {
  const r = protobuf.Reader.create(bytes);
  const out: DecodedUnknown = { typeMeta: { apiVersion: '', kind: '' }, raw: new Uint8Array(0) };
  while (r.pos < r.len) {
    const t = r.uint32();
    const id = t >>> 3;
    const wireType = t & 7;
    if (wireType === 4) throw new ProtoWireError('proto: Unknown: wiretype end group for non-group');
    if (id <= 0) throw new ProtoWireError(`proto: Unknown: illegal tag ${id} (wire type ${wireType})`);
    if (id >= 1 && id <= 4 && wireType !== 2) {
      const goName = ['TypeMeta', 'Raw', 'ContentEncoding', 'ContentType'][id - 1] as string;
      throw new ProtoWireError(`proto: wrong wireType = ${wireType} for field ${goName}`);
    }
    if (id === 1) out.typeMeta = readRuntimeTypeMeta(r.bytes());
    else if (id === 2) out.raw = r.bytes();
    else if (id === 3 || id === 4) r.skip(r.uint32());
    else if (wireType > 5) throw new ProtoWireError(`proto: illegal wireType ${wireType}`);
    else r.skipType(wireType);
  }
  return out;
}

/** Reads runtime.TypeMeta {apiVersion = 1, kind = 2} (not metav1.TypeMeta's numbering). */
function readRuntimeTypeMeta(bytes: Uint8Array): TypeMeta {
  const r = protobuf.Reader.create(bytes);
  const out: TypeMeta = { apiVersion: '', kind: '' };
  while (r.pos < r.len) {
    const t = r.uint32();
    // r.bytes() throws on overrun (r.string() would silently truncate).
    if (t === tag(1, 2)) out.apiVersion = Buffer.from(r.bytes()).toString('utf8');
    else if (t === tag(2, 2)) out.kind = Buffer.from(r.bytes()).toString('utf8');
    else if ((t & 7) > 5 || (t & 7) === 4 || t >>> 3 === 0) {
      throw new ProtoWireError(`proto: TypeMeta: illegal tag ${t >>> 3} (wire type ${t & 7})`);
    }
    else r.skipType(t & 7);
  }
  return out;
}

function readRawExtension(bytes: Buffer): Buffer {
  const r = protobuf.Reader.create(bytes);
  let raw: Buffer = Buffer.alloc(0);
  while (r.pos < r.len) {
    const t = r.uint32();
    if (t === tag(1, 2)) raw = Buffer.from(r.bytes());
    else r.skipType(t & 7);
  }
  return raw;
}

/** The version part of an apiVersion (`v1` of `apps/v1`); '' when there is none. */
function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/** kube's copyKindDefaults: a missing kind, or a missing version (with its group), comes from `into`. */
function applyKindDefaults(actual: TypeMeta, into: TypeMeta | undefined): TypeMeta {
  if (!into) return actual;
  return {
    kind: actual.kind || into.kind,
    apiVersion: !versionOf(actual.apiVersion) && versionOf(into.apiVersion) ? into.apiVersion : actual.apiVersion,
  };
}

/** The message of a wire-level failure, as Go's unmarshallers word it. */
function wireErrorMessage(e: unknown): string {
  if (e instanceof ProtoWireError) return e.message;
  if (e instanceof RangeError) return 'unexpected EOF'; // protobufjs reader overrun
  if (e instanceof Error && /invalid varint/.test(e.message)) return 'proto: integer overflow';
  if (e instanceof Error && /invalid wire type (\d+)/.test(e.message)) {
    return `proto: illegal wireType ${/invalid wire type (\d+)/.exec(e.message)?.[1] ?? ''}`;
  }
  if (e instanceof ApiError) return e.message;
  throw e;
}

/**
 * A BadRequest for a body that does not decode. With `into`, worded as the apiserver's
 * transformDecodeError (handlers/rest.go): "<Kind> in version "<v>" cannot be handled as a <Into>: <err>"
 * when the body's kind is known, else "the object provided is unrecognized (must be of type <Into>):
 * <err> (<summary>)".
 */
function decodeError(message: string, body: Buffer, gvk: TypeMeta | undefined, into: TypeMeta | undefined): ApiError {
  if (!into) return errors.badRequest(message);
  if (gvk && gvk.kind) {
    return errors.badRequest(
      `${gvk.kind} in version ${JSON.stringify(versionOf(gvk.apiVersion))} cannot be handled as a ${into.kind}: ${message}`,
    );
  }
  return errors.badRequest(`the object provided is unrecognized (must be of type ${into.kind}): ${message} (${summarizeData(body, 30)})`);
}

/** The nearest ancestor of `start` holding both package.json and proto/. */
async function findPackageRoot(start: string): Promise<string> {
  let dir = start;
  for (;;) {
    const found = await Promise.all(
      ['package.json', 'proto'].map((f) => fs.access(path.join(dir, f)).then(() => true, () => false)),
    );
    if (found.every(Boolean)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package root with proto/ above ${start}`);
    dir = parent;
  }
}
