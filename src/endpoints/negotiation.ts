/** Content negotiation: Accept / Content-Type parsing and the media types we serve. */
import { errors } from '../api';

export interface MediaType {
  type: string; // e.g. application/json
  params: Record<string, string>;
  q: number;
}

/**
 * An Accept header as kube reads it (goautoneg.ParseAccept): comma-separated clauses, each
 * `type/subtype` or a bare `*`, with `;` parameters; nothing is lowercased or unquoted, `q` is read
 * as Go's ParseFloat reads it (0 when unreadable), other malformed clauses are dropped. The
 * clauses are then ordered as Go's sort.Sort orders them under goautoneg's comparison ("a before
 * b" when a has the higher q, or a specific type or subtype where b has a wildcard): for the dozen
 * clauses or fewer of any real header that sort is an insertion sort, done here step for step.
 * An empty header accepts anything.
 */
export function parseAccept(header: string | undefined): readonly MediaType[] {
  const key = header ?? '';
  const known = parsedAccepts.get(key);
  if (known) return known;
  const parsed = parseAcceptText(key);
  if (key.length > maxMemoAcceptChars) return parsed;
  // Clients send a handful of distinct headers; a flood of others only empties the memo.
  if (parsedAccepts.size >= maxParsedAccepts) parsedAccepts.clear();
  parsedAccepts.set(key, parsed);
  return parsed;
}

/** parseAccept's answers by header text (short ones), shared by every caller (none changes them). */
const parsedAccepts = new Map<string, readonly MediaType[]>();
const maxParsedAccepts = 64;
const maxMemoAcceptChars = 512;

function parseAcceptText(header: string): MediaType[] {
  const text = header.trim();
  if (!text) return [{ type: '*/*', params: {}, q: 1 }];
  const clauses: Array<MediaType & { main: string; sub: string }> = [];
  for (const part of text.split(',')) {
    const [range = '', ...paramParts] = trimSpaces(part).split(';');
    const sp = range.split('/');
    const main = trimSpaces(sp[0] ?? '');
    let sub: string;
    if (sp.length === 1 && main === '*') sub = '*';
    else if (sp.length === 2) sub = trimSpaces(sp[1] ?? '');
    else continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const param of paramParts) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const token = trimSpaces(param.slice(0, eq));
      if (token === 'q') q = goParseFloat32(param.slice(eq + 1));
      else params[token] = trimSpaces(param.slice(eq + 1));
    }
    clauses.push({ type: `${main}/${sub}`, params, q, main, sub });
  }
  const before = (a: (typeof clauses)[number], b: (typeof clauses)[number]): boolean =>
    a.q > b.q || (a.main !== '*' && b.main === '*') || (a.sub !== '*' && b.sub === '*');
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && before(clauses[j] as (typeof clauses)[number], clauses[j - 1] as (typeof clauses)[number]); j--) {
      [clauses[j - 1], clauses[j]] = [clauses[j] as (typeof clauses)[number], clauses[j - 1] as (typeof clauses)[number]];
    }
  }
  return clauses.map(({ type, params, q }) => ({ type, params, q }));
}

/** Go's strings.Trim(s, " "): spaces only. */
function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/** strconv.ParseFloat(s, 32) as goautoneg uses it: decimal or inf/nan forms, untrimmed; 0 when it fails. */
function goParseFloat32(s: string): number {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Math.fround(Number(s));
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return Number.NaN;
  return 0;
}

/** A Content-Type value (type lowercased, quotes removed from parameter values), or null when empty. */
export function parseMediaType(s: string): MediaType | null {
  const [typePart, ...paramParts] = s.split(';');
  const type = (typePart ?? '').trim().toLowerCase();
  if (!type) return null;
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of paramParts) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (k === 'q') q = Number(v);
    else params[k] = v;
  }
  return { type, params, q: Number.isFinite(q) ? q : 0 };
}

export type OutputFormat = 'json' | 'yaml' | 'protobuf' | 'cbor';

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
/** CBOR (alpha, gate CBORServingAndStorage): single items; watches answer `application/cbor-seq`. */
export const cborMediaType = 'application/cbor';
export const cborSeqMediaType = 'application/cbor-seq';

export interface ResponseTarget {
  format: OutputFormat;
  contentType: string;
  /** Table / PartialObjectMetadata conversions requested with `as=`. */
  as?: { kind: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList'; version: string };
  /** The accepted media type carried `pretty=1`. */
  pretty?: boolean;
}

const goTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * kube's isPrettyPrint: the first `pretty` query value, read as Go's strconv.ParseBool (anything
 * else is false), when present and non-empty; otherwise whether the User-Agent is curl, Wget or a
 * browser, which get indented JSON by default.
 */
export function isPrettyPrint(pretty: unknown, userAgent: string | undefined): boolean {
  const first = Array.isArray(pretty) ? pretty[0] : pretty;
  if (typeof first === 'string' && first !== '') return goTrue.has(first);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

// kube's SupportedMediaTypes order: JSON, YAML, protobuf, then CBOR when its gate is on.
const serializers: Array<{ type: string; format: OutputFormat }> = [
  { type: 'application/json', format: 'json' },
  { type: 'application/yaml', format: 'yaml' },
  { type: protobufMediaType, format: 'protobuf' },
  { type: cborMediaType, format: 'cbor' },
];

/** The media types a 406/415 lists with CBOR off (kube lists them whether or not the kind has protobuf). */
export const acceptedMediaTypes = serializers.filter((s) => s.format !== 'cbor').map((s) => s.type);

/** The media types listed in 406/415 Status messages: protobuf unless the kind has no protobuf form, CBOR while its gate is on. */
export function supportedMediaTypes(opts: { cbor?: boolean; protobuf?: boolean } = {}): string[] {
  return serializers.filter((s) => (s.format !== 'cbor' || opts.cbor) && (s.format !== 'protobuf' || opts.protobuf !== false)).map((s) => s.type);
}

function matchSerializer(type: string, cbor: boolean): (typeof serializers)[number] | undefined {
  if (type === '*/*' || type === 'application/*') return serializers[0];
  // With the gate off, application/cbor is as unknown as any other type.
  return serializers.find((s) => s.type === type && (cbor || s.format !== 'cbor'));
}

/** What an endpoint can produce for the requested kind. */
export interface NegotiateOptions {
  allowTable: boolean;
  /** The kind (and its list) has a protobuf form. */
  protobuf: boolean;
  /** CBOR is served (CBORServingAndStorage on). */
  cbor?: boolean;
}

/**
 * Chooses the response type for an API object. `as=Table` and friends are honoured when
 * `g=meta.k8s.io` and a known version are given; other `as=` requests are skipped (the next
 * entry wins). Protobuf only where the kind has a protobuf form (Table never has). 406 when
 * nothing matches.
 */
export function negotiateObject(accept: string | undefined, opts: NegotiateOptions): ResponseTarget {
  const cbor = opts.cbor ?? false;
  // kube ignores q here beyond the order: even a q=0 clause is served.
  for (const m of parseAccept(accept)) {
    const s = matchSerializer(m.type, cbor);
    if (!s) continue;
    if (s.format === 'protobuf' && !opts.protobuf) continue;
    const as = m.params.as;
    const pretty = m.params.pretty === '1' ? { pretty: true } : {};
    if (!as) {
      if (m.params.g || m.params.v) continue;
      return { format: s.format, contentType: s.type, ...pretty };
    }
    if (m.params.g !== 'meta.k8s.io' || (m.params.v !== 'v1' && m.params.v !== 'v1beta1')) continue;
    if (as === 'Table' && opts.allowTable && s.format !== 'protobuf') {
      return { format: s.format, contentType: s.type, as: { kind: 'Table', version: m.params.v }, ...pretty };
    }
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
      return { format: s.format, contentType: s.type, as: { kind: as, version: m.params.v }, ...pretty };
    }
  }
  throw errors.notAcceptable(supportedMediaTypes({ cbor, protobuf: opts.protobuf }));
}

/**
 * The format of a request body, from Content-Type (absent → JSON, as kube). 415 otherwise;
 * `application/cbor` only with `opts.cbor` (the gate), else it is as unknown as any other type.
 */
export function requestBodyFormat(contentType: string | undefined, opts: { cbor?: boolean } = {}): OutputFormat {
  if (!contentType || !contentType.trim()) return 'json';
  const m = parseMediaType(contentType);
  const s = m && serializers.find((x) => x.type === m.type && (opts.cbor || x.format !== 'cbor'));
  if (!s) throw errors.unsupportedMediaType(supportedMediaTypes(opts));
  return s.format;
}
