/**
 * Versioned configuration files (`--authentication-config`, `--authorization-config`,
 * `--admission-control-config-file`, `--encryption-provider-config`, an admission plugin's own
 * file, …): one loader, the way kube-apiserver reads each of them through a scheme's
 * UniversalDecoder.
 *
 *   bytes ─▶ JSON (first non-space `{`) or YAML ─▶ apiVersion/kind ─▶ registered version?
 *         ─▶ strict decode into that version's shape ─▶ defaults ─▶ convert to the internal type
 *         ─▶ expected kind? ─▶ validate (field.ErrorList) ─▶ internal value
 *
 * Every failure is one {@link ConfigFileError} whose message names the file and kube's own words
 * for the problem (which stay available as `problem.detail`):
 *
 * - `yaml: line 3: mapping values are not allowed in this context` (go-yaml),
 *   `couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value`;
 * - `Object 'Kind' is missing in '<file text>'`, `Object 'apiVersion' is missing in '<file text>'`;
 * - `no kind "Toy" is registered for version "example.config.k8s.io/v2" in scheme "<scheme>"`;
 * - `json: cannot unmarshal string into Go struct field ToySpec.spec.replicas of type int32`;
 * - `strict decoding error: unknown field "spec.foo", duplicate field "spec.size"` (JSON), and for
 *   YAML go-yaml's `yaml: unmarshal errors:\n  line 7: key "size" already set in map` first;
 * - `expected ToyConfiguration, got *example.OtherConfiguration`;
 * - validation: kube's aggregate of field errors, `spec.size: Invalid value: -1: must be positive`
 *   (several: `[a, b]`).
 *
 * A kind is declared once ({@link defineConfigKind}) with a shape per served version
 * ({@link configVersion}, shapes from {@link s}), and loaded with {@link loadConfig} /
 * {@link loadConfigFile}. Several kinds sharing one decoder, as a kube scheme does, form a
 * {@link ConfigScheme}.
 */
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { FieldError, aggregateMessages, fieldErrorString, goPathError } from '../api';
import { Shape, ShapeNode, strictDecode, zeroOf } from './config-decode';
import { KindDocumentError, readKindDocument, type KindDocument } from './kind-document';

export { s } from './config-decode';
export type { Decoded, Shape, StructOf } from './config-decode';

// ---- Declaring kinds ----

/** One served version of a kind: its shape, its defaults, its conversion to the internal type. */
export interface ConfigVersion<T> {
  readonly shape: ShapeNode;
  /** SetDefaults on the decoded versioned value (mutates it). */
  setDefaults?(versioned: unknown): void;
  /** Conversion to the internal type; a thrown Error's message is the decode error. */
  toInternal(versioned: unknown): T;
}

/**
 * A served version: `shape` decodes it strictly (its TypeScript type is `V`), `defaults` fills
 * what kube's SetDefaults_* fill (on the versioned value), `toInternal` converts (kube's
 * Convert_v1_X_To_apiserver_X).
 */
export function configVersion<V, T>(
  shape: Shape<V>,
  hooks: { defaults?: (versioned: V) => void; toInternal: (versioned: V) => T },
): ConfigVersion<T> {
  const { defaults, toInternal } = hooks;
  return {
    shape: shape.node,
    ...(defaults ? { setDefaults: (v: unknown) => defaults(v as V) } : {}),
    toInternal: (v: unknown) => toInternal(v as V),
  };
}

/** What went wrong loading a configuration file, before it is worded as a message. */
export interface ConfigProblem {
  stage: 'read' | 'decode' | 'validate';
  /** The kind the caller expected. */
  kind: string;
  path?: string;
  /** kube's own words for the problem (a Go os error, a decoder error, a validation aggregate). */
  detail: string;
  /** The validation errors (stage `validate`). */
  fieldErrors: FieldError[];
}

export interface ConfigKindSpec<T> {
  /** The API group of the kind's versions (`apiserver.config.k8s.io`). */
  group: string;
  kind: string;
  /**
   * Served versions, by version within `group` (`v1`, `v1beta1`), or by a whole apiVersion for a
   * version served under another group (`apiserver.k8s.io/v1alpha1`).
   */
  versions: Record<string, ConfigVersion<T>>;
  /** Validation of the internal value, kube's field.ErrorList (api/field-errors.ts). */
  validate?(config: T): FieldError[];
  /**
   * The scheme named in `no kind … is registered for version … in scheme "<name>"` when this kind
   * is loaded on its own (kube prints the Go file and line that built the scheme). Default: `group`.
   */
  scheme?: string;
  /** Go's `%T` of the internal value, for `expected X, got %T`. Default `*<group's first label>.<kind>`. */
  internalType?: string;
  /**
   * A file of zero bytes: `{ error }` fails with that detail (kube's authentication config:
   * `empty config data`); `{ version }` loads the empty object of that version, defaulted,
   * converted and validated (kube's authorization config). Default: decoded like any text, i.e.
   * `Object 'Kind' is missing in ''`.
   */
  emptyFile?: { error: string } | { version: string };
  /** Strict decoding (default true). False: unknown and repeated fields pass silently (kube's EncryptionConfiguration). */
  strict?: boolean;
  /** The message around a problem, to match a flag's kube wording. Default {@link defaultFileError}. */
  fileError?(problem: ConfigProblem): string;
}

/** A registered configuration kind (see {@link defineConfigKind}). */
export interface ConfigKind<T> extends Readonly<Omit<ConfigKindSpec<T>, 'versions'>> {
  readonly scheme: string;
  readonly internalType: string;
  readonly strict: boolean;
  /** Served versions by apiVersion (`group/version`). */
  readonly versions: ReadonlyMap<string, ConfigVersion<T>>;
}

/** Declares a configuration kind: the one registration a `--*-config` flag needs. */
export function defineConfigKind<T>(spec: ConfigKindSpec<T>): ConfigKind<T> {
  const versions = new Map<string, ConfigVersion<T>>();
  for (const [v, def] of Object.entries(spec.versions)) {
    const apiVersion = v.includes('/') ? v : spec.group === '' ? v : `${spec.group}/${v}`;
    if (def.shape.t !== 'struct') throw new Error(`${spec.kind} ${apiVersion}: a version's shape must be s.struct(...)`);
    versions.set(apiVersion, def);
  }
  return {
    ...spec,
    scheme: spec.scheme ?? spec.group,
    internalType: spec.internalType ?? `*${spec.group.split('.')[0] || 'core'}.${spec.kind}`,
    strict: spec.strict ?? true,
    versions,
  };
}

// ---- Decoding ----

/** A document kube's decoder refuses; `message` is kube's text, word for word where known. */
export class ConfigDecodeError extends Error {
  override readonly name = 'ConfigDecodeError';
}

/** A decoded, defaulted, converted (not yet validated) configuration. */
export interface DecodedConfig {
  kind: ConfigKind<unknown>;
  /** The apiVersion the file was written in. */
  apiVersion: string;
  /** The internal value. */
  config: unknown;
}

/** Kinds decoded by one decoder, as one kube scheme (runtime.NewScheme + AddToScheme) holds them. */
export class ConfigScheme {
  private readonly kinds: ConfigKind<unknown>[];

  /** `name` is what `no kind … is registered … in scheme "<name>"` prints. */
  constructor(
    readonly name: string,
    kinds: readonly ConfigKind<unknown>[],
  ) {
    this.kinds = [...kinds];
  }

  /** The registered kind serving `kind` at `apiVersion`, if any. */
  lookup(apiVersion: string, kind: string): { kind: ConfigKind<unknown>; version: ConfigVersion<unknown> } | undefined {
    for (const k of this.kinds) {
      if (k.kind !== kind) continue;
      const v = k.versions.get(apiVersion);
      if (v) return { kind: k, version: v };
    }
    return undefined;
  }

  /**
   * Decodes a configuration document as kube's UniversalDecoder over a strict codec factory does:
   * apiVersion/kind, strict decode, defaults, conversion. Throws ConfigDecodeError.
   */
  decode(data: string | Buffer): DecodedConfig {
    const text = typeof data === 'string' ? data : data.toString('utf8');
    let read: KindDocument;
    try {
      read = readKindDocument(text);
    } catch (e) {
      if (e instanceof KindDocumentError) throw new ConfigDecodeError(e.message);
      throw e;
    }
    const { doc, yamlDuplicates, kind } = read;
    const gv = { group: read.group, version: read.version };
    if (kind === '') throw new ConfigDecodeError(`Object 'Kind' is missing in '${text}'`);
    if (gv.version === '') throw new ConfigDecodeError(`Object 'apiVersion' is missing in '${text}'`);
    const gvString = gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
    const found = this.lookup(gvString, kind);
    if (!found) {
      if (gv.version === '__internal') {
        throw new ConfigDecodeError(`no kind "${kind}" is registered for the internal version of group "${gv.group}" in scheme "${this.name}"`);
      }
      throw new ConfigDecodeError(`no kind "${kind}" is registered for version "${gvString}" in scheme "${this.name}"`);
    }
    const { kind: k, version } = found;
    const decoded = strictDecode(version.shape, doc, ['apiVersion', 'kind']);
    if (decoded.error !== undefined) throw new ConfigDecodeError(decoded.error);
    const strict = k.strict ? [...(yamlDuplicates.length ? [`yaml: unmarshal errors:\n  ${yamlDuplicates.join('\n  ')}`] : []), ...decoded.strict] : [];
    const config = convert(version, decoded.value);
    if (strict.length) throw new ConfigDecodeError(`strict decoding error: ${strict.join(', ')}`);
    return { kind: k, apiVersion: gvString, config };
  }
}

/** Defaults and converts a decoded versioned value; a conversion's Error is the decode error. */
function convert<T>(version: ConfigVersion<T>, versioned: unknown): T {
  try {
    version.setDefaults?.(versioned);
    return version.toInternal(versioned);
  } catch (e) {
    throw new ConfigDecodeError(e instanceof Error ? e.message : String(e));
  }
}

// ---- Loading files ----

/** A configuration file that cannot be used; `problem` holds the parts of the message. */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
  constructor(
    message: string,
    readonly problem: ConfigProblem,
  ) {
    super(message);
  }
}

/** Where a configuration comes from: a file, or text (with the path it came from, for messages). */
export type ConfigSource = { path: string } | { text: string | Buffer; path?: string };

/**
 * The default wording: `failed to load <Kind> from file "<path>": <detail>` (read and decode),
 * `invalid <Kind> in file "<path>": <detail>` (validation); without a path, `failed to load
 * <Kind>: …` / `invalid <Kind>: …`.
 */
function defaultFileError(p: ConfigProblem): string {
  const where = p.path === undefined ? '' : ` ${p.stage === 'validate' ? 'in' : 'from'} file "${p.path}"`;
  return p.stage === 'validate' ? `invalid ${p.kind}${where}: ${p.detail}` : `failed to load ${p.kind}${where}: ${p.detail}`;
}

/**
 * The bytes of a configuration: its text, or its file read synchronously. A failed read throws
 * `readError(e, path)`, each caller wording it as its kube counterpart does (most with goPathError,
 * Go's *PathError text for a failed os.ReadFile: `open /x: no such file or directory`).
 */
export function readConfigSource(source: ConfigSource, readError: (e: unknown, path: string) => Error): string | Buffer {
  if ('text' in source) return source.text;
  try {
    return readFileSync(source.path);
  } catch (e) {
    throw readError(e, source.path);
  }
}

const ownSchemes = new WeakMap<ConfigKind<unknown>, ConfigScheme>();

function schemeFor(kind: ConfigKind<unknown>): ConfigScheme {
  let scheme = ownSchemes.get(kind);
  if (!scheme) ownSchemes.set(kind, (scheme = new ConfigScheme(kind.scheme, [kind])));
  return scheme;
}

export interface LoadConfigOptions {
  /** The scheme decoding the file (default: one holding only the expected kind). */
  scheme?: ConfigScheme;
}

function failure(kind: ConfigKind<unknown>, p: Omit<ConfigProblem, 'kind' | 'fieldErrors'> & { fieldErrors?: FieldError[] }): ConfigFileError {
  const problem: ConfigProblem = { kind: kind.kind, fieldErrors: [], ...p };
  return new ConfigFileError((kind.fileError ?? defaultFileError)(problem), problem);
}

/** Decodes, checks the kind of, and validates the bytes of one configuration file. */
function loadData<T>(data: string | Buffer, path: string | undefined, kind: ConfigKind<T>, opts: LoadConfigOptions): T {
  const k = kind as ConfigKind<unknown>;
  const at = path === undefined ? {} : { path };
  let config: unknown;
  try {
    if (data.length === 0 && kind.emptyFile) {
      if ('error' in kind.emptyFile) throw new ConfigDecodeError(kind.emptyFile.error);
      const apiVersion = kind.emptyFile.version.includes('/') ? kind.emptyFile.version : `${kind.group}/${kind.emptyFile.version}`;
      const version = kind.versions.get(apiVersion);
      if (!version) throw new Error(`${kind.kind}: emptyFile names a version not served: ${apiVersion}`);
      config = convert(version, zeroOf(version.shape));
    } else {
      const decoded = (opts.scheme ?? schemeFor(k)).decode(data);
      if (decoded.kind !== k) throw new ConfigDecodeError(`expected ${kind.kind}, got ${decoded.kind.internalType}`);
      config = decoded.config;
    }
  } catch (e) {
    if (e instanceof ConfigDecodeError) throw failure(k, { stage: 'decode', ...at, detail: e.message });
    throw e;
  }
  const errs = kind.validate?.(config as T) ?? [];
  if (errs.length) throw failure(k, { stage: 'validate', ...at, detail: aggregateMessages(errs.map(fieldErrorString)), fieldErrors: errs });
  return config as T;
}

/**
 * Loads a configuration of `kind` from a file or from text: the internal value, or a thrown
 * {@link ConfigFileError} naming the file and every problem found at the stage that failed.
 * Synchronous: startup flags, and the reloads of a running server (server/config-file-watch.ts reads
 * the file and passes its text).
 */
export function loadConfig<T>(source: ConfigSource, kind: ConfigKind<T>, opts: LoadConfigOptions = {}): T {
  const data = readConfigSource(source, (e, path) => failure(kind as ConfigKind<unknown>, { stage: 'read', path, detail: goPathError('open', path, e) }));
  return loadData(data, source.path, kind, opts);
}

/** {@link loadConfig} of a file, read without blocking the event loop. */
export async function loadConfigFile<T>(path: string, kind: ConfigKind<T>, opts: LoadConfigOptions = {}): Promise<T> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (e) {
    throw failure(kind as ConfigKind<unknown>, { stage: 'read', path, detail: goPathError('open', path, e) });
  }
  return loadData(data, path, kind, opts);
}
