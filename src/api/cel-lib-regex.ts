/**
 * Regular expressions in kube's CEL environment: `matches` (CEL's standard library) and kube's
 * regex library (k8s.io/apiserver pkg/cel/library/regex.go): `<string>.find(<string>) <string>`,
 * `<string>.findAll(<string>) <list<string>>` and `<string>.findAll(<string>, <int>)`.
 *
 * Patterns are compiled by re2js, a port of RE2/J, itself a port of Go's regexp: Go's syntax and
 * error texts, leftmost-first matching, and time linear in the input for each search whatever the
 * input holds. `find` is Go's FindString and `findAll` Go's FindAllString loop over the matcher's
 * positions. Charged as kube charges them (library/cost.go): the string's traversal times a
 * quarter unit per pattern character. Go's FindAll searches again from each match's end, so a
 * pattern whose preferred branch keeps reading past its matches (`a*?b|a`) takes time quadratic
 * in the string, in kube as here; kube charges no more for it. Go runs it on one goroutine; here
 * it would hold the event loop (16 s for 20,000 characters), so one findAll may search for at most
 * FIND_ALL_TIME_LIMIT_MS (looked at between searches, each of which is linear), past which the
 * evaluation ends as if its cost were spent: ours, not kube's, and only such patterns reach it.
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';
import { CostExceeded, chargeOperation, matchCost, regexCost, traversal } from './cel-cost';
import type { CelRegistrar } from './cel-registrar';

/**
 * Compiled patterns, for those short enough to be an expression's own (a pattern taken from the
 * input may be long; it is compiled each time, and charged for by the function using it).
 */
const cache = new Map<string, RE2JS>();
const CACHED_PATTERN_LENGTH = 1024;

/** A pattern compiled as Go's regexp.Compile does; throws Error with Go's `error parsing regexp: …`. */
export function re2(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    re = compile(pattern);
    if (pattern.length > CACHED_PATTERN_LENGTH) return re;
    if (cache.size >= 256) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

/** Go's regexp.Compile error for `pattern`, or undefined when it compiles. */
export function regexCompileError(pattern: string): string | undefined {
  try {
    re2(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

// Where re2js departs from Go's regexp/syntax (Go 1.23, kube 1.32's).
const DUPLICATE_NAME = 'duplicate capture group name';
const WHOLE_PATTERN_ERRORS = new Set(['expression nests too deeply', 'expression too large']);

function compile(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (e) {
    if (!(e instanceof RE2JSSyntaxException)) throw new Error(`error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
    // Go allows a capture name twice (RE2/J does not); names play no part in matching.
    if (e.getDescription() === DUPLICATE_NAME) return compileUnnamed(pattern);
    throw new Error(goSyntaxError(e, pattern));
  }
}

/**
 * Go's text for a syntax error: `error parsing regexp: <code>: `<expr>``, the expression always
 * quoted (re2js leaves out an empty one, and the whole pattern Go quotes for depth and size).
 */
function goSyntaxError(e: RE2JSSyntaxException, pattern: string): string {
  const expr = e.getPattern() ?? (WHOLE_PATTERN_ERRORS.has(e.getDescription()) ? pattern : '');
  return `error parsing regexp: ${e.getDescription()}: \`${expr}\``;
}

/**
 * `pattern` compiled with its capture names taken out, as Go compiles one that names two groups
 * alike. An error the rest of it has is reported on the pattern as written: Go quotes a suffix of
 * the pattern or a piece of it, which maps back through the positions kept.
 */
function compileUnnamed(pattern: string): RE2JS {
  const { text, origin } = withoutCaptureNames(pattern);
  try {
    return RE2JS.compile(text);
  } catch (e) {
    if (!(e instanceof RE2JSSyntaxException)) throw e;
    const expr = e.getPattern();
    const suffix = expr !== null && text.endsWith(expr) ? pattern.slice(origin[text.length - expr.length]) : undefined;
    const asWritten = suffix ?? expr ?? (WHOLE_PATTERN_ERRORS.has(e.getDescription()) ? pattern : '');
    throw new Error(`error parsing regexp: ${e.getDescription()}: \`${asWritten}\``);
  }
}

/** Go's isValidCaptureName: ASCII letters, digits and `_`, at least one. */
const CAPTURE_NAME = /^[A-Za-z0-9_]+$/;

/**
 * `(?P<name>` and `(?<name>` with a valid name turned into `(` outside escapes, `\Q…\E` and
 * classes (an invalid one is left for the parser to refuse); `origin[i]` is where the text's
 * i-th unit (or its end) was in the pattern.
 */
function withoutCaptureNames(pattern: string): { text: string; origin: number[] } {
  let text = '';
  const origin: number[] = [];
  const keep = (from: number, to: number): void => {
    for (let j = from; j < to; j++) origin.push(j);
    text += pattern.slice(from, to);
  };
  let i = 0;
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      if (pattern[i + 1] === 'Q' && !inClass) {
        const end = pattern.indexOf('\\E', i + 2);
        const to = end < 0 ? pattern.length : end + 2;
        keep(i, to);
        i = to;
      } else {
        keep(i, Math.min(i + 2, pattern.length));
        i += 2;
      }
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2);
        if (end >= 0) {
          keep(i, end + 2);
          i = end + 2;
          continue;
        }
      }
      if (c === ']') inClass = false;
      keep(i, i + 1);
      i++;
      continue;
    }
    if (c === '[') {
      // A `]` right after `[` or `[^` belongs to the class.
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      keep(i, j);
      i = j;
      inClass = true;
      continue;
    }
    const named = pattern.startsWith('(?P<', i) ? 4 : pattern.startsWith('(?<', i) ? 3 : 0;
    const close = named ? pattern.indexOf('>', i + named) : -1;
    if (close >= 0 && CAPTURE_NAME.test(pattern.slice(i + named, close))) {
      keep(i, i + 1);
      i = close + 1;
      continue;
    }
    keep(i, i + 1);
    i++;
  }
  origin.push(pattern.length);
  return { text, origin };
}

/** The width in UTF-16 units of the code point at `pos` (Go's step over one rune); 0 at the end. */
function runeWidth(s: string, pos: number): number {
  if (pos >= s.length) return 0;
  const c = s.charCodeAt(pos);
  if (c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length) {
    const d = s.charCodeAt(pos + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** How long one findAll may keep searching (the server's event loop waits meanwhile). */
export const FIND_ALL_TIME_LIMIT_MS = 100;

/**
 * Go's FindAllString(s, n) (n < 0: all), Go's allMatches loop: each search starts where the last
 * match ended, and after an empty match one code point further on; an empty match right where
 * the previous match ended is not one of the results.
 */
export function findAllStrings(re: RE2JS, s: string, n: number, timeLimitMs = FIND_ALL_TIME_LIMIT_MS): string[] {
  const out: string[] = [];
  if (n < 0) n = s.length + 1;
  const m = re.matcher(s);
  let pos = 0;
  let prevMatchEnd = -1;
  const deadline = performance.now() + timeLimitMs;
  for (let searches = 0; out.length < n && pos <= s.length; searches++) {
    // The clock is read every 16 searches: a search of a match-dense string is short.
    if ((searches & 15) === 15 && performance.now() > deadline) throw new CostExceeded();
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === pos) {
      if (start === prevMatchEnd) accept = false;
      const width = runeWidth(s, pos);
      pos = width > 0 ? pos + width : s.length + 1;
    } else {
      pos = end;
    }
    prevMatchEnd = end;
    if (accept) out.push(s.slice(start, end));
  }
  return out;
}

/** Go's FindString: the leftmost-first match, or '' when there is none. */
export function findString(re: RE2JS, s: string): string {
  const m = re.matcher(s);
  return m.find(0) ? s.slice(m.start(), m.end()) : '';
}

/** Go's MatchString: whether the pattern matches anywhere in `s`. */
export function matchString(re: RE2JS, s: string): boolean {
  return re.test(s);
}

// ---------------------------------------------------------------------------------------------
// The CEL functions
// ---------------------------------------------------------------------------------------------

/** kube's find/findAll error for a pattern that does not compile (a pattern read at run time). */
function findPattern(pattern: string): RE2JS {
  try {
    return re2(pattern);
  } catch (e) {
    throw new Error(`Illegal regex: ${(e as Error).message}`);
  }
}

/** Declares `matches` (under the name cel.ts renames it to) and kube's find/findAll. */
export function registerRegexLibrary(env: CelRegistrar, matchesName: string): void {
  const matches = (s: string, p: string): boolean => (chargeOperation(traversal(1 + s.length) * regexCost(p.length)), matchString(re2(p), s));
  env.registerFunction(`string.${matchesName}(string): bool`, matches);
  env.registerFunction(`${matchesName}(string, string): bool`, matches);
  env.registerFunction('string.find(string): string', (s: string, p: string) => {
    chargeOperation(matchCost(s, p.length));
    return findString(findPattern(p), s);
  });
  const findAll = (s: string, p: string, n: bigint): string[] => {
    chargeOperation(matchCost(s, p.length));
    // Go's int(n): any negative limit is "all"; a limit past the string's length finds them all.
    const limit = n < 0n ? -1 : n > BigInt(s.length + 1) ? s.length + 1 : Number(n);
    return findAllStrings(findPattern(p), s, limit);
  };
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}
