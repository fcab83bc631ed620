/**
 * SchemaRegistry: the schemas of openapi/ loaded once at startup — the one source for decoding,
 * merge rules, discovery and the served OpenAPI documents.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { KubeObject, errors } from '../../api';
import { DecodeNodeCompiler, StructNode } from './decode-node';
import { compileFastChecks, FastChecks } from './fast-check';
import { walkDecode } from './schema-decoder';
import { PruneMode, pruneUnknownFields } from './prune-unknown';
import { Schema, SchemaGVK, SchemaResolver, refName, schemaRef } from './types';

/** The result of decoding a request body. */
export interface DecodeResult {
  /**
   * The body as kube's Go decoder leaves it: unknown fields removed, JSON nulls dropped (or made
   * zero values inside maps and lists), base64 re-encoded canonically, quantities trimmed.
   * It is the input object itself when nothing had to change; the input is never mutated.
   */
  object: KubeObject;
  /** Strict-decoding paths of the dropped unknown fields (`spec.x`, `spec.items[0].foo`), in body order. */
  unknownFields: string[];
}

/** A document of openapi/: `{components: {schemas: {...}}}`. */
export interface SchemaDocument {
  components?: { schemas?: Record<string, Schema> };
}

/** openapi/ next to package.json, whether running from src/ (ts) or dist/src/ (js). */
async function defaultDir(): Promise<string> {
  const candidates = [path.resolve(__dirname, '../../../openapi'), path.resolve(__dirname, '../../../../openapi')];
  for (const dir of candidates) {
    try {
      await fs.access(path.join(dir, '..', 'package.json'));
      await fs.access(dir);
      return dir;
    } catch {
      // try the next layout
    }
  }
  throw new Error(`openapi: schema directory not found (looked in ${candidates.join(', ')})`);
}

export class SchemaRegistry {
  private readonly schemas: Map<string, Schema>;
  private decoders = new Map<string, StructNode>();
  private fast!: FastChecks;
  private sortedNames: string[] = [];
  /** Names added at run time (add): not in `source`, so other threads cannot load them. */
  private readonly added = new Set<string>();
  private readonly listeners: Array<() => void> = [];

  /**
   * The directory the schemas were read from (load), so another thread can load the same registry
   * (endpoints/body-worker.ts); undefined for a registry built from documents in memory.
   */
  source?: string;

  private constructor(schemas: Map<string, Schema>) {
    this.schemas = schemas;
    checkRefs(schemas);
    this.compile();
  }

  /** (Re)compiles the decoders and fast checks of every kind; the schemas' refs are checked already. */
  private compile(): void {
    const schemas = this.schemas;
    this.sortedNames = [...schemas.keys()].sort();
    const compiler = new DecodeNodeCompiler(this.resolve);
    const kinds = this.sortedNames.filter((n) => schemas.get(n)?.['x-kubernetes-group-version-kind'] && schemas.get(n)?.properties);
    const decoders = new Map<string, StructNode>();
    for (const kind of kinds) {
      const node = compiler.named(kind);
      if (node.kind === 'struct') decoders.set(kind, node);
    }
    this.decoders = decoders;
    this.fast = compileFastChecks(this.sortedNames, this.resolve, kinds);
  }

  /**
   * Adds schemas at run time (a resource whose types are not in openapi/, e.g. a custom resource):
   * from now on decoding, merge rules, discovery and the OpenAPI documents see them. Throws Error,
   * changing nothing, when a name is defined already or a `$ref` resolves nowhere.
   */
  add(doc: SchemaDocument): void {
    const entries = Object.entries(doc.components?.schemas ?? {});
    const next = new Map(this.schemas);
    for (const [name, schema] of entries) {
      if (next.has(name)) throw new Error(`openapi: schema ${name} is defined twice`);
      next.set(name, schema);
    }
    checkRefs(next);
    for (const [name, schema] of entries) {
      this.schemas.set(name, schema);
      this.added.add(name);
    }
    this.changed();
  }

  /**
   * Removes schemas added with add. Throws Error, changing nothing, for a name that was not added
   * at run time or one another schema still refers to.
   */
  remove(names: readonly string[]): void {
    this.checkRemove(names);
    for (const name of names) {
      this.schemas.delete(name);
      this.added.delete(name);
    }
    this.changed();
  }

  /** Whether remove(names) would succeed. */
  canRemove(names: readonly string[]): boolean {
    try {
      this.checkRemove(names);
      return true;
    } catch {
      return false;
    }
  }

  private checkRemove(names: readonly string[]): void {
    const next = new Map(this.schemas);
    for (const name of names) {
      if (!this.added.has(name)) throw new Error(`openapi: schema ${name} was not added at run time`);
      next.delete(name);
    }
    checkRefs(next);
  }

  /** Whether `name` was read from `source` (so another thread loading `source` has it too). */
  fromSource(name: string): boolean {
    return this.source !== undefined && this.schemas.has(name) && !this.added.has(name);
  }

  /** Called after every add and remove (caches derived from schemas drop what they hold). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    this.compile();
    for (const l of this.listeners) l();
  }

  /**
   * Reads every `*.json` document in `dir` (default: the package's openapi/ folder), merges their
   * components.schemas and compiles the decoders. Rejects on I/O or JSON errors, a schema name
   * defined twice, or a `$ref` that resolves nowhere.
   */
  static async load(dir?: string): Promise<SchemaRegistry> {
    const root = dir ?? (await defaultDir());
    const files = (await fs.readdir(root)).filter((f) => f.endsWith('.json')).sort();
    const docs: SchemaDocument[] = [];
    for (const f of files) {
      docs.push(JSON.parse(await fs.readFile(path.join(root, f), 'utf8')) as SchemaDocument);
    }
    const registry = SchemaRegistry.fromDocuments(docs);
    registry.source = root;
    return registry;
  }

  /** Builds a registry from already-parsed documents (same checks as load). */
  static fromDocuments(docs: SchemaDocument[]): SchemaRegistry {
    const schemas = new Map<string, Schema>();
    for (const doc of docs) {
      for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
        if (schemas.has(name)) throw new Error(`openapi: schema ${name} is defined twice`);
        schemas.set(name, s);
      }
    }
    return new SchemaRegistry(schemas);
  }

  /** The schema named `name` (a components.schemas key), or undefined. */
  get(name: string): Schema | undefined {
    return this.schemas.get(name);
  }

  /** The SchemaResolver over this registry: `#/components/schemas/<name>` or a bare name. */
  readonly resolve: SchemaResolver = (ref: string) => this.schemas.get(refName(ref));

  /** All schema names, sorted. */
  names(): string[] {
    return [...this.sortedNames];
  }

  /** The first `x-kubernetes-group-version-kind` of a schema (the kind it is served as), or undefined. */
  gvkOf(name: string): SchemaGVK | undefined {
    return this.schemas.get(name)?.['x-kubernetes-group-version-kind']?.[0];
  }

  /**
   * Decodes a create/update body into the Go type of `schemaName` the way kube's JSON decoder
   * does. Throws ApiError 400 BadRequest with kube's message
   * (`<Kind> in version "<v>" cannot be handled as a <Kind>: <decode error>`) on a type mismatch,
   * bad base64, a bad quantity or time; unknown fields are not an error here (the caller applies
   * fieldValidation to `unknownFields`). Throws Error for a schema that is not a served kind.
   */
  decode(schemaName: string, obj: unknown): DecodeResult {
    const node = this.decoders.get(schemaName);
    if (!node) throw new Error(`openapi: ${schemaName} is not a kind with a schema`);
    const fast = this.fast.get(schemaName);
    if (fast?.(obj)) return { object: obj as KubeObject, unknownFields: [] };
    const r = walkDecode(node, obj);
    if (r.error !== undefined) {
      const gvk = this.gvkOf(schemaName);
      const kind = gvk?.kind ?? node.structName;
      throw errors.badRequest(`${kind} in version "${gvk?.version ?? 'v1'}" cannot be handled as a ${kind}: ${r.error}`);
    }
    const object = r.value as KubeObject;
    if (node.fields.has('metadata') && object.metadata === undefined) object.metadata = {};
    return { object, unknownFields: r.unknownFields };
  }

  /**
   * Cuts the fields `schemaName` does not declare out of `body`, in place (prune-unknown.ts: what
   * each mode removes or replaces); returns the removed fields' strict-decoding paths. Throws Error
   * for a schema that is not a served kind.
   */
  pruneUnknown(schemaName: string, body: unknown, mode: PruneMode): string[] {
    const node = this.decoders.get(schemaName);
    if (!node) throw new Error(`openapi: ${schemaName} is not a kind with a schema`);
    return pruneUnknownFields(node, body, mode);
  }
}

/** Every `$ref` in every schema must name a schema of the registry. */
function checkRefs(schemas: ReadonlyMap<string, Schema>): void {
  const visit = (s: Schema, where: string): void => {
    const ref = schemaRef(s) ?? s.$ref;
    if (ref && !schemas.has(refName(ref))) throw new Error(`openapi: ${where} refers to unknown schema ${ref}`);
    for (const sub of s.allOf ?? []) visit(sub, where);
    for (const sub of s.oneOf ?? []) visit(sub, where);
    for (const [k, p] of Object.entries(s.properties ?? {})) visit(p, `${where}.${k}`);
    if (s.items) visit(s.items, where);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties, where);
  };
  for (const [name, s] of schemas) visit(s, name);
}
