/**
 * The merge types of server-side apply, deduced from OpenAPI v3 schemas the way kube-openapi's
 * schemaconv builds structured-merge-diff types: list types (atomic, set, map with keys; the
 * patch-strategy fallback), map types (granular or atomic), unknown-field handling and the
 * "deduced" type of free-form objects (maps granular, lists atomic).
 */

/**
 * The part of an OpenAPI v3 schema apply reads. The registry's openapi/ schemas satisfy it.
 */
export interface ApplySchema {
  type?: string;
  format?: string;
  default?: unknown;
  properties?: Record<string, ApplySchema>;
  additionalProperties?: ApplySchema | boolean;
  items?: ApplySchema;
  $ref?: string;
  allOf?: ApplySchema[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** Resolves a `$ref` (`#/components/schemas/<name>` or the bare name); undefined when unknown. */
export type ApplySchemaResolver = (ref: string) => ApplySchema | undefined;

export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'untyped';

/** A lazily resolved type (types are recursive). */
export type TypeRef = () => Atom;

export interface ListAtom {
  /** atomic: replaced as a whole; associative: items merged by keys (map) or by value (set). */
  readonly relationship: 'atomic' | 'associative';
  /** List-map keys; empty for a set. */
  readonly keys: readonly string[];
  readonly elem: TypeRef;
}

export interface FieldDef {
  readonly type: TypeRef;
  readonly default?: unknown;
}

export interface MapAtom {
  readonly atomic: boolean;
  /** Declared (struct) fields. */
  readonly fields: ReadonlyMap<string, FieldDef>;
  /** The type of other keys; undefined when other keys are not allowed ("field not declared in schema"). */
  readonly elem?: TypeRef;
}

/** smd schema.Atom: one or more of scalar, list, map (several for untyped values). */
export interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

const noFields: ReadonlyMap<string, FieldDef> = new Map();
const untypedRef: TypeRef = () => UNTYPED;
const deducedRef: TypeRef = () => DEDUCED;
/** smd's `__untyped_atomic_`: any value, lists and maps atomic. */
export const UNTYPED: Atom = Object.freeze<Atom>({
  scalar: 'untyped',
  list: { relationship: 'atomic', keys: [], elem: untypedRef },
  map: { atomic: true, fields: noFields, elem: untypedRef },
});
/** smd's `__untyped_deduced_`: any value, maps granular (keys tracked), lists atomic. */
export const DEDUCED: Atom = Object.freeze<Atom>({
  scalar: 'untyped',
  list: { relationship: 'atomic', keys: [], elem: untypedRef },
  map: { atomic: false, fields: noFields, elem: deducedRef },
});

// kube-openapi hardcodes these two as untyped scalars.
const UNTYPED_SCALAR_TYPES = new Set([
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
]);

const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * Compiles schemas into merge types, lazily and memoized per schema object. Build one per
 * resolver (per resource) and reuse it across requests; it holds no request state.
 */
export class ApplyTypes {
  private memo = [new WeakMap<ApplySchema, Atom>(), new WeakMap<ApplySchema, Atom>()];

  constructor(private readonly resolve: ApplySchemaResolver) {}

  /** Forgets every type compiled so far (the schemas changed at run time). */
  clear(): void {
    this.memo = [new WeakMap<ApplySchema, Atom>(), new WeakMap<ApplySchema, Atom>()];
  }

  /** The type of a top-level schema (e.g. the Secret schema). */
  root(schema: ApplySchema): TypeRef {
    return this.ref(schema, false);
  }

  private ref(s: ApplySchema, preserveUnknown: boolean): TypeRef {
    let cached: Atom | undefined;
    return () => (cached ??= this.atomOfRefSite(s, preserveUnknown));
  }

  private atomOfRefSite(s: ApplySchema, preserveUnknown: boolean): Atom {
    const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0]?.$ref : undefined);
    if (ref === undefined) return this.atom(s, preserveUnknown);
    const name = refName(ref);
    let atom: Atom;
    if (UNTYPED_SCALAR_TYPES.has(name)) atom = { scalar: 'untyped' };
    else {
      const target = this.resolve(ref);
      atom = target ? this.atom(target, preserveUnknown) : DEDUCED;
    }
    // A map-type marker at the reference site overrides the referenced type's.
    const mt = s['x-kubernetes-map-type'];
    if (atom.map && (mt === 'atomic' || mt === 'granular')) return { ...atom, map: { ...atom.map, atomic: mt === 'atomic' } };
    return atom;
  }

  private atom(s: ApplySchema, inherited: boolean): Atom {
    const preserveUnknown = inherited || s['x-kubernetes-preserve-unknown-fields'] === true;
    const memo = this.memo[preserveUnknown ? 1 : 0] as WeakMap<ApplySchema, Atom>;
    const hit = memo.get(s);
    if (hit) return hit;
    const atom = this.parse(s, preserveUnknown);
    memo.set(s, atom);
    return atom;
  }

  private parse(s: ApplySchema, preserveUnknown: boolean): Atom {
    switch (s.type ?? '') {
      case '':
        return { scalar: 'untyped', list: this.list(s, preserveUnknown), map: this.map(s, preserveUnknown) };
      case 'object':
        return { map: this.map(s, preserveUnknown) };
      case 'array':
        return { list: this.list(s, preserveUnknown) };
      case 'integer':
      case 'number':
        return { scalar: 'numeric' };
      case 'boolean':
        return { scalar: 'boolean' };
      case 'string':
        return { scalar: 'string' };
      default:
        return { scalar: 'untyped' };
    }
  }

  private map(s: ApplySchema, preserveUnknown: boolean): MapAtom {
    const fields = new Map<string, FieldDef>();
    for (const [name, member] of Object.entries(s.properties ?? {})) {
      fields.set(name, { type: this.ref(member, preserveUnknown), default: member.default });
    }
    const ap = s.additionalProperties;
    let elem: TypeRef | undefined;
    // An object without properties and additionalProperties is free-form.
    if (ap === undefined) elem = preserveUnknown || fields.size === 0 ? deducedRef : undefined;
    else if (ap === true) elem = deducedRef;
    else if (ap !== false) elem = this.ref(ap, preserveUnknown);
    return { atomic: s['x-kubernetes-map-type'] === 'atomic', fields, elem };
  }

  private list(s: ApplySchema, preserveUnknown: boolean): ListAtom {
    const elem = s.items ? this.ref(s.items, preserveUnknown) : untypedRef;
    const listType = s['x-kubernetes-list-type'];
    if (listType !== undefined) {
      if (listType === 'set') return { relationship: 'associative', keys: [], elem };
      if (listType === 'map') return { relationship: 'associative', keys: s['x-kubernetes-list-map-keys'] ?? [], elem };
      return { relationship: 'atomic', keys: [], elem };
    }
    // No list type: a merge patch strategy makes it a map keyed by the merge key (a set without one).
    const strategy = s['x-kubernetes-patch-strategy'];
    if (strategy === 'merge' || strategy === 'merge,retainKeys') {
      const key = s['x-kubernetes-patch-merge-key'];
      return { relationship: 'associative', keys: key ? [key] : [], elem };
    }
    return { relationship: 'atomic', keys: [], elem };
  }
}

/** smd deduceAtom: narrows a multi-kind atom to the kind of the value it meets. */
export function deduceAtom(atom: Atom, v: unknown): Atom {
  if (v === undefined || v === null) return atom;
  if (Array.isArray(v)) return atom.list ? { list: atom.list } : atom;
  if (typeof v === 'object') return atom.map ? { map: atom.map } : atom;
  return atom.scalar ? { scalar: atom.scalar } : atom;
}

/** The type of a map entry: its declared field type, else the element type. */
export function fieldType(map: MapAtom, key: string): TypeRef | undefined {
  return map.fields.get(key)?.type ?? map.elem;
}
