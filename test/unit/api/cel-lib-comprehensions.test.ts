/**
 * api/cel-lib-comprehensions.ts: cel-go's two-variable comprehensions (ext/comprehensions.go:
 * its doc examples), in kube 1.32's environment for configuration and stored expressions, and
 * refused as kube's 1.31-compatible environment refuses them for an expression a write brings.
 */
import { CelCompileError, CelEnvironment, CEL_COST_EXCEEDED, compileCel } from '../../../src/api/cel';
import { compileError, overClaims } from '../../support/cel';

const { run, runError } = overClaims({ m: { a: 1, b: 2 }, l: ['x', 'y'], groups: Array.from({ length: 2000 }, (_, i) => `g${i}`) });

describe('two-variable comprehensions (cel-go\'s examples)', () => {
  it.each<[string, unknown]>([
    ['[1, 2, 3].all(i, j, i < j)', true],
    ["{'hello': 'world', 'taco': 'taco'}.all(k, v, k != v)", false],
    ["{'h': ['hello', 'hi'], 'j': ['joke', 'jog']}.all(k, vals, vals.all(v, v.startsWith(k)))", true],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.exists(k, v, k.startsWith('good') || v.endsWith('bye'))", true],
    ['[1, 2, 4, 8, 16].exists(i, v, v == 1024 && i == 10)', false],
    ['[1, 2, 1, 3, 1, 4].existsOne(i, v, i == 1 || v == 1)', false],
    ['[1, 1, 2, 2, 3, 3].existsOne(i, v, i == 2 && v == 2)', true],
    ["{'i': 0, 'j': 1, 'k': 2}.existsOne(i, v, i == 'l' || v == 1)", true],
    ['[1, 1].exists_one(i, v, i == 0)', true],
    ['[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar)', [1n, 4n, 9n]],
    ['[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar)', [1n, 9n]],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k)", ['greeting', 'farewell']],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, v, v.startsWith('good'), k)", ['farewell']],
    ['[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar)[2]', 9n],
    ["{'greeting': 'hello'}.transformMap(k, v, v + '!')", new Map([['greeting', 'hello!']])],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.transformMap(k, v, k != 'greeting', v)", new Map([['farewell', 'goodbye']])],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.transformMapEntry(keyVar, valueVar, {valueVar: keyVar})", new Map([['hello', 'greeting'], ['goodbye', 'farewell']])],
    ["['a', 'b'].transformMapEntry(indexVar, valueVar, {valueVar: indexVar})['b']", 1n],
    ['claims.m.all(k, v, v > 0)', true],
    ['claims.l.transformList(i, v, v + string(i))', ['x0', 'y1']],
    ['claims.m.transformMap(k, v, v * 2).b', 4n],
    // Errors: all/exists absorb one the result does not depend on; existsOne does not.
    ['claims.m.exists(k, v, v / 0 == 1 || k == "a")', true],
    ['claims.m.all(k, v, v / 0 == 1 && k == "c")', false],
    // The one-variable forms are unchanged.
    ['[1, 2].all(x, x > 0)', true],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it('runtime errors as cel-go\'s', () => {
    expect(runError("{'a': 'x', 'b': 'x'}.transformMapEntry(k, v, {v: k})")).toBe('insert failed: key x already exists');
    expect(runError('claims.m.all(k, v, v / 0 == 1 || k == "a")')).toBe('division by zero');
    expect(runError('claims.m.existsOne(k, v, v / 0 == 1)')).toBe('division by zero');
    // The first variable of a list is the index.
    expect(runError('claims.l.all(i, v, isIP(i))')).toBe('no such overload');
  });

  it('compile errors', () => {
    expect(compileError('1.all(i, v, true)')).toBe(
      "compilation failed: ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)\n | 1.all(i, v, true)\n | ^",
    );
    expect(compileError('[1].all(i, v, v)')).toContain("ERROR: <input>:1:8: found no matching overload for '_&&_' applied to '(bool, int)'");
    expect(compileError('[1].all(i, i, true)')).toContain('duplicate variable name: i');
    expect(compileError('[1].all(i, 1, true)')).toContain('argument must be a simple name');
    expect(compileError('[1].transformMapEntry(i, v, v)')).toContain("found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), int)'");
    expect(compileError('["a"].all(i, v, i == "x")')).toContain("found no matching overload for '_==_' applied to '(int, string)'");
    expect(compileCel('[1].transformList(i, v, string(v))', 'claims').outputType).toBe('list(string)');
    expect(compileCel("{'a': 1}.transformMap(k, v, v > 0)", 'claims').outputType).toBe('map(string, bool)');
  });

  it('the variables hide a namespace of the same name', () => {
    expect(run('claims.l.all(i, ip, !isIP(ip))')).toBe(true);
  });

  it('loops are charged per evaluated node', () => {
    expect(runError('claims.groups.all(i, a, claims.groups.all(j, b, i != j || a == b))')).toBe(CEL_COST_EXCEEDED);
  });

  it('not in kube\'s 1.31-compatible environment (an expression a write introduces): cel-go\'s undeclared references, in source order', () => {
    const env = new CelEnvironment({ variables: { object: 'dyn' } });
    expect(() => env.compile('object.x.all(k, v, v > 0)', { newExpression: true })).toThrow(
      new CelCompileError(
        [
          "compilation failed: ERROR: <input>:1:13: undeclared reference to 'all' (in container '')\n | object.x.all(k, v, v > 0)\n | ............^",
          "ERROR: <input>:1:14: undeclared reference to 'k' (in container '')\n | object.x.all(k, v, v > 0)\n | .............^",
          "ERROR: <input>:1:17: undeclared reference to 'v' (in container '')\n | object.x.all(k, v, v > 0)\n | ................^",
          "ERROR: <input>:1:20: undeclared reference to 'v' (in container '')\n | object.x.all(k, v, v > 0)\n | ...................^",
        ].join('\n'),
      ),
    );
    expect(env.compile('object.x.all(k, k > 0)', { newExpression: true }).outputType).toBe('bool');
    expect(env.compile('object.x.all(k, v, v > 0)').outputType).toBe('bool');
  });
});
