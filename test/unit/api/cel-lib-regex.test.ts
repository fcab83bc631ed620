/**
 * api/cel-lib-regex.ts: `matches` and kube's regex library (apiserver pkg/cel/library/regex.go)
 * with Go's regexp semantics (leftmost-first, FindAllString's handling of empty matches), RE2's
 * linear time, and kube's compile-time refusals of literal patterns that do not compile.
 */
import { CelEnvironment, celInput, compileCel } from '../../../src/api/cel';
import { findAllStrings, findString, re2 } from '../../../src/api/cel-lib-regex';
import { CEL_COST_EXCEEDED } from '../../../src/api/cel-cost';
import { compileFailure, overClaims } from '../../support/cel';

const { run, runError } = overClaims({ s: 'abc 123', p: '[', digits: '[0-9]+', long: `${'a'.repeat(50_000)}!` });

describe('find and findAll (kube\'s regex library)', () => {
  it.each<[string, unknown]>([
    // kube's doc examples; with `*` Go's leftmost match is the empty one at the start, so its
    // doc's '123' for "abc 123".find('[0-9]*') is '' in kube as here (Go's FindString).
    ["'abc 123'.find('[0-9]+')", '123'],
    ["'abc 123'.find('[0-9]*')", ''],
    ["'abc 123'.find('xyz')", ''],
    ["'123 abc 456'.findAll('[0-9]+')", ['123', '456']],
    ["'123 abc 456'.findAll('[0-9]*', 1)", ['123']],
    ["'123 abc 456'.findAll('[0-9]*')", ['123', '', '', '', '', '456']],
    ["'123 abc 456'.findAll('xyz')", []],
    ["'123 abc 456'.findAll('[0-9]+', 0)", []],
    ["'123 abc 456'.findAll('[0-9]+', -1)", ['123', '456']],
    ["'123 abc 456'.findAll('[0-9]+', 5)", ['123', '456']],
    ['claims.s.find(claims.digits)', '123'],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it("Go's regexp semantics: leftmost-first alternation, lazy and greedy repeats, empty matches", () => {
    const all = (p: string, s: string, n = -1): string[] => findAllStrings(re2(p), s, n);
    expect(all('a*', 'baaa')).toEqual(['', 'aaa']);
    expect(all('(a|ab)(c|bcd)', 'abcd')).toEqual(['abcd']);
    expect(all('a|ab', 'ab')).toEqual(['a']);
    expect(all('a+?', 'aaa')).toEqual(['a', 'a', 'a']);
    expect(all('^a', 'aaa')).toEqual(['a']);
    expect(all('(?m)^a', 'a\na')).toEqual(['a', 'a']);
    expect(all('a$', 'aa')).toEqual(['a']);
    expect(all('\\bfoo\\b', 'foo foobar foo')).toEqual(['foo', 'foo']);
    expect(all('.', 'a😀b')).toEqual(['a', '😀', 'b']);
    expect(all('x*', '😀😀')).toEqual(['', '', '']);
    expect(all('', 'ab')).toEqual(['', '', '']);
    expect(all('(?i)ABC', 'xabcx')).toEqual(['abc']);
    expect(findString(re2('\\p{Greek}+'), 'abc αβγ')).toBe('αβγ');
  });

  it("Go's FindAll loop (regexp.go allMatches): an empty match where the previous match ended is skipped, the next search starts one code point on", () => {
    const all = (p: string, s: string, n = -1): string[] => findAllStrings(re2(p), s, n);
    // Searches at 0 (empty, kept), 1 ('aaa'), 4 (empty at the previous end: skipped), 5 (kept).
    expect(all('a*', 'baaab')).toEqual(['', 'aaa', '']);
    expect(all('a*', 'baaab', 2)).toEqual(['', 'aaa']);
    expect(all('b*', 'abab')).toEqual(['', 'b', 'b']);
    expect(all('a*?', 'aaa')).toEqual(['', '', '', '']);
    expect(all('', 'x😀')).toEqual(['', '', '']);
    expect(all('a|', 'aab')).toEqual(['a', 'a', '']);
    expect(all('a*', '')).toEqual(['']);
    expect(all('a*', 'baaab', 0)).toEqual([]);
    expect(all('$', 'ab')).toEqual(['']);
    expect(all('\\b', 'ab cd')).toEqual(['', '', '', '']);
    expect(run("'baaab'.findAll('a*')")).toEqual(['', 'aaa', '']);
    expect(run("'baaab'.findAll('a*', 1)")).toEqual(['']);
    expect(run("'a,b,,c'.findAll('[^,]*')")).toEqual(['a', 'b', '', 'c']);
  });

  it("Go's syntax as Go 1.23 reads it, and Go's error texts", () => {
    const error = (p: string): string | undefined => {
      try {
        re2(p);
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    };
    // Named groups: Go's (?P<name>) and, since Go 1.22, (?<name>); a name twice is allowed.
    expect(findString(re2('(?<year>[0-9]{4})-(?P<month>[0-9]{2})'), 'on 2024-05-01')).toBe('2024-05');
    expect(findAllStrings(re2('(?P<n>a)|(?P<n>b)'), 'abc', -1)).toEqual(['a', 'b']);
    expect(findAllStrings(re2('[(?P<n>]|(?<n>x)(?<n>y)'), '(xy>', -1)).toEqual(['(', 'xy', '>']);
    expect(run("'ab'.matches('(?P<n>a)(?P<n>b)')")).toBe(true);
    expect(error('(?P<n>a)(?P<n>b)(')).toBe('error parsing regexp: missing closing ): `(?P<n>a)(?P<n>b)(`');
    expect(error('(?P<n>a)(?P<n>b)(?P<>c)')).toBe('error parsing regexp: invalid named capture: `(?P<>`');
    expect(error('(?P<n>a)(?<n>b)x**')).toBe('error parsing regexp: invalid nested repetition operator: `**`');
    expect(error('(?<n')).toBe('error parsing regexp: invalid named capture: `(?<n`');
    expect(error('(?<=a)b')).toBe('error parsing regexp: invalid named capture: `(?<=a)b`');
    expect(error('(?P=n)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?P`');
    expect(error('(?=a)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    // \z is the end of the text; \C (any byte) and \Z are not Go's.
    expect(findString(re2('b\\z'), 'ab')).toBe('b');
    expect(findString(re2('a\\z'), 'ab')).toBe('');
    expect(error('\\C')).toBe('error parsing regexp: invalid escape sequence: `\\C`');
    expect(error('\\Z')).toBe('error parsing regexp: invalid escape sequence: `\\Z`');
    expect(error('\\1')).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    // Go quotes the expression always: empty for a trailing backslash, the whole for depth.
    expect(error('ab\\')).toBe('error parsing regexp: trailing backslash at end of expression: ``');
    const deep = `${'('.repeat(1001)}a${')'.repeat(1001)}`;
    expect(error(deep)).toBe(`error parsing regexp: expression nests too deeply: \`${deep}\``);
    expect(error('a{1001}')).toBe('error parsing regexp: invalid repeat count: `{1001}`');
    expect(error('(a{1000}){1000}')).toBe('error parsing regexp: invalid repeat count: `{1000}`');
    expect(error('[z-a]')).toBe('error parsing regexp: invalid character class range: `z-a`');
    expect(error('[[:foo:]]')).toBe('error parsing regexp: invalid character class range: `[:foo:]`');
    expect(error('\\p{Foo}')).toBe('error parsing regexp: invalid character class range: `\\p{Foo}`');
    expect(error(')')).toBe('error parsing regexp: unexpected ): `)`');
    // Perl flags Go has (i, m, s, U), and `$` as the end of the text unless (?m).
    expect(findString(re2('(?U)a+'), 'aaa')).toBe('a');
    expect(findString(re2('(?s)a.b'), 'a\nb')).toBe('a\nb');
    expect(run("'a\\n'.matches('a$')")).toBe(false);
    expect(run("'a\\n'.matches('(?m)a$')")).toBe(true);
    expect(error('(?x)a')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?x`');
  });

  it('linear time on a hostile input', () => {
    expect(run('claims.long.find("(a+)+$")')).toBe('');
    expect(run('claims.long.findAll("(a|aa)+!").size()')).toBe(1n);
  });

  it("charged as kube charges find/findAll: the string's traversal times the pattern, whatever the matches", () => {
    // Go's FindAll searches again from each match's end; with this pattern the preferred branch
    // reads on to the end of the string every time (quadratic in Go too), and kube charges it as
    // any other pattern of its length: ceil(101 * 0.1) * ceil(6 * 0.25) = 22.
    const env = new CelEnvironment({ variables: { s: 'string' } });
    const costOf = (expression: string, s: string): unknown => env.compile(expression).evaluate({ s: celInput(s) }).cost;
    const quadratic = env.compile('s.findAll("a*?b|a").size()').evaluate({ s: celInput('a'.repeat(100)) });
    expect(quadratic.value).toBe(100n);
    expect(quadratic.cost).toBe(costOf('s.findAll("xxxxxx").size()', 'a'.repeat(100)));
    expect(costOf('s.find("xxxxxx")', 'a'.repeat(100))).toBe(costOf('s.find("a*?b|a")', 'a'.repeat(100)));
    expect(costOf('s.findAll("xxxxxx")', '')).toBe(costOf('s.findAll("x")', '') as number + 1);
  });

  it('a findAll that keeps searching past FIND_ALL_TIME_LIMIT_MS ends as if its cost were spent (quadratic patterns over long strings)', () => {
    // Deterministic: a limit already passed stops the loop at its first look at the clock.
    expect(() => findAllStrings(re2('a*?b|a'), 'a'.repeat(100), -1, -1)).toThrow(CEL_COST_EXCEEDED);
    // Fewer than 16 searches never read the clock (14 matches and the search that finds no more).
    expect(findAllStrings(re2('a'), 'a'.repeat(14), -1, -1)).toHaveLength(14);
    // Through CEL: 20,000 characters would take seconds of searching; the evaluation is refused.
    const env = new CelEnvironment({ variables: { s: 'string' } });
    const program = env.compile('s.findAll("a*?b|a").size()');
    expect(() => program.evaluate({ s: celInput('a'.repeat(20_000)) })).toThrow(CEL_COST_EXCEEDED);
  });

  it('patterns: a literal that does not compile fails when the program is made (kube\'s InternalError), one read at run time is kube\'s error', () => {
    const literal = compileFailure("'abc'.find('[')");
    expect(literal.message).toBe('program instantiation failed: error parsing regexp: missing closing ]: `[`');
    expect(literal.type).toBe('InternalError');
    expect(compileFailure("'abc'.findAll('(', 2)").message).toBe('program instantiation failed: error parsing regexp: missing closing ): `(`');
    expect(runError("'abc'.find(claims.p)")).toBe('Illegal regex: error parsing regexp: missing closing ]: `[`');
    expect(runError("'abc'.findAll(claims.p)")).toBe('Illegal regex: error parsing regexp: missing closing ]: `[`');
    expect(() => compileCel("'abc'.find(1)", 'claims')).toThrow("found no matching overload for 'find' applied to 'string.(int)'");
    expect(compileCel("'abc'.findAll('b')", 'claims').outputType).toBe('list(string)');
  });
});

describe('matches', () => {
  it("kube's validator refuses a literal first argument that does not compile (the pattern of s.matches(p), the string of matches(s, p))", () => {
    const member = compileFailure('"abc".matches("[")');
    expect(member.message).toBe('compilation failed: ERROR: <input>:1:15: invalid matches argument\n | "abc".matches("[")\n | ..............^');
    expect(member.type).toBe('Invalid');
    expect(compileFailure('matches("[", claims.s)').message).toContain('ERROR: <input>:1:9: invalid matches argument');
    // The pattern of the global form is compiled when the program is made.
    expect(compileFailure('matches("x", "[")').message).toBe('program instantiation failed: error parsing regexp: missing closing ]: `[`');
    expect(runError('claims.s.matches(claims.p)')).toBe('error parsing regexp: missing closing ]: `[`');
  });
});
