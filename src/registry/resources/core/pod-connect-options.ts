/**
 * The options objects of the pods' connect subresources, decoded from the query as kube's
 * parameter codec decodes url.Values into core/v1 PodLogOptions, PodExecOptions, PodAttachOptions,
 * PodPortForwardOptions and PodProxyOptions (apimachinery's Convert_Slice_string_To_* functions):
 * the first value of a scalar, every value of a list, Go's strconv errors as the 400's message.
 * Each object carries kube's kind and apiVersion (admission webhooks see it so) and its fields in
 * Go's order.
 */
import { ApiError, KubeObject, errors, goQuote } from '../../../api';

export type Query = Record<string, string[]>;

const first = (q: Query, key: string): string | undefined => q[key]?.[0];

/** Convert_Slice_string_To_bool: absent, "0" and "false" (any case) are false; anything else, "" too, is true. */
function bool(q: Query, key: string): boolean {
  const v = q[key];
  if (!v || v.length === 0) return false;
  const s = v[0] as string;
  return !(s === '0' || s.toLowerCase() === 'false');
}

/** Go's strconv.ParseInt(s, 10, 64) error text, or the number. */
export function parseGoInt64(s: string): bigint | string {
  if (!/^[+-]?[0-9]+$/.test(s)) return `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return `strconv.ParseInt: parsing ${goQuote(s)}: value out of range`;
  return n;
}

/** Convert_Slice_string_To_Pointer_int64: the first value, or a 400 with strconv's error. */
function int64(q: Query, key: string): number | undefined {
  const s = first(q, key);
  if (s === undefined) return undefined;
  const n = parseGoInt64(s);
  if (typeof n === 'string') throw errors.badRequest(n);
  return Number(n);
}

const rfc3339 = '2006-01-02T15:04:05Z07:00';

/** Go's time.ParseError text for RFC3339 (the first element that does not match, or a range error). */
function timeError(value: string, valueElem: string, layoutElem: string): ApiError {
  return errors.badRequest(`parsing time ${goQuote(value)} as ${goQuote(rfc3339)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`);
}

/**
 * metav1.Time.UnmarshalQueryParameter: "" and "null" are no time; otherwise Go's time.Parse with
 * RFC3339, whose error names the first layout element the text does not match. Returns the time
 * as kube writes it back (RFC3339, seconds).
 */
export function parseQueryTime(value: string): string | undefined {
  if (value === '' || value === 'null') return undefined;
  let rest = value;
  const digits = (n: number, elem: string): number => {
    if (rest.length < n || !/^[0-9]+$/.test(rest.slice(0, n))) throw timeError(value, rest, elem);
    const v = Number(rest.slice(0, n));
    rest = rest.slice(n);
    return v;
  };
  const literal = (lit: string) => {
    if (!rest.startsWith(lit)) throw timeError(value, rest, lit);
    rest = rest.slice(lit.length);
  };
  const year = digits(4, '2006');
  literal('-');
  const month = digits(2, '01');
  literal('-');
  const day = digits(2, '02');
  literal('T');
  const hour = digits(2, '15');
  literal(':');
  const minute = digits(2, '04');
  literal(':');
  const second = digits(2, '05');
  // A fraction may follow the seconds though the layout has none (Go accepts it).
  const frac = /^[.,][0-9]+/.exec(rest);
  if (frac) rest = rest.slice(frac[0].length);
  let offsetMinutes = 0;
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else {
    const z = /^([+-])([0-9]{2}):([0-9]{2})/.exec(rest);
    if (!z) throw timeError(value, rest, 'Z07:00');
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
    rest = rest.slice(z[0].length);
  }
  if (rest) throw errors.badRequest(`parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`);
  const range = (what: string) => errors.badRequest(`parsing time ${goQuote(value)}: ${what} out of range`);
  if (month < 1 || month > 12) throw range('month');
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysIn) throw range('day');
  if (hour > 23) throw range('hour');
  if (minute > 59) throw range('minute');
  if (second > 59) throw range('second');
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** core/v1 PodLogOptions (`stream` left out: its gate, PodLogsQuerySplitStreams, is off in 1.32). */
export function podLogOptions(q: Query): KubeObject {
  const o: Record<string, unknown> = { kind: 'PodLogOptions', apiVersion: 'v1' };
  const container = first(q, 'container');
  if (container) o.container = container;
  if (bool(q, 'follow')) o.follow = true;
  if (bool(q, 'previous')) o.previous = true;
  const sinceSeconds = int64(q, 'sinceSeconds');
  if (sinceSeconds !== undefined) o.sinceSeconds = sinceSeconds;
  const sinceTime = first(q, 'sinceTime');
  const time = sinceTime === undefined ? undefined : parseQueryTime(sinceTime);
  if (time !== undefined) o.sinceTime = time;
  if (bool(q, 'timestamps')) o.timestamps = true;
  const tailLines = int64(q, 'tailLines');
  if (tailLines !== undefined) o.tailLines = tailLines;
  const limitBytes = int64(q, 'limitBytes');
  if (limitBytes !== undefined) o.limitBytes = limitBytes;
  if (bool(q, 'insecureSkipTLSVerifyBackend')) o.insecureSkipTLSVerifyBackend = true;
  return o as KubeObject;
}

/** The stream flags PodExecOptions and PodAttachOptions share, in Go's order. */
function streams(q: Query, o: Record<string, unknown>): void {
  if (bool(q, 'stdin')) o.stdin = true;
  if (bool(q, 'stdout')) o.stdout = true;
  if (bool(q, 'stderr')) o.stderr = true;
  if (bool(q, 'tty')) o.tty = true;
}

/** core/v1 PodExecOptions: every `command` value, in order. */
export function podExecOptions(q: Query): KubeObject {
  const o: Record<string, unknown> = { kind: 'PodExecOptions', apiVersion: 'v1' };
  streams(q, o);
  const container = first(q, 'container');
  if (container) o.container = container;
  o.command = q.command ?? null;
  return o as KubeObject;
}

/** core/v1 PodAttachOptions. */
export function podAttachOptions(q: Query): KubeObject {
  const o: Record<string, unknown> = { kind: 'PodAttachOptions', apiVersion: 'v1' };
  streams(q, o);
  const container = first(q, 'container');
  if (container) o.container = container;
  return o as KubeObject;
}

/** Go's strconv.ParseUint(s, 10, 16) error text, or the port. */
function parsePort(s: string): number | string {
  if (!/^[0-9]+$/.test(s)) return `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`;
  const n = Number(s);
  return n > 65535 ? `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` : n;
}

/** core/v1 PodPortForwardOptions: Convert_Slice_string_To_Slice_int32, every value split on commas. */
export function podPortForwardOptions(q: Query): KubeObject {
  const o: Record<string, unknown> = { kind: 'PodPortForwardOptions', apiVersion: 'v1' };
  const ports: number[] = [];
  for (const v of q.ports ?? []) {
    for (const part of v.split(',')) {
      const p = parsePort(part);
      if (typeof p === 'string') throw errors.badRequest(`cannot convert to []int32: ${p}`);
      ports.push(p);
    }
  }
  if (ports.length) o.ports = ports;
  return o as KubeObject;
}

/** core/v1 PodProxyOptions: the subpath after `proxy`, as the handler made it (kube's getRequestOptions). */
export function podProxyOptions(_q: Query, subpath: string): KubeObject {
  const o: Record<string, unknown> = { kind: 'PodProxyOptions', apiVersion: 'v1' };
  if (subpath) o.path = subpath;
  return o as KubeObject;
}
