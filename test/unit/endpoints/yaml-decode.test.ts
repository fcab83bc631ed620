import * as yaml from 'js-yaml';
import { decodeYaml, excessiveAliasing, YamlError } from '../../../src/endpoints/yaml-decode';
import { decodeYamlAsync, stopBodyWorkers } from '../../../src/endpoints/body-worker';
import { yamlValueCorpus } from './yaml-corpus';

afterAll(() => stopBodyWorkers());

/** Past 500 levels a document is decoded on a decoder thread (body-worker.ts), as the server does. */
const msgDeep = async (text: string): Promise<string> => {
  try {
    await decodeYamlAsync(text);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlError);
    return (e as Error).message;
  }
  throw new Error('decoded');
};

const msg = (text: string): string => {
  try {
    decodeYaml(text);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlError);
    return (e as Error).message;
  }
  throw new Error('decoded');
};

/** The 9-level billion-laughs body of the issue: 9^9 strings once expanded. */
function aliasBomb(): string {
  const lines = [`a0: &a0 [${Array(9).fill('lol').join(',')}]`];
  for (let i = 1; i < 9; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
  return lines.join('\n') + '\n';
}

describe('values: as js-yaml 4 JSON_SCHEMA loaded them', () => {
  test.each(yamlValueCorpus)('%j', (text) => {
    expect(decodeYaml(text)).toEqual({ value: yaml.load(text, { schema: yaml.JSON_SCHEMA }), duplicates: [] });
  });

  test('aliases expand to copies, not shared objects', () => {
    const { value } = decodeYaml('a: &x {p: [1]}\nb: *x\n') as { value: { a: { p: number[] }; b: { p: number[] } } };
    expect(value.b).toEqual({ p: [1] });
    expect(value.b).not.toBe(value.a);
    expect(value.b.p).not.toBe(value.a.p);
  });

  test('__proto__ is an ordinary key', () => {
    const { value } = decodeYaml('__proto__: {polluted: true}\n') as { value: Record<string, unknown> };
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('only the first document is read', () => {
    expect(decodeYaml('a: 1\n---\nb: 2\n').value).toEqual({ a: 1 });
  });
});

describe('repeated keys: every one from one parse, go-yaml text, last value wins', () => {
  test.each<[string, string[], unknown]>([
    ['a: 1\nb: 2\n', [], { a: 1, b: 2 }],
    ['a: 1\na: 2\n', ['line 2: key "a" already set in map'], { a: 2 }],
    ['a: 1\na: 2\na: 3\n', ['line 2: key "a" already set in map', 'line 3: key "a" already set in map'], { a: 3 }],
    [
      'metadata:\n  name: x\n  name: y\ndata:\n  k: v\n  j: w\n  k: u\n',
      ['line 3: key "name" already set in map', 'line 7: key "k" already set in map'],
      { metadata: { name: 'y' }, data: { k: 'u', j: 'w' } },
    ],
    ['"a": 1\n"a": 2\n', ['line 2: key "a" already set in map'], { a: 2 }],
    ['{a: 1, a: 2}', ['key "a" already set in map'].map((s) => `line 1: ${s}`), { a: 2 }],
    // go-yaml reports a repeat after decoding its value, at the value's line.
    ['a: 1\na:\n  x: 1\n  x: 2\n', ['line 4: key "x" already set in map', 'line 3: key "a" already set in map'], { a: { x: 2 } }],
    // go-yaml keys keep their type: 1 and "1" differ.
    ['1: a\n"1": b\n', [], { '1': 'b' }],
    ['k: "a\\nb"\n"k": c\n', ['line 2: key "k" already set in map'], { k: 'c' }],
  ])('%j', (text, duplicates, value) => {
    expect(decodeYaml(text)).toEqual({ value, duplicates });
  });

  test('100 repeats in a 2.8 MiB body: one pass', () => {
    const filler = `pad: "${'x'.repeat(2.8 * 1024 * 1024)}"\n`;
    const text = filler + Array.from({ length: 101 }, (_, i) => `k: ${i}\n`).join('');
    const t0 = process.hrtime.bigint();
    const r = decodeYaml(text);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(`2.8 MiB body, 100 repeated keys: ${ms.toFixed(1)} ms`);
    expect(r.duplicates).toHaveLength(100);
    expect(r.duplicates[99]).toBe('line 102: key "k" already set in map');
    expect((r.value as { k: number }).k).toBe(100);
  });
});

describe('aliases: go-yaml v2 rules, by counting', () => {
  test('the ratio rule', () => {
    expect(excessiveAliasing(1000, 999)).toBe(false); // decodeCount must pass 1000
    expect(excessiveAliasing(1001, 100)).toBe(false); // aliasCount must pass 100
    expect(excessiveAliasing(2000, 1979)).toBe(false); // 0.9895
    expect(excessiveAliasing(2000, 1981)).toBe(true); // 0.9905 > 0.99
    expect(excessiveAliasing(2_200_000, 1_000_000)).toBe(false); // allowed 0.545
    expect(excessiveAliasing(2_200_000, 1_210_000)).toBe(true);
    expect(excessiveAliasing(5_000_000, 500_001)).toBe(true); // 0.10 past 4M
  });

  test('the billion laughs are refused without being expanded', () => {
    const t0 = process.hrtime.bigint();
    expect(msg(aliasBomb())).toBe('yaml: document contains excessive aliasing');
    console.log(`alias bomb: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
  });

  test('a few levels of the same shape are fine (ratio under 0.99)', () => {
    const lines = [`a0: &a0 [${Array(9).fill('lol').join(',')}]`];
    for (let i = 1; i < 3; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
    const v = decodeYaml(lines.join('\n')).value as { a2: string[][][] };
    expect(v.a2.flat(2)).toHaveLength(729);
  });

  test('self-reference and unknown anchors', () => {
    expect(msg('fieldsV1: &a {f:x: *a}\n')).toBe("yaml: anchor 'a' value contains itself");
    expect(msg('a: &x [1, [*x]]\n')).toBe("yaml: anchor 'x' value contains itself");
    expect(msg('a: *x\n')).toBe("yaml: unknown anchor 'x' referenced");
    // A parser error (unknown anchor) wins over a decoder one that comes first in the text.
    expect(msg('a: &s [*s]\nb: *nope\n')).toBe("yaml: unknown anchor 'nope' referenced");
  });

  test('a big string aliased many times is refused before anything is built', () => {
    const text = `s: &s "${'x'.repeat(1024 * 1024)}"\nl: [${Array(100).fill('*s').join(',')}]\n`;
    expect(msg(text)).toBe('yaml: document contains excessive aliasing');
  });
});

describe('depth: go-yaml allows 10000 flow levels and 10000 block levels', () => {
  const flow = (d: number): string => '['.repeat(d) + ']'.repeat(d);
  const flowMap = (d: number): string => '{a: '.repeat(d) + '1' + '}'.repeat(d);
  const blockSeq = (d: number): string => '- '.repeat(d) + 'x\n';
  const blockMap = (d: number): string => Array.from({ length: d }, (_, i) => ' '.repeat(i) + 'k:').join('\n') + ' 1\n';

  const depthOf = (v: unknown): number => {
    let d = 0;
    while (v !== null && typeof v === 'object') {
      d++;
      v = Array.isArray(v) ? v[0] : Object.values(v as object)[0];
    }
    return d;
  };

  test.each([
    ['flow sequences', flow],
    ['flow mappings', flowMap],
    ['block sequences', blockSeq],
  ])('%s: 10000 decode, 10001 is refused', async (_name, gen) => {
    const t0 = process.hrtime.bigint();
    expect(depthOf((await decodeYamlAsync(gen(10000))).value)).toBe(10000);
    console.log(`${_name} at depth 10000: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
    expect(await msgDeep(gen(10001))).toBe('yaml: exceeded max depth of 10000');
  });

  test('block mappings: 10000 decode; 10001 is refused with the line', async () => {
    expect(depthOf((await decodeYamlAsync(blockMap(10000))).value)).toBe(10000);
    expect(await msgDeep(blockMap(10001))).toBe('yaml: line 10001: exceeded max depth of 10000');
  });

  test('the line of a deep flow on a later line', async () => {
    expect(await msgDeep(`a: 1\nb: ${flow(10001)}\n`)).toBe('yaml: line 2: exceeded max depth of 10000');
  });

  test('far deeper than the limit (a 3 MiB `[[[[…`) is refused quickly', async () => {
    const t0 = process.hrtime.bigint();
    expect(await msgDeep('['.repeat(3 * 1024 * 1024))).toBe('yaml: exceeded max depth of 10000');
    console.log(`3 MiB of [: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
  });

  test('an indentless sequence adds no level', () => {
    expect(decodeYaml('k:\n- a\n').value).toEqual({ k: ['a'] });
  });
});

describe('syntax errors are YamlErrors with bounded go-yaml-style text', () => {
  test.each(['a: [1\n', 'a: "x\n', 'a:\n\t- b\n', 'key: @x\n', '[a, b]]'])('%j', (text) => {
    const m = msg(text);
    expect(m.startsWith('yaml: ')).toBe(true);
    expect(m.length).toBeLessThan(400);
  });
});

describe('timings (printed, not asserted): 3 MiB bodies of several shapes', () => {
  const MiB = 1024 * 1024;
  const fill = (unit: (i: number) => string, head = '', tail = ''): string => {
    const parts: string[] = [head];
    let n = head.length;
    for (let i = 0; n < 3 * MiB - 200; i++) {
      const u = unit(i);
      parts.push(u);
      n += u.length;
    }
    parts.push(tail);
    return parts.join('');
  };
  const shapes: Record<string, string> = {
    'configmap data': fill((i) => `  key${i}: "value number ${i}"\n`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n'),
    'one big string': `data:\n  k: "${'x'.repeat(3 * MiB - 100)}"\n`,
    'list of small maps': fill((i) => `- {name: item${i}, v: [1, 2.5, true, null]}\n`),
    'block items': fill((i) => `  - name: item${i}\n    labels:\n      app: web\n    text: |\n      line one\n`, 'items:\n'),
    'flow scalars': fill((i) => `${i},`, 'a: [', '0]\n'),
    'empty values': fill((i) => `k${i}:\n`),
    'repeated keys': fill(() => 'k: v\n'),
    'aliases of a scalar': fill(() => '*s,', 's: &s x\nl: [', '*s]\n'),
    'aliases of a list': fill(() => '*s,', 's: &s [a, b, c, d, e, f, g, h]\nl: [', '*s]\n'),
    'deep block at 600': Array.from({ length: 600 }, (_, i) => ' '.repeat(i) + 'k:').join('\n') + ' 1\n',
  };
  test.each(Object.keys(shapes))('%s', async (name) => {
    const text = shapes[name] as string;
    const times: number[] = [];
    let outcome = '';
    for (let r = 0; r < 3; r++) {
      const t0 = process.hrtime.bigint();
      try {
        const d = await decodeYamlAsync(text);
        outcome = `ok, ${d.duplicates.length} repeats`;
      } catch (e) {
        outcome = (e as Error).message.slice(0, 60);
      }
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    console.log(`${name} (${(text.length / MiB).toFixed(2)} MiB): ${times.map((t) => t.toFixed(0)).join(' / ')} ms — ${outcome}`);
  });
});
