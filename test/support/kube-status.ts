/** Expected kube Status bodies for integration tests, in kube's JSON key order. */
import type { HttpResult } from './api-server';

/** The wire shape of a metav1.Status (keys in Go struct order). */
export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
  code?: number;
}

/** A Failure Status as kube builds it: details only when given, code last. */
export function failure(code: number, reason: string, message: string, details?: Record<string, unknown>): StatusBody {
  const s: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details !== undefined) s.details = details;
  s.code = code;
  return s;
}

/** One cause of an Invalid Status (keys reason, message, field as kube serialises StatusCause). */
export function cause(reason: string, field: string, message: string): Record<string, string> {
  return { reason, message, field };
}

/**
 * Asserts the HTTP code, a JSON content type and the body byte for byte (kube's encoder ends the
 * document with a newline and keeps Go's field order).
 */
export function expectStatus(r: HttpResult, expected: StatusBody): void {
  expect({ code: r.status, body: r.json() }).toEqual({ code: expected.code ?? 200, body: expected });
  // kube sets the bare media type, without a charset parameter.
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.text).toBe(`${JSON.stringify(expected)}\n`);
}

/** The `Warning` response headers of a result, as an array of raw header values. */
export function warningHeaders(r: HttpResult): string[] {
  const w = r.headers.warning;
  if (w === undefined) return [];
  const all = Array.isArray(w) ? w : [w];
  // Node joins repeated headers with ", " unless the header is a known multi-value one.
  return all.flatMap((v) => v.split(/, (?=299 )/));
}
