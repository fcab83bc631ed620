/**
 * kube's warning recorder (apiserver filters/warning.go, apimachinery NewWarningHeader; kube-limits §7):
 * format, escaping, rejection, dedup, and the 4096-rune bound with its 256-rune truncating mode.
 */
import http from 'node:http';
import fc from 'fast-check';
import {
  WarningRecorder,
  appendWarnings,
  truncateAtTotalRunes,
  truncateItemRunes,
  warningHeaderValue,
  warningHeaders,
  wireValue,
} from '../../../src/endpoints/warnings';

const h = (text: string) => `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
/** Runes of a header value's text (the part between `299 - "` and the closing quote, unescaped). */
const textRunes = (value: string) => [...value.slice(7, -1).replace(/\\(["\\])/g, '$1')].length;

describe('the header value (NewWarningHeader(299, "", text))', () => {
  test('299, agent "-", the text quoted; only " and \\ are escaped', () => {
    expect(warningHeaderValue('unknown field "spec.x"')).toBe('299 - "unknown field \\"spec.x\\""');
    expect(warningHeaderValue('a\\b')).toBe('299 - "a\\\\b"');
    expect(warningHeaderValue("it's <ok> & 100% {fine}")).toBe(h("it's <ok> & 100% {fine}"));
  });

  test('non-ASCII is written as-is (no escaping, no RFC 2047)', () => {
    expect(warningHeaderValue('z😀 é ü \u00a0 \u2028 \ufeff')).toBe(h('z😀 é ü \u00a0 \u2028 \ufeff'));
  });

  test.each([
    ['TAB', '\t'],
    ['LF', '\n'],
    ['CR', '\r'],
    ['NUL', '\u0000'],
    ['ESC', '\u001b'],
    ['DEL', '\u007f'],
    ['C1 U+0080', '\u0080'],
    ['C1 NEL U+0085', '\u0085'],
    ['C1 U+009F', '\u009f'],
  ])('a text with %s (unicode.IsControl) is refused', (_name, c) => {
    expect(warningHeaderValue(`a${c}b`)).toBeUndefined();
  });
});

describe('wire bytes', () => {
  test('the UTF-8 bytes as a latin1 string, so Node writes exactly Go\'s bytes', () => {
    const v = wireValue(h('z😀é'));
    expect(Buffer.from(v, 'latin1')).toEqual(Buffer.from(h('z😀é'), 'utf8'));
    expect(wireValue(h('plain'))).toBe(h('plain'));
  });

  test('every value the recorder makes is one Node accepts as a header value', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { maxLength: 20 }), (texts) => {
        for (const v of warningHeaders(texts)) expect(() => http.validateHeaderValue('Warning', wireValue(v))).not.toThrow();
      }),
      { seed: 20251124, numRuns: 300 },
    );
  });
});

describe('recording', () => {
  test('empty texts are ignored; texts with control characters dropped; the rest kept in order', () => {
    expect(warningHeaders(['', 'b', 'bad\ttext', 'a', 'x\ny'])).toEqual([h('b'), h('a')]);
  });

  test('dedup by exact text, first occurrence wins', () => {
    expect(warningHeaders(['b', 'a', 'b', 'a ', 'a'])).toEqual([h('b'), h('a'), h('a ')]);
  });

  test('a lone surrogate reads as U+FFFD (what Go\'s JSON decoder makes of it); such texts dedupe', () => {
    expect(warningHeaders(['x\ud800', 'x\udc00', 'x\ufffd'])).toEqual([h('x\ufffd')]);
  });
});

describe('bounds: 4096 runes total, then 256-rune truncation', () => {
  test('the constants are kube\'s', () => {
    expect([truncateAtTotalRunes, truncateItemRunes]).toEqual([4096, 256]);
  });

  test('texts add up to exactly 4096 runes whole; runes, not UTF-16 units or bytes, are counted', () => {
    const emoji = '😀'.repeat(2048); // 2048 runes, 4096 UTF-16 units, 8192 bytes
    const r = new WarningRecorder();
    r.add(emoji);
    r.add('a'.repeat(2048));
    expect(r.isTruncating).toBe(false);
    expect(r.headers).toEqual([h(emoji), h('a'.repeat(2048))]);
  });

  test('the warning that would pass 4096 switches to truncating: all recorded are re-emitted cut to 256 runes', () => {
    let truncated = 0;
    const r = new WarningRecorder(() => truncated++);
    r.add('a'.repeat(3000));
    r.add('b'.repeat(1000));
    r.add('c'.repeat(97)); // 4097
    expect(truncated).toBe(1);
    expect(r.isTruncating).toBe(true);
    expect(r.headers).toEqual([h('a'.repeat(256)), h('b'.repeat(256)), h('c'.repeat(97))]);
  });

  test('a 100,000-rune text alone: one warning of its first 256 runes (rune boundary, no ellipsis)', () => {
    const text = `unknown field "${'😀'.repeat(100_000)}"`;
    const [only, ...rest] = warningHeaders([text]);
    expect(rest).toEqual([]);
    expect(only).toBe(h(`unknown field "${'😀'.repeat(256 - 15)}`));
    expect(textRunes(only!)).toBe(256);
  });

  test('in truncating mode warnings are added cut until the total reaches 4096, later ones are discarded', () => {
    const texts = ['x'.repeat(5000), ...Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(300, '.'))];
    const out = warningHeaders(texts);
    // 256 (the replayed first) + 15 × 256 = 4096: the 17th on is dropped.
    expect(out).toHaveLength(16);
    expect(out.map(textRunes).reduce((a, b) => a + b, 0)).toBe(4096);
    expect(out[15]).toBe(h('14'.padEnd(256, '.')));
  });

  test('the total can end between 4096 and 4096 + 255 runes, as kube\'s check runs before each add', () => {
    const texts = ['y'.repeat(4000), 'z'.repeat(200), ...Array.from({ length: 30 }, (_, i) => `w${i}`.padEnd(250, '-'))];
    const out = warningHeaders(texts);
    const total = out.map(textRunes).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(4096);
    expect(total).toBeLessThan(4096 + 256);
  });

  test('many short distinct texts (unknown fields): whole while they fit, then truncating mode as kube', () => {
    const texts = Array.from({ length: 1000 }, (_, i) => `unknown field "f${i}"`);
    const out = warningHeaders(texts);
    // `unknown field "fN"`: 18 runes for N < 10, 19 below 100, 20 below 1000: 180 + 1710 = 1890, then 110 more fit whole (4090).
    const whole = 10 + 90 + 110;
    // The next one switches; every text is short, so the replay keeps all 211 as they are (4110 runes):
    // truncating with the count past 4096, every later warning is discarded.
    expect(out.slice(0, whole + 1)).toEqual(texts.slice(0, whole + 1).map(h));
    expect(out).toHaveLength(whole + 1);
  });

  test('a text refused whole is still recorded: cut in truncating mode it can be kept (its control character lies past rune 256)', () => {
    const bad = `${'q'.repeat(300)}\n`;
    expect(warningHeaders([bad])).toEqual([]);
    // Cut when added in truncating mode.
    expect(warningHeaders(['x'.repeat(5000), bad])).toEqual([h('x'.repeat(256)), h('q'.repeat(256))]);
    // Refused when added, kept by the replay when truncating starts.
    expect(warningHeaders([bad, 'x'.repeat(5000)])).toEqual([h('q'.repeat(256)), h('x'.repeat(256))]);
    // Recorded for dedup although refused.
    expect(warningHeaders([bad, bad, 'x'.repeat(5000)])).toEqual([h('q'.repeat(256)), h('x'.repeat(256))]);
    expect(warningHeaders(['\n'.repeat(300), 'x'.repeat(5000)])).toEqual([h('x'.repeat(256))]);
  });

  test('a bound holds for any input: at most 4096 + 255 runes, each value a header Node accepts', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 700 }), { maxLength: 60 }), (texts) => {
        const total = warningHeaders(texts).map(textRunes).reduce((a, b) => a + b, 0);
        expect(total).toBeLessThan(4096 + 256);
      }),
      { seed: 20251124, numRuns: 200 },
    );
  });
});

describe('appendWarnings', () => {
  it('stops adding once the recorder discards, with the same headers as adding everything', () => {
    const make = (i: number) => `unknown field "f${i % 700}${'x'.repeat(i % 3 === 0 ? 300 : 5)}"`;
    for (const before of [[], ['a', 'a', 'b'], ['y'.repeat(5000)]]) {
      const all = [...before];
      for (let i = 0; i < 5000; i++) all.push(make(i));
      const list = [...before];
      appendWarnings(list, 5000, make);
      expect(list.length).toBeLessThan(all.length);
      expect(warningHeaders(list)).toEqual(warningHeaders(all));
    }
  });

  it('adds every text while the recorder keeps them', () => {
    const list = ['first'];
    appendWarnings(list, 3, (i) => `w${i}`);
    expect(list).toEqual(['first', 'w0', 'w1', 'w2']);
    appendWarnings(list, 0, () => 'never');
    expect(list).toHaveLength(4);
  });
});
