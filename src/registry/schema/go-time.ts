/**
 * time.Parse(time.RFC3339, s) as metav1.Time.UnmarshalJSON runs it: Go's general layout parser
 * (lenient about one-digit hours, fractional seconds accepted) and its error texts:
 * `parsing time "<v>" as "2006-01-02T15:04:05Z07:00": cannot parse "<rest>" as "<elem>"`,
 * `parsing time "<v>": month out of range`, `parsing time "<v>": extra text: "<rest>"`.
 */
import { goQuote } from '../../api';

const LAYOUT = '2006-01-02T15:04:05Z07:00';

type Step =
  | { kind: 'lit'; text: string }
  | { kind: 'num'; elem: string; width: number; fixed: boolean; range?: [number, number, string] };

const steps: Step[] = [
  { kind: 'num', elem: '2006', width: 4, fixed: true },
  { kind: 'lit', text: '-' },
  { kind: 'num', elem: '01', width: 2, fixed: true, range: [1, 12, 'month'] },
  { kind: 'lit', text: '-' },
  { kind: 'num', elem: '02', width: 2, fixed: true, range: [1, 31, 'day'] },
  { kind: 'lit', text: 'T' },
  { kind: 'num', elem: '15', width: 2, fixed: false, range: [0, 23, 'hour'] },
  { kind: 'lit', text: ':' },
  { kind: 'num', elem: '04', width: 2, fixed: true, range: [0, 59, 'minute'] },
  { kind: 'lit', text: ':' },
  { kind: 'num', elem: '05', width: 2, fixed: true, range: [0, 59, 'second'] },
];

/** Go's "cannot parse" error. */
function cannotParse(value: string, rest: string, elem: string): string {
  return `parsing time ${goQuote(value)} as ${goQuote(LAYOUT)}: cannot parse ${goQuote(rest)} as ${goQuote(elem)}`;
}

/** Returns undefined when Go accepts `value` as an RFC 3339 time, else Go's error message. */
export function goTimeParseError(value: string): string | undefined {
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const step of steps) {
    if (step.kind === 'lit') {
      if (!rest.startsWith(step.text)) return cannotParse(value, rest, step.text);
      rest = rest.slice(step.text.length);
      continue;
    }
    const m = step.elem === '2006' ? /^[0-9]{4}/.exec(rest) : step.fixed ? /^[0-9]{2}/.exec(rest) : /^[0-9]{1,2}/.exec(rest);
    if (!m) return cannotParse(value, rest, step.elem);
    const n = Number(m[0]);
    rest = rest.slice(m[0].length);
    if (step.elem === '2006') year = n;
    else if (step.elem === '01') month = n;
    else if (step.elem === '02') day = n;
    if (step.range && (n < step.range[0] || n > step.range[1])) {
      return `parsing time ${goQuote(value)}: ${step.range[2]} out of range`;
    }
    if (step.elem === '05') {
      // Fractional seconds follow the seconds even though the layout has none.
      const frac = /^[.,][0-9]+/.exec(rest);
      if (frac) rest = rest.slice(frac[0].length);
    }
  }
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else {
    const z = /^[+-]([0-9]{2}):([0-9]{2})/.exec(rest);
    if (!z) return cannotParse(value, rest, 'Z07:00');
    if (Number(z[1]) > 24) return `parsing time ${goQuote(value)}: time zone offset hour out of range`;
    if (Number(z[2]) > 60) return `parsing time ${goQuote(value)}: time zone offset minute out of range`;
    rest = rest.slice(z[0].length);
  }
  if (rest.length > 0) return `parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`;
  if (day > daysIn(month, year)) return `parsing time ${goQuote(value)}: day out of range`;
  return undefined;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
