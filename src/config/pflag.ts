/**
 * A small spf13/pflag look-alike: parses `--name=value`, `--name value`, bool `--flag`, shorthand
 * clusters (`-hv3`, `-v=3`, `-v 3`) and `--`, with pflag's error wording, plus the Go parsers the
 * value setters need (strconv, time.ParseDuration, net.ParseIP) and component-base's sectioned
 * usage (cliflag.PrintSections). The flags themselves are declared by the options groups
 * (options/), composed by their command (flags.ts).
 */
import { isIP } from 'node:net';
import { goQuote } from '../api';
import { parseGoDuration } from './go-duration';

/** A bad command line; the message is one line in pflag's wording. */
export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

/** Thrown by a setter for a value it rejects; becomes `invalid argument "<v>" for "--<name>" flag: <message>`. */
export class FlagValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagValueError';
  }
}

/**
 * One flag, bound to where its value goes (pflag's Flag with its Value): `set` stores a value into
 * the options that declared it, or throws FlagValueError.
 */
export interface FlagSpec {
  name: string;
  shorthand?: string;
  /** Type name shown in usage, as pflag shows it ('' for bool). */
  typeName: string;
  /** Default shown in usage ('' → not shown); a `string` flag's is shown as Go's %q, as pflag does. */
  defaultText: string;
  help: string;
  /** Bool flags take no separate argument (pflag's NoOptDefVal "true"). */
  isBool?: boolean;
  set(value: string): void;
}

/** Go's strconv.ParseBool. Throws FlagValueError. */
export function parseGoBool(s: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  throw new FlagValueError(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`);
}

const INT_BODY: Readonly<Record<number, RegExp>> = {
  2: /^_?[01](_?[01])*$/,
  8: /^_?[0-7](_?[0-7])*$/,
  10: /^[0-9](_?[0-9])*$/,
  16: /^_?[0-9a-fA-F](_?[0-9a-fA-F])*$/,
};

/**
 * Go's strconv.ParseInt(s, base, bits) for base 0 (prefixes 0x, 0o, 0b, leading-0 octal, underscores
 * between digits) or base 10, as a JS number. Throws FlagValueError with Go's message.
 */
export function parseGoInt(s: string, base: 0 | 10, bits: 32 | 64): number {
  let body = s;
  let neg = false;
  if (body[0] === '+' || body[0] === '-') {
    neg = body[0] === '-';
    body = body.slice(1);
  }
  let radix = 10;
  if (base === 0 && body.length > 1 && body[0] === '0') {
    const p = body[1]?.toLowerCase();
    radix = p === 'x' ? 16 : p === 'o' ? 8 : p === 'b' ? 2 : 8;
    body = body.slice(p === 'x' || p === 'o' || p === 'b' ? 2 : 1);
  }
  const pattern = base === 10 ? /^[0-9]+$/ : INT_BODY[radix];
  if (!pattern || !pattern.test(body)) {
    throw new FlagValueError(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  }
  const prefix = radix === 16 ? '0x' : radix === 8 ? '0o' : radix === 2 ? '0b' : '';
  const v = (neg ? -1n : 1n) * BigInt(prefix + body.replace(/_/g, ''));
  const limit = 1n << BigInt(bits - 1);
  if (v >= limit || v < -limit) {
    throw new FlagValueError(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  }
  return Number(v);
}

/** kube's cliflag.WordSepNormalizeFunc: `--secure_port` is `--secure-port`. */
const normalizeName = (name: string): string => name.replace(/_/g, '-');

function applyValue(spec: FlagSpec, value: string): void {
  try {
    spec.set(value);
  } catch (e) {
    if (!(e instanceof FlagValueError)) throw e;
    const shown = spec.shorthand ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
    throw new FlagError(`invalid argument ${goQuote(value)} for ${goQuote(shown)} flag: ${e.message}`);
  }
}

/**
 * Parses argv (without node and script) left to right as pflag does, each value set through its
 * flag, stopping at the first error (FlagError). Returns the positional arguments (including
 * everything after `--`). Two flags with one name or shorthand are a programming error (pflag panics).
 */
export function parseArgs(specs: readonly FlagSpec[], argv: readonly string[]): string[] {
  const byName = new Map<string, FlagSpec>();
  const byShorthand = new Map<string, FlagSpec>();
  for (const f of specs) {
    if (byName.has(f.name)) throw new Error(`flag redefined: ${f.name}`);
    byName.set(f.name, f);
    if (f.shorthand === undefined) continue;
    if (byShorthand.has(f.shorthand)) {
      throw new Error(`shorthand -${f.shorthand} redefined: already used for --${byShorthand.get(f.shorthand)?.name ?? ''}`);
    }
    byShorthand.set(f.shorthand, f);
  }
  const positional: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const s = argv[i++] as string;
    if (s.length < 2 || s[0] !== '-') {
      positional.push(s);
      continue;
    }
    if (s === '--') {
      positional.push(...argv.slice(i));
      break;
    }
    if (s[1] === '-') {
      const body = s.slice(2);
      if (body[0] === '-' || body[0] === '=') throw new FlagError(`bad flag syntax: ${s}`);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const spec = byName.get(normalizeName(name));
      if (!spec) throw new FlagError(`unknown flag: --${name}`);
      let value: string;
      if (eq >= 0) value = body.slice(eq + 1);
      else if (spec.isBool) value = 'true';
      // pflag takes the next argument as the value even when it looks like a flag.
      else if (i < argv.length) value = argv[i++] as string;
      else throw new FlagError(`flag needs an argument: ${s}`);
      applyValue(spec, value);
      continue;
    }
    let shorts = s.slice(1);
    while (shorts.length > 0) {
      const c = shorts[0] as string;
      const spec = byShorthand.get(c);
      if (!spec) throw new FlagError(`unknown shorthand flag: '${c}' in -${shorts}`);
      let value: string;
      if (shorts.length > 2 && shorts[1] === '=') {
        value = shorts.slice(2);
        shorts = '';
      } else if (spec.isBool) {
        value = 'true';
        shorts = shorts.slice(1);
      } else if (shorts.length > 1) {
        value = shorts.slice(1);
        shorts = '';
      } else if (i < argv.length) {
        value = argv[i++] as string;
        shorts = '';
      } else {
        throw new FlagError(`flag needs an argument: '${c}' in -${shorts}`);
      }
      applyValue(spec, value);
    }
  }
  return positional;
}

/** pflag's FlagUsages: one line per flag, sorted by name, help aligned, `(default …)` when not zero. */
function flagUsages(specs: readonly FlagSpec[]): string {
  const rows = [...specs]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((f) => {
      let left = f.shorthand ? `  -${f.shorthand}, --${f.name}` : `      --${f.name}`;
      if (f.typeName) left += ` ${f.typeName}`;
      let right = f.help;
      if (f.defaultText) right += ` (default ${f.typeName === 'string' ? goQuote(f.defaultText) : f.defaultText})`;
      return { left, right };
    });
  const width = Math.max(0, ...rows.map((r) => r.left.length));
  return rows.map((r) => `${r.left.padEnd(width)}   ${r.right}\n`).join('');
}

/** A named flag set (component-base's NamedFlagSets entry): its flags print under `<Name> flags:`. */
export interface FlagSection {
  /** The set's name as kube spells it (`generic`, `secure serving`, `API enablement`). */
  name: string;
  flags: readonly FlagSpec[];
}

/**
 * cliflag.PrintSections with no wrapping (kube wraps only at a terminal's width): each section that
 * has flags, in the given order, as `\n<Name> flags:\n\n` and its flags as pflag lists them
 * (sorted by name, help aligned within the section).
 */
export function printSections(sections: readonly FlagSection[]): string {
  return sections
    .filter((s) => s.flags.length > 0)
    .map((s) => `\n${s.name.slice(0, 1).toUpperCase()}${s.name.slice(1)} flags:\n\n${flagUsages(s.flags)}`)
    .join('');
}

/** pflag's duration value: Go's time.ParseDuration, in milliseconds. */
export function parseDurationValue(s: string): number {
  try {
    return parseGoDuration(s);
  } catch (e) {
    throw new FlagValueError((e as Error).message);
  }
}

/** pflag's IP value: net.ParseIP of the trimmed text. */
export function parseIpValue(s: string): string {
  const ip = s.trim();
  if (ip.includes('%') || isIP(ip) === 0) throw new FlagValueError(`failed to parse IP: ${goQuote(s)}`);
  return ip;
}
