/**
 * The max-in-flight filter holds a request's slot until its handler is done, as kube's handler
 * goroutine does — also after the request-timeout filter answered 504 while the handler works on,
 * so `?timeout=` cannot be used to run more handlers at once than the limit.
 */
import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { withMaxInFlight } from '../../../../src/server/filters/max-in-flight';
import { beginRequest } from '../../../../src/endpoints/request-state';
import { requestInfoFor } from '../../../../src/endpoints/request-info';

function response(ended: boolean, method = 'GET', path = '/api/v1/namespaces') {
  const res = Object.assign(new EventEmitter(), { writableEnded: ended, statusCode: 200, headers: {} as Record<string, string> });
  const state = beginRequest(res, { auditId: 'a', info: requestInfoFor(method, path, false) });
  let handlerEnded = (): void => undefined;
  const timedOut = (): void => {
    state.handlerAfterTimeout = new Promise<void>((resolve) => (handlerEnded = resolve));
  };
  return { res: res as unknown as Response & EventEmitter & { status(): unknown }, timedOut, handlerEnded: () => handlerEnded() };
}

/** Runs the filter; true when the request got through (next), false when it was refused (429). */
function admit(filter: ReturnType<typeof withMaxInFlight>, res: Response): boolean {
  let passed = false;
  const r = res as unknown as Record<string, unknown>;
  r.status = () => r;
  r.setHeader = () => r;
  r.type = () => r;
  r.send = () => r;
  filter({} as Request, res, (() => (passed = true)) as NextFunction);
  return passed;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a live request holds the only slot until its response closes', async () => {
  const filter = withMaxInFlight({ readOnly: 1, mutating: 1 });
  const a = response(false);
  expect(admit(filter, a.res)).toBe(true);
  expect(admit(filter, response(false).res)).toBe(false);
  a.res.emit('close');
  expect(admit(filter, response(false).res)).toBe(true);
});

test('after a 504 the slot stays held until the handler ends its silenced response', async () => {
  const filter = withMaxInFlight({ readOnly: 1, mutating: 1 });
  const a = response(false);
  expect(admit(filter, a.res)).toBe(true);
  a.timedOut();
  a.res.emit('finish');
  a.res.emit('close');
  await turn();
  expect(admit(filter, response(false).res)).toBe(false);
  a.handlerEnded();
  await turn();
  expect(admit(filter, response(false).res)).toBe(true);
});

test('a request timed out before this filter still takes a slot for its handler', async () => {
  const filter = withMaxInFlight({ readOnly: 1, mutating: 1 });
  const a = response(true);
  a.timedOut();
  expect(admit(filter, a.res)).toBe(true);
  await turn();
  expect(admit(filter, response(false).res)).toBe(false);
  a.handlerEnded();
  await turn();
  expect(admit(filter, response(false).res)).toBe(true);
});

test("long-running requests take no slot (kube's BasicLongRunningRequestCheck): pods' exec, proxy, log", () => {
  const filter = withMaxInFlight({ readOnly: 1, mutating: 1 });
  expect(admit(filter, response(false).res)).toBe(true);
  expect(admit(filter, response(false, 'GET', '/api/v1/namespaces/ns/pods/p/log').res)).toBe(true);
  expect(admit(filter, response(false, 'POST', '/api/v1/namespaces/ns/pods/p/exec').res)).toBe(true);
  expect(admit(filter, response(false, 'GET', '/api/v1/namespaces/ns/pods/p/proxy/x').res)).toBe(true);
  expect(admit(filter, response(false, 'GET', '/api/v1/namespaces/ns/pods/p/status').res)).toBe(false);
});
