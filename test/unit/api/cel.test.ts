/**
 * api/cel.ts: kube's type checker (declared variables, cel-go's messages and columns), the
 * optional syntax, kube's base library, cel-go's evaluation errors.
 */
import { CelCompileError, CelEnvironment, celInput, compileCel } from '../../../src/api/cel';
import { compileError as celCompileError, overClaims } from '../../support/cel';

const compileError = (expression: string, variable: 'claims' | 'user' | 'request' = 'claims', resultTypes?: string[]): string =>
  celCompileError(expression, (e) => compileCel(e, variable, resultTypes ? { resultTypes } : {}));

const { run, runError } = overClaims({
  sub: 'alice',
  email: 'alice@example.com',
  email_verified: true,
  groups: ['devs', 'ops'],
  csv: 'a,b,c',
  n: 7,
  ratio: 0.5,
  nested: { team: { name: 'core' } },
  roles: ['admin', 'viewer'],
});

describe('type checking at compile time (kube\'s messages)', () => {
  it('an operator with no overload for the declared types, at the operator\'s column', () => {
    // kube's own test (pkg/authentication/cel/compile_test.go).
    expect(compileError('claims + 1')).toBe("compilation failed: ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(map(string, any), int)'\n | claims + 1\n | .......^");
    expect(compileError('user.username + 1', 'user')).toBe(
      "compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(string, int)'\n | user.username + 1\n | ..............^",
    );
    expect(compileError('user.groups.exists(g, g == 1)', 'user')).toContain("ERROR: <input>:1:25: found no matching overload for '_==_' applied to '(string, int)'");
  });

  it('undeclared references and undefined fields of object types', () => {
    expect(compileError('user.username == "x"')).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'user' (in container '')\n | user.username == \"x\"\n | ^");
    // kube's test: the dot's column.
    expect(compileError("user.unknown == 'foo'", 'user')).toBe("compilation failed: ERROR: <input>:1:5: undefined field 'unknown'\n | user.unknown == 'foo'\n | ....^");
    expect(compileError('foo.bar')).toContain("undeclared reference to 'foo'");
  });

  it('member functions with the wrong arguments: cel-go\'s receiver notation at the parenthesis', () => {
    expect(compileError('user.username.startsWith(1)', 'user')).toBe(
      "compilation failed: ERROR: <input>:1:25: found no matching overload for 'startsWith' applied to 'string.(int)'\n | user.username.startsWith(1)\n | ........................^",
    );
    expect(compileError('"x".matches(1)')).toContain("found no matching overload for 'matches' applied to 'string.(int)'");
    expect(compileError('size(1)')).toContain("ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'");
  });

  it('the result type: kube\'s authentication wording, and the checked type', () => {
    expect(compileError('claims.foo', 'claims', ['bool'])).toBe('must evaluate to bool');
    expect(compileError('user.username', 'user', ['bool'])).toBe('must evaluate to bool');
    expect(compileCel('"a"', 'claims', { resultTypes: ['string', 'list(string)'] }).outputType).toBe('string');
    expect(compileError('1', 'claims', ['string', 'list(string)'])).toBe('must evaluate to one of [string list(string)]');
    expect(compileCel("claims.foo == 'bar'", 'claims', { resultTypes: ['bool'] }).outputType).toBe('bool');
    expect(compileCel('claims.groups', 'claims').outputType).toBe('any');
    expect(compileCel('claims.csv.split(",")', 'claims').outputType).toBe('list(string)');
    expect(compileCel('claims.?x', 'claims').outputType).toBe('optional_type(any)');
    expect(() => new CelEnvironment({ variables: { m: { map: ['string', { list: 'string' }] } } }).compile('m', { resultTypes: ['bool'], withActual: true })).toThrow(
      new CelCompileError('must evaluate to bool but got map(string, list(string))'),
    );
  });

  it('list and map literals must be homogeneous (kube enables HomogeneousAggregateLiterals)', () => {
    expect(compileError('["a", 1]')).toBe("compilation failed: ERROR: <input>:1:7: expected type 'string' but found 'int'\n | [\"a\", 1]\n | ......^");
    expect(compileCel('["a", dyn(1)]', 'claims').outputType).toBe('list(dyn)');
    expect(run('["a", claims.sub]')).toEqual(['a', 'alice']);
    expect(compileError('{"a": 1, "b": "x"}')).toContain("ERROR: <input>:1:15: expected type 'int' but found 'string'");
  });

  it('syntax errors keep cel-go\'s location', () => {
    expect(compileError('claims.sub +')).toMatch(/^compilation failed: ERROR: <input>:1:13: Syntax error: /);
    expect(compileError('object.x in [1, 2,')).toMatch(/^compilation failed: ERROR: <input>:1:19: Syntax error: /);
    expect(compileError('claims.sub ==\n  "x" +')).toMatch(/^compilation failed: ERROR: <input>:2:8: Syntax error: .*\n \|   "x" \+\n \| \.\.\.\.\.\.\.\^$/);
  });

  it('the caret under wide characters is wide, as cel-go draws it', () => {
    expect(compileError('"é" + 1')).toBe("compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | \"é\" + 1\n | .\uff0e..^");
  });
});

describe('kube\'s documentation examples (claims)', () => {
  it.each<[string, unknown]>([
    ["claims.?x.orValue('none')", 'none'],
    ["claims.?sub.orValue('none')", 'alice'],
    ['claims[?"sub"].hasValue()', true],
    ['claims.?nested.team.name.orValue("")', 'core'],
    ['claims.?nested.?missing.orValue("d")', 'd'],
    ['has(claims.email) && claims.email_verified', true],
    ['has(claims.missing)', false],
    ["claims.csv.split(',')", ['a', 'b', 'c']],
    ["'oidc:' + claims.sub", 'oidc:alice'],
    ['claims.groups.map(g, "grp:" + g)', ['grp:devs', 'grp:ops']],
    ['claims.roles.filter(r, r.startsWith("ad"))', ['admin']],
    ['[claims.sub, claims.email]', ['alice', 'alice@example.com']],
    ["claims.email.endsWith('@example.com')", true],
    ['claims.n + 1', 8n],
    ['claims.ratio * 2.0', 1],
    ['claims.n > 5 && claims.ratio < 1.0', true],
    ['size(claims.groups)', 2n],
    ['cel.bind(g, claims.groups, g.size())', 2n],
    ['claims.exists(k, k == "sub")', true],
    ['optional.of(claims.sub).value()', 'alice'],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it('user validation rules read kube\'s UserInfo type', () => {
    const user = celInput({ username: 'system:alice', uid: 'u1', groups: ['a'], extra: { 'example.com/x': ['1'] } });
    expect(compileCel("!user.username.startsWith('system:')", 'user').evaluate(user)).toBe(false);
    expect(compileCel("user.extra['example.com/x'] == ['1'] && 'a' in user.groups", 'user').evaluate(user)).toBe(true);
    expect(compileCel('has(user.uid)', 'user').evaluate(celInput({ username: 'x' }))).toBe(false);
  });

  it('JSON numbers as kube decodes them: int when integral and within int64, else double', () => {
    const input = celInput({ n: 7, huge: 1e300, min: -(2 ** 63) });
    expect(run('type(claims.n) == int && type(claims.min) == int', input)).toBe(true);
    expect(run('type(claims.huge) == double && claims.huge > 1e299', input)).toBe(true);
  });

  it('selects() reports the claims an expression reads (kube\'s email rule)', () => {
    const c = compileCel('claims.email_verified ? claims.email : claims.sub', 'claims');
    expect(c.selects('email')).toBe(true);
    expect(c.selects('email_verified')).toBe(true);
    expect(c.selects('groups')).toBe(false);
  });
});

describe('kube\'s base library', () => {
  it.each<[string, unknown]>([
    // strings extension
    ['"hello".charAt(1)', 'e'],
    ['"hello".charAt(5)', ''],
    ['"a-b-c".replace("-", "+")', 'a+b+c'],
    ['"a-b-c".replace("-", "+", 1)', 'a+b-c'],
    // Go's strings.Replace: an empty old string matches before every code point and at the end.
    ['"a😀b".replace("", ".")', '.a.😀.b.'],
    ['"abc".replace("", "-", 1)', '-abc'],
    ['"ÉCOLE école".lowerAscii()', 'École école'],
    ['"école".upperAscii()', 'éCOLE'],
    ['"  x ".trim()', 'x'],
    ['["a", "b"].join("/")', 'a/b'],
    ['"hello".indexOf("l")', 2n],
    ['"hello".substring(1, 3)', 'el'],
    ['"%s has %d groups (%.2f)".format(["alice", dyn(2), dyn(0.5)])', 'alice has 2 groups (0.50)'],
    ['strings.quote("a\\"b\\n")', '"a\\"b\\n"'],
    // cel-go escapes only \a \b \f \n \r \t \v, the quote and the backslash.
    ['strings.quote("\\a\\x01")', '"\\a\x01"'],
    // Indexes count code points; an offset past the end finds nothing.
    ['"a😀b😀c".indexOf("c")', 4n],
    ['"a😀b😀c".lastIndexOf("😀", 2)', 1n],
    ['"😀bc".substring(1, 2)', 'b'],
    ['"hello".indexOf("l", 9)', -1n],
    ['"abc".indexOf("", 10)', 10n],
    // lists library
    ['[1, 2, 3].isSorted()', true],
    ['["b", "a"].isSorted()', false],
    ['[1, 2, 3].sum()', 6n],
    ['[1.5, 2.5].sum()', 4],
    ['[3, 1, 2].min()', 1n],
    ['["a", "c", "b"].max()', 'c'],
    ['["a", "b", "a"].indexOf("a")', 0n],
    ['["a", "b", "a"].lastIndexOf("a")', 2n],
    ['["a"].indexOf("z")', -1n],
    // sets extension
    ['sets.contains(["a", "b"], ["a"])', true],
    ['sets.contains([1, 2], [3])', false],
    ['sets.equivalent(["a", "b"], ["b", "a", "a"])', true],
    ['sets.intersects([1, 2], [2, 3])', true],
    // kube's lists library on every comparable type, sum of numbers and durations.
    ['[2.0, 1.0].isSorted()', false],
    ["['a', 'b', 'b', 'c'].isSorted()", true],
    ['[].isSorted()', true],
    ['[b"a", b"b"].isSorted()', true],
    ['[duration("1m"), duration("1s")].isSorted()', false],
    ['[timestamp("2024-01-01T00:00:00Z"), timestamp("2025-01-01T00:00:00Z")].isSorted()', true],
    ['[true, false].min()', false],
    ['[1.0, 3.0].sum()', 4],
    ['[duration("1m"), duration("1s")].sum() == duration("61s")', true],
    ['[].sum()', 0n],
    ['([0] + []).min()', 0n],
    ['[1, 2, 2, 3].indexOf(2)', 1n],
    ["['a', 'b', 'b', 'c'].lastIndexOf('b')", 2n],
    ['[1.0].indexOf(1.1)', -1n],
    ["[].indexOf('string')", -1n],
    // Strings compare by code point, as Go compares their UTF-8 bytes.
    ['["\uffff", "😀"].isSorted()', true],
    // regular expressions: RE2's syntax
    ['"Alice".matches("(?i)^alice$")', true],
    ['matches("abc", "^a.c$")', true],
    ['"abc".matches("^b")', false],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it('a regular expression is RE2: linear time on a hostile input, RE2\'s errors', () => {
    const hostile = celInput({ s: `${'a'.repeat(5000)}!` });
    const start = Date.now();
    expect(run('claims.s.matches("^(a+)+$")', hostile)).toBe(false);
    expect(Date.now() - start).toBeLessThan(2000);
    expect(runError('claims.sub.matches(claims.p)', celInput({ sub: 'x', p: '[' }))).toBe('error parsing regexp: missing closing ]: `[`');
  });

  it('functions kube does not have in 1.32 do not compile', () => {
    // cel-go's checker knows no such name at all.
    expect(compileError('"abc".reverse()')).toBe('compilation failed: ERROR: <input>:1:14: undeclared reference to \'reverse\' (in container \'\')\n | "abc".reverse()\n | .............^');
    expect(compileError('claims.sub.startswith("a")')).toContain("ERROR: <input>:1:22: undeclared reference to 'startswith' (in container '')");
    // A name of JavaScript's object prototype is a name like any other.
    expect(compileError('claims.sub.toString()')).toContain("ERROR: <input>:1:20: undeclared reference to 'toString' (in container '')");
    // cel-js's own functions on bytes are none of kube's.
    expect(compileError('b"ab".hex()')).toContain("undeclared reference to 'hex' (in container '')");
  });

  it('the lists library takes lists of comparable types only; sets take two lists of one type', () => {
    expect(compileError('[[1]].isSorted()')).toBe(
      "compilation failed: ERROR: <input>:1:15: found no matching overload for 'isSorted' applied to 'list(list(int)).()'\n | [[1]].isSorted()\n | ..............^",
    );
    expect(compileError('[{"a": 1}].min()')).toContain("found no matching overload for 'min' applied to 'list(map(string, int)).()'");
    expect(compileError('["a"].sum()')).toContain("found no matching overload for 'sum' applied to 'list(string).()'");
    expect(compileCel('claims.groups.max()', 'claims').outputType).toBe('dyn');
    expect(run('claims.groups.max()')).toBe('ops');
    expect(compileError('sets.contains([1], ["a"])')).toBe(
      "compilation failed: ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '(list(int), list(string))'\n | sets.contains([1], [\"a\"])\n | .............^",
    );
    expect(compileError('strings.quote(1)')).toContain("found no matching overload for 'strings.quote' applied to '(int)'");
    expect(compileError('sets')).toContain("undeclared reference to 'sets' (in container '')");
  });
});

describe('evaluation errors in cel-go\'s words', () => {
  it.each<[string, string]>([
    ['claims.missing', 'no such key: missing'],
    ['claims.nested.team.missing == ""', 'no such key: missing'],
    ['claims.groups[5]', "index '5' out of range in list size '2'"],
    ['claims.n / 0', 'division by zero'],
    ['claims.n % 0', 'modulus by zero'],
    ['claims.n + 9223372036854775807', 'integer overflow'],
    ['claims.sub + 1', 'no such overload'],
    ['claims.?missing.value()', 'optional.none() dereference'],
    // kube's lists library.
    ['[3].min() + [].min()', 'min called on empty list'],
    // The strings extension: code points, and its range errors.
    ['"hello".substring(3, 1)', 'invalid substring range. start: 3, end: 1'],
    ['"hello".substring(9)', 'index out of range: 9'],
    ['"hello".substring(1, 6)', 'index out of range: 6'],
    ['"hello".indexOf("l", -1)', 'index out of range: -1'],
    ['"".lastIndexOf("a")', 'index out of range: -1'],
  ])('%s → %s', (expression, message) => {
    expect(runError(expression)).toBe(message);
  });
});

describe('cost: operations whose work grows with their operands are charged for it (cel-go’s runtime cost)', () => {
  const env = new CelEnvironment({ variables: { l: { list: 'string' }, s: 'string' } });
  const costOf = (expression: string, vars: { l?: unknown[]; s?: string }) =>
    env.compile(expression).evaluate({ l: celInput(vars.l ?? []), s: celInput(vars.s ?? '') }).cost;
  const thousand = Array.from({ length: 1000 }, (_, i) => `v${i}`);

  it('`in` a list its size, a comparison or concatenation a tenth of it, string functions a tenth of the string', () => {
    // What the operation costs, beside the few units of the nodes around it.
    const charged = (expression: string, vars: { l?: unknown[]; s?: string }, units: number) => {
      const cost = costOf(expression, vars);
      expect(cost).toBeGreaterThanOrEqual(units);
      expect(cost).toBeLessThan(units + 5);
    };
    charged('"x" in l', { l: thousand }, 1000);
    charged('l == l', { l: thousand }, 100);
    charged('s + s', { s: 'x'.repeat(1000) }, 200);
    charged('s.contains("y")', { s: 'x'.repeat(1000) }, 100);
    charged('s.matches("^[ab]+c$")', { s: 'x'.repeat(999) }, 100 * 2);
    charged('s.substring(1)', { s: 'x'.repeat(1000) }, 100);
    charged('s.split(",")', { s: 'x'.repeat(1000) }, 200);
    // Scalars cost one unit per node, as before.
    expect(costOf('1 == 2', {})).toBeLessThan(5);
  });

  it('a loop over a long list doing O(n) work per step stops at the limit, quickly', () => {
    const groups = Array.from({ length: 20_000 }, (_, i) => `g${i}`);
    const input = celInput({ groups, big: 'x'.repeat(100_000) });
    const start = Date.now();
    expect(runError('claims.groups.all(g, g in claims.groups)', input)).toBe('operation cancelled: actual cost limit exceeded');
    expect(runError('claims.groups.all(g, !claims.big.startsWith(g))', input)).toBe('operation cancelled: actual cost limit exceeded');
    // Running out is no error `||` or a quantifier may absorb: the evaluation ends there.
    expect(runError('claims.groups.all(g, claims.big.contains(g) || true)', input)).toBe('operation cancelled: actual cost limit exceeded');
    expect(runError('claims.groups.exists(g, claims.big.contains(g) && false) || true', input)).toBe('operation cancelled: actual cost limit exceeded');
    // The errors show each evaluation ended at the limit (run to its end, each answers true); what
    // each operation is charged is exact in the cost tests below. The time is a coarse guard only:
    // ~0.5 s for these four on a loaded 2-core machine, 10 s so that load cannot flip it.
    expect(Date.now() - start).toBeLessThan(10_000);
    expect(run('"g19999" in claims.groups', input)).toBe(true);
    // A string too long to make is charged before it is made.
    expect(runError('claims.s.replace("", claims.s).size()', celInput({ s: 'x'.repeat(5000) }))).toBe('operation cancelled: actual cost limit exceeded');
    expect(runError('"%s".format([claims.groups]).size() > 0 && claims.groups.all(g, "%s".format([claims.groups]) != "")', input)).toBe(
      'operation cancelled: actual cost limit exceeded',
    );
  });
});
