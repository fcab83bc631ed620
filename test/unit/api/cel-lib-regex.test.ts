/**
 * api/cel-lib-regex.ts: `matches` and kube's regex library (apiserver pkg/cel/library/regex.go)
 * with Go's regexp semantics (leftmost-first, FindAllString's handling of empty matches), RE2's
 * linear time, and kube's compile-time refusals of literal patterns that do not compile.
 */
import { CelCompileError, CelEnvironment, CelEvaluationError, CEL_COST_EXCEEDED, celInput, compileCel } from '../../../src/api/cel';
import { findAllStrings, findString, re2 } from '../../../src/api/cel-lib-regex';

const input = celInput({ s: 'abc 123', p: '[', digits: '[0-9]+', long: `${'a'.repeat(50_000)}!` });
const run = (expression: string): unknown => compileCel(expression, 'claims').evaluate(input);
const runError = (expression: string): string => {
  try {
    run(expression);
  } catch (e) {
    expect(e).toBeInstanceOf(CelEvaluationError);
    return (e as Error).message;
  }
  throw new Error(`evaluated: ${expression}`);
};
const compileFailure = (expression: string): CelCompileError => {
  try {
    compileCel(expression, 'claims');
  } catch (e) {
    expect(e).toBeInstanceOf(CelCompileError);
    return e as CelCompileError;
  }
  throw new Error(`compiled: ${expression}`);
};

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

  it('linear time on a hostile input, and charged for it', () => {
    const start = Date.now();
    expect(run('claims.long.find("(a+)+$")')).toBe('');
    expect(run('claims.long.findAll("(a|aa)+!").size()')).toBe(1n);
    expect(Date.now() - start).toBeLessThan(5000);
    // Go's FindAll rescans from each match (this pattern makes it quadratic): every position
    // beyond the first pass is charged, at the first pass's rate.
    const env = new CelEnvironment({ variables: { s: 'string' } });
    const quadratic = env.compile('s.findAll("a*?b|a").size()');
    expect(quadratic.evaluate({ s: celInput('a'.repeat(100)) }).value).toBe(100n);
    expect(quadratic.evaluate({ s: celInput('a'.repeat(100)) }).cost).toBeGreaterThan(1000);
    expect(() => quadratic.evaluate({ s: celInput('a'.repeat(5000)) }, { costLimit: 100_000 })).toThrow(CEL_COST_EXCEEDED);
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
