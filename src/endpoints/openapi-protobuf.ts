/**
 * /openapi/v2 in kube's protobuf form: the swagger JSON compiled into gnostic's openapi_v2.Document
 * (proto/github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto) as kube-openapi's ToProtoBinary
 * does with gnostic's compiler: document order kept, `x-` keys as vendor extensions whose values
 * (and every default/enum/example) are kept as YAML text, `$ref` as `_ref`, a parameter typed by
 * where it lives (body / query / path / header / formData), and proto3 defaults left out.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import * as protobuf from 'protobufjs';

type Json = Record<string, unknown>;

/** The media type kube-openapi answers protobuf requests with (the `@` spelling is accepted too). */
export const OPENAPI_V2_PROTOBUF_MEDIA_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const PROTO_FILE = 'github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto';

/** Encodes swagger 2.0 JSON documents as gnostic openapi_v2.Document bytes. Immutable once loaded. */
export class OpenApiV2Protobuf {
  private constructor(private readonly document: protobuf.Type) {}

  /** Loads the .proto from `protoDir` (default: proto/ at the package root). Throws Error if missing. */
  static async load(protoDir?: string): Promise<OpenApiV2Protobuf> {
    const dir = protoDir ?? path.join(await packageRoot(__dirname), 'proto');
    const root = await new protobuf.Root().load(path.join(dir, PROTO_FILE), { keepCase: true });
    root.resolveAll();
    return new OpenApiV2Protobuf(root.lookupType('openapi.v2.Document'));
  }

  /** The protobuf bytes of a swagger 2.0 document given as its served JSON. */
  encode(json: Buffer | Json): Buffer {
    const doc = Buffer.isBuffer(json) ? (JSON.parse(json.toString('utf8')) as Json) : json;
    const message = this.document.fromObject(gnosticDocument(doc));
    return Buffer.from(this.document.encode(message).finish());
  }

  /** Decodes bytes back to the plain gnostic message (snake_case fields): for tests and tools. */
  decode(bytes: Uint8Array): Json {
    return this.document.toObject(this.document.decode(bytes), { defaults: false, arrays: false }) as Json;
  }
}

async function packageRoot(start: string): Promise<string> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const ok = await Promise.all(['package.json', 'proto'].map((f) => fs.access(path.join(dir, f)).then(() => true, () => false)));
    if (ok.every(Boolean)) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package root with proto/ above ${start}`);
  }
}

// ---------------------------------------------------------------- JSON → gnostic

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && v !== 0 ? v : undefined);
const bool = (v: unknown): true | undefined => (v === true ? true : undefined);
const strs = (v: unknown): string[] | undefined => (Array.isArray(v) && v.length ? v.map(String) : undefined);
const list = <T>(v: T[]): T[] | undefined => (v.length ? v : undefined);

/** Drops undefined entries so protobufjs writes only what gnostic would (proto3: defaults omitted). */
function msg(fields: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

/** gnostic's Any: the value rendered as YAML (compiler.Marshal of the node). */
function any(v: unknown): Json | undefined {
  if (v === undefined) return undefined;
  return { yaml: yaml.dump(v, { lineWidth: -1, noRefs: true, quotingType: '"' }) };
}

function vendorExtensions(o: Json): Json[] | undefined {
  return list(Object.entries(o).filter(([k]) => k.startsWith('x-')).map(([name, v]) => ({ name, value: any(v) })));
}

function named<T>(o: unknown, f: (v: unknown) => T, keep: (k: string) => boolean = (k) => !k.startsWith('x-')): Json[] | undefined {
  if (!isObj(o)) return undefined;
  return list(Object.entries(o).filter(([k]) => keep(k)).map(([name, v]) => ({ name, value: f(v) })));
}

function externalDocs(v: unknown): Json | undefined {
  if (!isObj(v)) return undefined;
  return msg({ description: str(v.description), url: str(v.url), vendor_extension: vendorExtensions(v) });
}

function schema(v: unknown): Json {
  const s = isObj(v) ? v : {};
  const type = typeof s.type === 'string' ? [s.type] : strs(s.type);
  let items: Json | undefined;
  if (Array.isArray(s.items)) items = { schema: s.items.map(schema) };
  else if (isObj(s.items)) items = { schema: [schema(s.items)] };
  let additional: Json | undefined;
  if (typeof s.additionalProperties === 'boolean') additional = { boolean: s.additionalProperties };
  else if (isObj(s.additionalProperties)) additional = { schema: schema(s.additionalProperties) };
  return msg({
    _ref: str(s.$ref),
    format: str(s.format),
    title: str(s.title),
    description: str(s.description),
    default: any(s.default),
    multiple_of: num(s.multipleOf),
    maximum: num(s.maximum),
    exclusive_maximum: bool(s.exclusiveMaximum),
    minimum: num(s.minimum),
    exclusive_minimum: bool(s.exclusiveMinimum),
    max_length: num(s.maxLength),
    min_length: num(s.minLength),
    pattern: str(s.pattern),
    max_items: num(s.maxItems),
    min_items: num(s.minItems),
    unique_items: bool(s.uniqueItems),
    max_properties: num(s.maxProperties),
    min_properties: num(s.minProperties),
    required: strs(s.required),
    enum: Array.isArray(s.enum) ? list(s.enum.map((e) => any(e) as Json)) : undefined,
    additional_properties: additional,
    type: type ? { value: type } : undefined,
    items,
    all_of: Array.isArray(s.allOf) ? list(s.allOf.map(schema)) : undefined,
    properties: isObj(s.properties) ? msg({ additional_properties: named(s.properties, schema, () => true) }) : undefined,
    discriminator: str(s.discriminator),
    read_only: bool(s.readOnly),
    external_docs: externalDocs(s.externalDocs),
    example: any(s.example),
    vendor_extension: vendorExtensions(s),
  });
}

/** The validation keywords a non-body parameter shares with its items (gnostic field names). */
function primitiveFields(p: Json): Json {
  return {
    type: str(p.type),
    format: str(p.format),
    items: isObj(p.items) ? primitivesItems(p.items) : undefined,
    collection_format: str(p.collectionFormat),
    default: any(p.default),
    maximum: num(p.maximum),
    exclusive_maximum: bool(p.exclusiveMaximum),
    minimum: num(p.minimum),
    exclusive_minimum: bool(p.exclusiveMinimum),
    max_length: num(p.maxLength),
    min_length: num(p.minLength),
    pattern: str(p.pattern),
    max_items: num(p.maxItems),
    min_items: num(p.minItems),
    unique_items: bool(p.uniqueItems),
    enum: Array.isArray(p.enum) ? list(p.enum.map((e) => any(e) as Json)) : undefined,
    multiple_of: num(p.multipleOf),
    vendor_extension: vendorExtensions(p),
  };
}

function primitivesItems(p: Json): Json {
  return msg(primitiveFields(p));
}

function parametersItem(v: unknown): Json {
  const p = isObj(v) ? v : {};
  if (typeof p.$ref === 'string') return { json_reference: msg({ _ref: p.$ref, description: str(p.description) }) };
  const head = { required: bool(p.required), in: str(p.in), description: str(p.description), name: str(p.name) };
  if (p.in === 'body') {
    return { parameter: { body_parameter: msg({ description: head.description, name: head.name, in: head.in, required: head.required, schema: isObj(p.schema) ? schema(p.schema) : undefined, vendor_extension: vendorExtensions(p) }) } };
  }
  const kind = { query: 'query_parameter_sub_schema', path: 'path_parameter_sub_schema', header: 'header_parameter_sub_schema', formData: 'form_data_parameter_sub_schema' }[String(p.in)];
  const withEmpty = p.in === 'query' || p.in === 'formData' ? { allow_empty_value: bool(p.allowEmptyValue) } : {};
  return { parameter: { non_body_parameter: { [kind ?? 'query_parameter_sub_schema']: msg({ ...head, ...withEmpty, ...primitiveFields(p) }) } } };
}

function responses(v: unknown): Json | undefined {
  if (!isObj(v)) return undefined;
  const codes = named(v, (r) => {
    const o = isObj(r) ? r : {};
    if (typeof o.$ref === 'string') return { json_reference: msg({ _ref: o.$ref, description: str(o.description) }) };
    return {
      response: msg({
        description: str(o.description),
        schema: isObj(o.schema) ? (o.schema.type === 'file' ? { file_schema: msg({ type: 'file', description: str(o.schema.description) }) } : { schema: schema(o.schema) }) : undefined,
        vendor_extension: vendorExtensions(o),
      }),
    };
  });
  return msg({ response_code: codes, vendor_extension: vendorExtensions(v) });
}

function security(v: unknown): Json[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return list(v.map((req) => msg({ additional_properties: named(req, (scopes) => ({ value: Array.isArray(scopes) ? scopes.map(String) : [] }), () => true) })));
}

function operation(v: unknown): Json | undefined {
  if (!isObj(v)) return undefined;
  return msg({
    tags: strs(v.tags),
    summary: str(v.summary),
    description: str(v.description),
    external_docs: externalDocs(v.externalDocs),
    operation_id: str(v.operationId),
    produces: strs(v.produces),
    consumes: strs(v.consumes),
    parameters: Array.isArray(v.parameters) ? list(v.parameters.map(parametersItem)) : undefined,
    responses: responses(v.responses),
    schemes: strs(v.schemes),
    deprecated: bool(v.deprecated),
    security: security(v.security),
    vendor_extension: vendorExtensions(v),
  });
}

function pathItem(v: unknown): Json {
  const p = isObj(v) ? v : {};
  return msg({
    _ref: str(p.$ref),
    get: operation(p.get),
    put: operation(p.put),
    post: operation(p.post),
    delete: operation(p.delete),
    options: operation(p.options),
    head: operation(p.head),
    patch: operation(p.patch),
    parameters: Array.isArray(p.parameters) ? list(p.parameters.map(parametersItem)) : undefined,
    vendor_extension: vendorExtensions(p),
  });
}

function securityDefinition(v: unknown): Json {
  const d = isObj(v) ? v : {};
  const base = { type: str(d.type), description: str(d.description), vendor_extension: vendorExtensions(d) };
  if (d.type === 'apiKey') return { api_key_security: msg({ ...base, name: str(d.name), in: str(d.in) }) };
  if (d.type === 'basic') return { basic_authentication_security: msg(base) };
  const scopes = isObj(d.scopes) ? { additional_properties: named(d.scopes, (x) => String(x)) } : undefined;
  const oauth = { ...base, flow: str(d.flow), scopes, authorization_url: str(d.authorizationUrl), token_url: str(d.tokenUrl) };
  const key = { implicit: 'oauth2_implicit_security', password: 'oauth2_password_security', application: 'oauth2_application_security', accessCode: 'oauth2_access_code_security' }[String(d.flow)];
  return { [key ?? 'oauth2_implicit_security']: msg(oauth) };
}

/** The gnostic Document (as a protobufjs plain object) of a swagger 2.0 JSON document. */
export function gnosticDocument(d: Json): Json {
  const info = isObj(d.info) ? d.info : {};
  const paths = isObj(d.paths) ? d.paths : {};
  return msg({
    swagger: str(d.swagger),
    info: msg({ title: str(info.title), version: str(info.version), description: str(info.description), terms_of_service: str(info.termsOfService), vendor_extension: vendorExtensions(info) }),
    host: str(d.host),
    base_path: str(d.basePath),
    schemes: strs(d.schemes),
    consumes: strs(d.consumes),
    produces: strs(d.produces),
    paths: msg({ vendor_extension: vendorExtensions(paths), path: named(paths, pathItem, (k) => k.startsWith('/')) }),
    definitions: isObj(d.definitions) ? msg({ additional_properties: named(d.definitions, schema, () => true) }) : undefined,
    security: security(d.security),
    security_definitions: isObj(d.securityDefinitions) ? msg({ additional_properties: named(d.securityDefinitions, securityDefinition, () => true) }) : undefined,
    tags: Array.isArray(d.tags) ? list(d.tags.map((t) => (isObj(t) ? msg({ name: str(t.name), description: str(t.description), external_docs: externalDocs(t.externalDocs), vendor_extension: vendorExtensions(t) }) : {}))) : undefined,
    external_docs: externalDocs(d.externalDocs),
    vendor_extension: vendorExtensions(d),
  });
}
