/**
 * The served OpenAPI documents, built once from the resource table and the schema registry:
 * /openapi/v3 (discovery index + one OpenAPI 3.0 document per group version) and /openapi/v2
 * (swagger 2.0). Pure builders: no express, no I/O. Paths, operationIds, tags, actions and
 * parameters follow kube-apiserver's installer (apiserver endpoints/installer.go and
 * endpoints/openapi GetOperationIDAndTags); ETags follow kube-openapi handler3 (uppercase hex
 * SHA-512 of the JSON body; sent quoted).
 */
import { createHash } from 'node:crypto';
import type { ResourceDefinition, Verb } from '../registry/resource';
import { Schema, SchemaRegistry, refName, schemaRef } from '../registry/schema';
import { withoutEnums } from './openapi-enums';

/** One serialised document and its ETag (unquoted; the header value is `"<etag>"`). */
export interface OpenApiDocument {
  body: Buffer;
  etag: string;
}

/** The /openapi/v3 tree: the discovery index and the per-group-version documents. */
export interface OpenApiV3 {
  /** `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=<etag>"}, ...}}`. */
  index: { paths: Record<string, { serverRelativeURL: string }> };
  /** The index serialised, with its ETag. */
  indexDocument: OpenApiDocument;
  /** Keyed by the path under /openapi/v3/: "api", "api/v1", "apis", "apis/<group>", "apis/<group>/<version>". */
  docs: Map<string, OpenApiDocument>;
}

/** Options for the builders. */
export interface OpenApiOptions {
  /** info.version of each document (kube: the server's git version). Default "v1.32.0". */
  serverVersion?: string;
  /** Include the deprecated /watch/ paths kube still serves. Default true. */
  includeWatchPaths?: boolean;
  /** Gate OpenAPIEnums: keep the schemas' `enum`s (default true); false prunes them as kube does (openapi-enums.ts). */
  enums?: boolean;
}

type JsonObject = Record<string, unknown>;
type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'watch' | 'watchlist' | 'connect';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

interface Operation {
  method: Method;
  action: Action;
  operationId: string;
  description: string;
  params: Param[];
  /** Request body: the schema name and whether it is required; patch bodies list the patch types. */
  body?: { schema: string; required: boolean; patch?: boolean };
  /** HTTP status → response schema name (STRING: a bare string, what a stream answers). */
  responses: [string, string][];
  stream: boolean;
  /** The media types answered, when not the usual ones (connect subresources: any; pods/log: text/plain too). */
  produces?: string[];
  gvk?: { group: string; kind: string; version: string };
}

interface PathItem {
  path: string;
  params: Param[];
  ops: Operation[];
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const STATUS = `${META}Status`;
const WATCH_EVENT = `${META}WatchEvent`;
const DELETE_OPTIONS = `${META}DeleteOptions`;
const PATCH = `${META}Patch`;
const RESPONSE_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const STREAM_TYPES = [
  'application/json',
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'application/yaml',
];
const PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];
const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '401': 'Unauthorized' };
/** The response "schema" of a stream (kube's ProducesObject ""): `{type: string}`, not a reference. */
const STRING = '';
/** What a connect subresource answers (kube: ProducesMIMETypes `*\/*`), and pods/log (text/plain first). */
const CONNECT_TYPES = ['*/*'];
const LOG_TYPES = ['text/plain', ...RESPONSE_TYPES];

const q = (name: string, type: Param['type'], description: string): Param => ({ name, in: 'query', type, description });

/** Query parameters kube documents, with descriptions of our own. */
const P = {
  pretty: q('pretty', 'string', "If 'true', the response is indented for reading."),
  dryRun: q('dryRun', 'string', 'When set, the request is fully processed but nothing is persisted. The only accepted value is All; anything else is an error.'),
  fieldManager: q('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields. At most 128 printable characters.'),
  fieldManagerPatch: q('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields. At most 128 printable characters. Required for apply patches (application/apply-patch+yaml), optional for the other patch types.'),
  fieldValidation: q('fieldValidation', 'string', 'How to treat unknown or duplicate fields in the body: Ignore drops them silently; Warn (the default) drops them and returns one Warning header per field; Strict rejects the request with 400 listing them all.'),
  force: q('force', 'boolean', 'Apply patches only: take ownership of fields other managers own instead of failing with a conflict. Must be unset for other patch types.'),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events on a watch. The server decides when (and whether) to send them; ignored when not watching.'),
  continue: q('continue', 'string', 'The continue token of a previous page of this list, to fetch the next page. An expired token gives 410 Gone. Not supported with watch.'),
  fieldSelector: q('fieldSelector', 'string', 'Restricts the result to objects whose fields match this selector. Default: everything.'),
  labelSelector: q('labelSelector', 'string', 'Restricts the result to objects whose labels match this selector. Default: everything.'),
  limit: q('limit', 'integer', 'Maximum number of items to return. When more remain, the list metadata carries a continue token; pages together form one consistent snapshot. Not supported with watch.'),
  resourceVersion: q('resourceVersion', 'string', 'Constrains which resource versions the request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions. Default: unset.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: Exact or NotOlderThan. Should be set whenever resourceVersion is set on a list. Default: unset.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch=true, begin the stream with synthetic events for the current state of the collection, followed by a bookmark marking the end of that state. Requires resourceVersionMatch=NotOlderThan.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Time limit for the list or watch call, regardless of activity.'),
  watch: q('watch', 'boolean', 'Watch for changes to the selected objects and stream them as add, update and delete events. Give resourceVersion to start from a known point.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; a non-negative integer, 0 meaning immediately. When unset, the type\'s default applies.'),
  ignoreStoreReadError: q('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean', 'Delete an object that can no longer be read or decoded from storage, skipping finalizers and preconditions. Dangerous; needs the AllowUnsafeMalformedObjectDeletion feature and extra permission.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependents are orphaned. Cannot be combined with propagationPolicy.'),
  propagationPolicy: q('propagationPolicy', 'string', 'How dependents are garbage collected: Orphan, Background or Foreground. When unset, the finalizers on the object and the type\'s default decide.'),
};

const LIST_PARAMS = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_PARAMS = [P.dryRun, P.fieldManagerPatch, P.fieldValidation, P.force];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.orphanDependents, P.propagationPolicy];
const DELETECOLLECTION_PARAMS = [
  P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.ignoreStoreReadError, P.labelSelector, P.limit,
  P.orphanDependents, P.propagationPolicy, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds,
];

/** apiserver's ToValidOperationID: letters, '_' and (not first) digits kept; other runes start a capitalised word. */
function toOperationId(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (/[A-Za-z_]/.test(ch) || (i !== 0 && /[0-9]/.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
  }
  return out;
}

/** "core_v1", "apps_v1", "rbacAuthorization_v1" (kube: GetOperationIDAndTags). */
function groupTag(group: string, version: string): string {
  return `${toOperationId((group || 'core').replace(/\.k8s\.io$/, ''), false)}_${toOperationId(version, false)}`;
}

/** "CoreV1", "AppsV1", "RbacAuthorizationV1". */
function groupInfix(group: string, version: string): string {
  return toOperationId((group || 'core').replace(/\.k8s\.io$/, ''), true) + toOperationId(version, true);
}

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function title(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The path items kube's installer registers for one resource (and its subresources). */
function resourcePaths(def: ResourceDefinition, opts: Required<OpenApiOptions>): PathItem[] {
  const has = (v: Verb) => def.verbs.includes(v);
  const base = `/${gvPath(def.group, def.version)}`;
  const infix = groupInfix(def.group, def.version);
  const opId = (verb: string, rest: string) => `${verb}${infix}${rest}`;
  const gvk = { group: def.group, kind: def.kind, version: def.version };
  const ns = def.namespaced ? 'Namespaced' : '';
  const nsSeg = def.namespaced ? '/namespaces/{namespace}' : '';
  const nameParam: Param = { name: 'name', in: 'path', type: 'string', description: `Name of the ${def.kind}.`, required: true };
  const nsParam: Param = { name: 'namespace', in: 'path', type: 'string', description: 'Namespace of the object (the scope of names and access rules).', required: true };
  const scopeParams = def.namespaced ? [nsParam] : [];
  const op = (o: Omit<Operation, 'gvk' | 'stream'> & { stream?: boolean }): Operation => ({ stream: false, gvk, ...o });
  const items: PathItem[] = [];

  const collection: Operation[] = [];
  if (has('list')) {
    collection.push(op({ method: 'get', action: 'list', operationId: opId('list', `${ns}${def.kind}`), description: `List or watch ${def.kind} objects`, params: LIST_PARAMS, responses: [['200', def.schemaName.replace(/[^.]+$/, def.listKind)]], stream: true }));
  }
  if (has('create')) {
    collection.push(op({ method: 'post', action: 'post', operationId: opId('create', `${ns}${def.kind}`), description: `Create a ${def.kind}`, params: WRITE_PARAMS, body: { schema: def.schemaName, required: true }, responses: [['200', def.schemaName], ['201', def.schemaName], ['202', def.schemaName]] }));
  }
  if (has('deletecollection')) {
    collection.push(op({ method: 'delete', action: 'deletecollection', operationId: `delete${infix}Collection${ns}${def.kind}`, description: `Delete a collection of ${def.kind} objects`, params: DELETECOLLECTION_PARAMS, body: { schema: DELETE_OPTIONS, required: false }, responses: [['200', STATUS]] }));
  }
  if (collection.length) items.push({ path: `${base}${nsSeg}/${def.resource}`, params: [...scopeParams, P.pretty], ops: collection });

  const single: Operation[] = [];
  if (has('get')) single.push(op({ method: 'get', action: 'get', operationId: opId('read', `${ns}${def.kind}`), description: `Read the specified ${def.kind}`, params: [], responses: [['200', def.schemaName]] }));
  if (has('update')) single.push(op({ method: 'put', action: 'put', operationId: opId('replace', `${ns}${def.kind}`), description: `Replace the specified ${def.kind}`, params: WRITE_PARAMS, body: { schema: def.schemaName, required: true }, responses: [['200', def.schemaName], ['201', def.schemaName]] }));
  if (has('patch')) single.push(op({ method: 'patch', action: 'patch', operationId: opId('patch', `${ns}${def.kind}`), description: `Partially update the specified ${def.kind}`, params: PATCH_PARAMS, body: { schema: PATCH, required: true, patch: true }, responses: [['200', def.schemaName], ['201', def.schemaName]] }));
  if (has('delete')) {
    // kube documents the object only where the storage says so (resourcequotas), Status otherwise (namespaces too).
    const deleted = def.documentsDeletedObject ? def.schemaName : STATUS;
    single.push(op({ method: 'delete', action: 'delete', operationId: opId('delete', `${ns}${def.kind}`), description: `Delete a ${def.kind}`, params: DELETE_PARAMS, body: { schema: DELETE_OPTIONS, required: false }, responses: [['200', deleted], ['202', deleted]] }));
  }
  if (single.length) items.push({ path: `${base}${nsSeg}/${def.resource}/{name}`, params: [nameParam, ...scopeParams, P.pretty], ops: single });

  if (def.namespaced && has('list')) {
    items.push({ path: `${base}/${def.resource}`, params: [...LIST_PARAMS, P.pretty], ops: [op({ method: 'get', action: 'list', operationId: opId('list', `${def.kind}ForAllNamespaces`), description: `List or watch ${def.kind} objects across all namespaces`, params: [], responses: [['200', def.schemaName.replace(/[^.]+$/, def.listKind)]], stream: true })] });
  }
  if (opts.includeWatchPaths && has('watch')) {
    const watchParams = [...LIST_PARAMS, P.pretty];
    const watchOp = (action: Action, id: string, description: string) => op({ method: 'get', action, operationId: opId('watch', id), description, params: [], responses: [['200', WATCH_EVENT]], stream: true });
    items.push({ path: `${base}/watch${nsSeg}/${def.resource}`, params: [...scopeParams, ...watchParams], ops: [watchOp('watchlist', `${ns}${def.kind}List`, `Watch changes to a list of ${def.kind} objects. Deprecated: use the watch parameter of the list operation.`)] });
    items.push({ path: `${base}/watch${nsSeg}/${def.resource}/{name}`, params: [nameParam, ...scopeParams, ...watchParams], ops: [watchOp('watch', `${ns}${def.kind}`, `Watch changes to one ${def.kind}. Deprecated: use the watch parameter of the list operation with a metadata.name field selector.`)] });
    if (def.namespaced) {
      items.push({ path: `${base}/watch/${def.resource}`, params: watchParams, ops: [watchOp('watchlist', `${def.kind}ListForAllNamespaces`, `Watch changes to ${def.kind} objects across all namespaces. Deprecated: use the watch parameter of the list operation.`)] });
    }
  }

  for (const sub of def.subresources) {
    const S = title(sub.name);
    if (sub.connect) {
      items.push(...connectPaths(def, sub.name, sub.connect, { opId, ns, nsSeg, base, scopeParams }));
      continue;
    }
    const subHas = (v: Verb) => sub.verbs.includes(v);
    const ops: Operation[] = [];
    // kube's finalize subresource is PUT-only and lists its write parameters on the path.
    const pathLevelWrite = !subHas('get') && !subHas('patch');
    if (subHas('get')) ops.push(op({ method: 'get', action: 'get', operationId: opId('read', `${ns}${def.kind}${S}`), description: `Read ${sub.name} of the specified ${def.kind}`, params: [], responses: [['200', def.schemaName]] }));
    if (subHas('update')) ops.push(op({ method: 'put', action: 'put', operationId: opId('replace', `${ns}${def.kind}${S}`), description: `Replace ${sub.name} of the specified ${def.kind}`, params: pathLevelWrite ? [] : WRITE_PARAMS, body: { schema: def.schemaName, required: true }, responses: [['200', def.schemaName], ['201', def.schemaName]] }));
    if (subHas('patch')) ops.push(op({ method: 'patch', action: 'patch', operationId: opId('patch', `${ns}${def.kind}${S}`), description: `Partially update ${sub.name} of the specified ${def.kind}`, params: PATCH_PARAMS, body: { schema: PATCH, required: true, patch: true }, responses: [['200', def.schemaName], ['201', def.schemaName]] }));
    // An answered subresource (serviceaccounts/token): a POST of its own kind, answered with it.
    const a = sub.answer;
    if (a && subHas('create')) {
      const answerGvk = { group: a.group, kind: a.kind, version: a.version };
      ops.push({ ...op({ method: 'post', action: 'post', operationId: opId('create', `${ns}${def.kind}${S}`), description: `Create ${sub.name} of a ${def.kind}`, params: WRITE_PARAMS, body: { schema: a.schemaName, required: true }, responses: [['200', a.schemaName], ['201', a.schemaName], ['202', a.schemaName]] }), gvk: answerGvk });
    }
    if (!ops.length) continue;
    const params = pathLevelWrite ? [...WRITE_PARAMS, nameParam, ...scopeParams, P.pretty] : [nameParam, ...scopeParams, P.pretty];
    items.push({ path: `${base}${nsSeg}/${def.resource}/{name}/${sub.name}`, params: sortParams(params), ops });
  }
  return items;
}

/**
 * kube's installer for a connect subresource: a Connecter's one operation per method (action
 * `connect`, kind the options kind, any media type answered), twice for a subpath (`/{path}`,
 * operationId …WithPath); a GetterWithOptions (pods/log) a read of a string. The options are
 * query parameters of the path.
 */
function connectPaths(
  def: ResourceDefinition,
  name: string,
  connect: NonNullable<ResourceDefinition['subresources'][number]['connect']>,
  p: { opId: (verb: string, rest: string) => string; ns: string; nsSeg: string; base: string; scopeParams: Param[] },
): PathItem[] {
  const S = title(name);
  const path = `${p.base}${p.nsSeg}/${def.resource}/{name}/${name}`;
  const options = connect.parameters.map((x) => q(x.name, x.type, x.description));
  if (!connect.connecter) {
    const gvk = { group: def.group, kind: def.kind, version: def.version };
    const nameParam: Param = { name: 'name', in: 'path', type: 'string', description: `Name of the ${def.kind}.`, required: true };
    const op: Operation = { method: 'get', action: 'get', operationId: p.opId('read', `${p.ns}${def.kind}${S}`), description: `Read ${name} of the specified ${def.kind}`, params: [], responses: [['200', STRING]], stream: false, produces: LOG_TYPES, gvk };
    return [{ path, params: sortParams([...options, nameParam, ...p.scopeParams, P.pretty]), ops: [op] }];
  }
  const gvk = { group: def.group, kind: connect.kind, version: def.version };
  const nameParam: Param = { name: 'name', in: 'path', type: 'string', description: `Name of the ${connect.kind}.`, required: true };
  const ops = (withPath: string): Operation[] =>
    connect.methods.map((m) => ({
      method: m.toLowerCase() as Method,
      action: 'connect',
      operationId: p.opId('connect', `${title(m.toLowerCase())}${p.ns}${def.kind}${S}${withPath}`),
      description: `Connect ${m} requests to ${name} of the ${def.kind}`,
      params: [],
      responses: [['200', STRING]],
      stream: false,
      produces: CONNECT_TYPES,
      gvk,
    }));
  const items: PathItem[] = [{ path, params: sortParams([...options, nameParam, ...p.scopeParams]), ops: ops('') }];
  if (connect.subpath) {
    const subpathParam: Param = { name: 'path', in: 'path', type: 'string', description: 'The rest of the path, asked of the target.', required: true };
    items.push({ path: `${path}/{path}`, params: sortParams([...options, nameParam, ...p.scopeParams, subpathParam]), ops: ops('WithPath') });
  }
  return items;
}

function sortParams(ps: Param[]): Param[] {
  return [...ps].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `/api/v1/` or `/apis/<g>/<v>/`: the APIResourceList of the group version. */
function resourceListPath(group: string, version: string): PathItem {
  return {
    path: `/${gvPath(group, version)}/`,
    params: [],
    ops: [{ method: 'get', action: 'get', operationId: `get${groupInfix(group, version)}APIResources`, description: 'Get the resources of this group version', params: [], responses: [['200', `${META}APIResourceList`]], stream: false }],
  };
}

// ---------------------------------------------------------------- schemas

/** Names of the schemas reachable from `roots` through $ref (transitively), sorted. */
function reachable(roots: Iterable<string>, schemas: SchemaRegistry): string[] {
  const seen = new Set<string>();
  const stack = [...roots];
  const walk = (s: Schema): void => {
    const ref = schemaRef(s) ?? s.$ref;
    if (ref) stack.push(refName(ref));
    for (const sub of s.allOf ?? []) walk(sub);
    for (const sub of s.oneOf ?? []) walk(sub);
    for (const p of Object.values(s.properties ?? {})) walk(p);
    if (s.items) walk(s.items);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties);
  };
  while (stack.length) {
    const name = stack.pop() as string;
    if (seen.has(name)) continue;
    const s = schemas.get(name);
    if (!s) continue;
    seen.add(name);
    walk(s);
  }
  return [...seen].sort();
}

/** kube lists DeleteOptions and WatchEvent under every served group version. */
const SHARED_KINDS = new Set([DELETE_OPTIONS, WATCH_EVENT]);

function schemaFor(name: string, s: Schema, gvs: { group: string; version: string }[]): Schema {
  if (!SHARED_KINDS.has(name)) return s;
  const kind = name.slice(META.length);
  const list = [...(s['x-kubernetes-group-version-kind'] ?? [])];
  for (const gv of gvs) {
    if (!list.some((g) => g.group === gv.group && g.version === gv.version)) list.push({ group: gv.group, kind, version: gv.version });
  }
  list.sort((a, b) => (a.group + '/' + a.version < b.group + '/' + b.version ? -1 : 1));
  return { ...s, 'x-kubernetes-group-version-kind': list };
}

// ---------------------------------------------------------------- serialisation

/** JSON with object keys sorted (stable bytes → stable ETags; kube's published specs are sorted too). */
function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as JsonObject;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** kube-openapi's computeETag: uppercase hex SHA-512 of the served bytes. */
export function openApiETag(body: Buffer): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

function document(v: unknown): OpenApiDocument {
  const body = Buffer.from(stableStringify(v), 'utf8');
  return { body, etag: openApiETag(body) };
}

// ---------------------------------------------------------------- v3

const ref3 = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function param3(p: Param): JsonObject {
  const o: JsonObject = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) o.required = true;
  return o;
}

function operation3(o: Operation, tag: string): JsonObject {
  const out: JsonObject = { description: o.description, operationId: o.operationId, tags: [tag] };
  if (o.params.length) out.parameters = o.params.map(param3);
  if (o.body) {
    const types = o.body.patch ? PATCH_TYPES : ['*/*'];
    const content: JsonObject = {};
    for (const t of types) content[t] = { schema: ref3(o.body.schema) };
    out.requestBody = o.body.required ? { content, required: true } : { content };
  }
  const responses: JsonObject = {};
  for (const [code, schema] of o.responses) {
    const content: JsonObject = {};
    for (const t of o.produces ?? (o.stream ? STREAM_TYPES : RESPONSE_TYPES)) content[t] = { schema: schema === STRING ? { type: 'string' } : ref3(schema) };
    responses[code] = { description: STATUS_TEXT[code], content };
  }
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  if (o.gvk) {
    out['x-kubernetes-action'] = o.action;
    out['x-kubernetes-group-version-kind'] = o.gvk;
  }
  return out;
}

function referenced(items: PathItem[]): Set<string> {
  const names = new Set<string>();
  for (const item of items) {
    for (const o of item.ops) {
      if (o.body) names.add(o.body.schema);
      for (const [, s] of o.responses) if (s !== STRING) names.add(s);
    }
  }
  return names;
}

const SECURITY_SCHEMES = { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer token authentication' } };

function v3Document(items: PathItem[], tag: string, extraRoots: string[], schemas: SchemaRegistry, opts: Required<OpenApiOptions>, gvs: { group: string; version: string }[]): OpenApiDocument {
  const paths: JsonObject = {};
  for (const item of items) {
    const entry: JsonObject = {};
    if (item.params.length) entry.parameters = item.params.map(param3);
    for (const o of item.ops) entry[o.method] = operation3(o, tag);
    paths[item.path] = entry;
  }
  const comps: JsonObject = {};
  for (const name of reachable([...referenced(items), ...extraRoots], schemas)) {
    comps[name] = schemaFor(name, servedSchema(schemas, name, opts), gvs);
  }
  return document({
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: opts.serverVersion },
    paths,
    components: { schemas: comps, securitySchemes: SECURITY_SCHEMES },
  });
}

function withDefaults(opts?: OpenApiOptions): Required<OpenApiOptions> {
  return { serverVersion: opts?.serverVersion ?? 'v1.32.0', includeWatchPaths: opts?.includeWatchPaths ?? true, enums: opts?.enums ?? true };
}

/**
 * A named schema as the documents serve it: while OpenAPIEnums is off, the built-in schemas lose
 * their enums (kube rewrites only its compiled-in definitions; schemas added at run time, as a
 * custom resource's, keep theirs).
 */
function servedSchema(schemas: SchemaRegistry, name: string, opts: Required<OpenApiOptions>): Schema {
  const s = schemas.get(name) as Schema;
  return opts.enums || (schemas.source !== undefined && !schemas.fromSource(name)) ? s : withoutEnums(s);
}

function groupVersions(defs: ResourceDefinition[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const d of defs) seen.set(`${d.group}/${d.version}`, { group: d.group, version: d.version });
  return [...seen.values()];
}

/**
 * Builds /openapi/v3: one OpenAPI 3.0 document per served group version (every path and verb the
 * resource table serves, kube's operationIds, tags, x-kubernetes-action and
 * x-kubernetes-group-version-kind, and the schemas reachable from them), plus the root
 * documents "api", "apis" and "apis/<group>", and the discovery index pointing at each with
 * `?hash=<etag>`. Throws Error when a definition's schema is missing from the registry.
 */
export function buildOpenApiV3(defs: ResourceDefinition[], schemas: SchemaRegistry, options?: OpenApiOptions): OpenApiV3 {
  const opts = withDefaults(options);
  checkSchemas(defs, schemas);
  const gvs = groupVersions(defs);
  const docs = new Map<string, OpenApiDocument>();
  for (const gv of gvs) {
    const members = defs.filter((d) => d.group === gv.group && d.version === gv.version);
    const items = [resourceListPath(gv.group, gv.version), ...members.flatMap((d) => resourcePaths(d, opts))];
    docs.set(gvPath(gv.group, gv.version), v3Document(items, groupTag(gv.group, gv.version), [], schemas, opts, gvs));
  }
  // Root documents: /api/ (APIVersions), /apis/ (APIGroupList), /apis/<group>/ (APIGroup).
  const rootDoc = (path: string, operationId: string, tag: string, schema: string): OpenApiDocument =>
    v3Document([{ path, params: [], ops: [{ method: 'get', action: 'get', operationId, description: 'Get the available API versions', params: [], responses: [['200', schema]], stream: false }] }], tag, [], schemas, opts, gvs);
  if (gvs.some((gv) => gv.group === '')) docs.set('api', rootDoc('/api/', 'getCoreAPIVersions', 'core', `${META}APIVersions`));
  docs.set('apis', rootDoc('/apis/', 'getAPIVersions', 'apis', `${META}APIGroupList`));
  for (const group of new Set(gvs.map((gv) => gv.group).filter((g) => g !== ''))) {
    const name = toOperationId(group.replace(/\.k8s\.io$/, ''), true);
    docs.set(`apis/${group}`, rootDoc(`/apis/${group}/`, `get${name}APIGroup`, toOperationId(group.replace(/\.k8s\.io$/, ''), false), `${META}APIGroup`));
  }
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...docs.keys()].sort()) {
    const etag = (docs.get(key) as OpenApiDocument).etag;
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${etag}` };
  }
  const index = { paths };
  return { index, indexDocument: document(index), docs };
}

// ---------------------------------------------------------------- v2

/** OpenAPI v3 schema → swagger 2.0: `#/definitions/` refs, `allOf: [{$ref}]` collapsed to `$ref` with siblings. */
function toV2Schema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV2Schema);
  if (s === null || typeof s !== 'object') return s;
  const o = s as JsonObject;
  const out: JsonObject = {};
  const allOf = o.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && typeof (allOf[0] as JsonObject).$ref === 'string') {
    out.$ref = String((allOf[0] as JsonObject).$ref).replace('#/components/schemas/', '#/definitions/');
  }
  for (const [k, v] of Object.entries(o)) {
    if (k === 'allOf' && out.$ref) continue;
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace('#/components/schemas/', '#/definitions/');
    else if (k === 'oneOf') continue; // swagger 2.0 has no oneOf (kube publishes Quantity as type string)
    else out[k] = toV2Schema(v);
  }
  if (Array.isArray(o.oneOf) && !out.type) {
    out.type = 'string';
    if (o.format === undefined && (o.oneOf as JsonObject[]).some((x) => x.type === 'integer')) out.format = 'int-or-string';
  }
  return out;
}

function param2(p: Param): JsonObject {
  const o: JsonObject = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) o.required = true;
  return o;
}

function operation2(o: Operation, tag: string): JsonObject {
  const out: JsonObject = {
    description: o.description,
    consumes: o.body?.patch ? PATCH_TYPES : ['*/*'],
    produces: o.produces ?? (o.stream ? STREAM_TYPES : RESPONSE_TYPES),
    schemes: ['https'],
    tags: [tag],
    operationId: o.operationId,
  };
  const params: JsonObject[] = [];
  if (o.body) {
    const body: JsonObject = { name: 'body', in: 'body', schema: { $ref: `#/definitions/${o.body.schema}` } };
    if (o.body.required) body.required = true;
    params.push(body);
  }
  params.push(...o.params.map(param2));
  if (params.length) out.parameters = params;
  const responses: JsonObject = {};
  for (const [code, schema] of o.responses) responses[code] = { description: STATUS_TEXT[code], schema: schema === STRING ? { type: 'string' } : { $ref: `#/definitions/${schema}` } };
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  if (o.gvk) {
    out['x-kubernetes-action'] = o.action;
    out['x-kubernetes-group-version-kind'] = o.gvk;
  }
  return out;
}

/**
 * Builds /openapi/v2: one swagger 2.0 document with every served path of every group version and
 * the schemas they reach under `definitions`. Throws Error when a definition's schema is missing.
 */
export function buildOpenApiV2(defs: ResourceDefinition[], schemas: SchemaRegistry, options?: OpenApiOptions): OpenApiDocument {
  const opts = withDefaults(options);
  checkSchemas(defs, schemas);
  const gvs = groupVersions(defs);
  const paths: JsonObject = {};
  const roots = new Set<string>();
  for (const gv of gvs) {
    const members = defs.filter((d) => d.group === gv.group && d.version === gv.version);
    const items = [resourceListPath(gv.group, gv.version), ...members.flatMap((d) => resourcePaths(d, opts))];
    const tag = groupTag(gv.group, gv.version);
    for (const item of items) {
      const entry: JsonObject = {};
      for (const o of item.ops) entry[o.method] = operation2(o, tag);
      if (item.params.length) entry.parameters = item.params.map(param2);
      paths[item.path] = entry;
    }
    for (const n of referenced(items)) roots.add(n);
  }
  const definitions: JsonObject = {};
  for (const name of reachable(roots, schemas)) definitions[name] = toV2Schema(schemaFor(name, servedSchema(schemas, name, opts), gvs));
  return document({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: opts.serverVersion },
    paths,
    definitions,
    securityDefinitions: SECURITY_SCHEMES,
    security: [{ BearerToken: [] }],
  });
}

function checkSchemas(defs: ResourceDefinition[], schemas: SchemaRegistry): void {
  for (const d of defs) {
    const listName = d.schemaName.replace(/[^.]+$/, d.listKind);
    for (const n of [d.schemaName, listName]) {
      if (!schemas.get(n)) throw new Error(`openapi: no schema ${n} for ${d.resource}`);
    }
  }
}
