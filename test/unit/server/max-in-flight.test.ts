/** The max-in-flight filter holds no slot for a request already answered (the request-timeout filter's 504). */
import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { withMaxInFlight } from '../../../src/server/filters/max-in-flight';
import { beginRequest } from '../../../src/endpoints/request-state';
import { requestInfoFor } from '../../../src/endpoints/request-info';

function response(ended: boolean) {
  const res = Object.assign(new EventEmitter(), { writableEnded: ended, statusCode: 200, headers: {} as Record<string, string> });
  beginRequest(res, { auditId: 'a', info: requestInfoFor('GET', '/api/v1/namespaces', false) });
  return res as unknown as Response & EventEmitter;
}

test('an answered request passes without taking the only slot; a live one takes it', () => {
  const filter = withMaxInFlight({ readOnly: 1, mutating: 1 });
  let nexts = 0;
  const next = (() => nexts++) as NextFunction;
  filter({} as Request, response(true), next);
  filter({} as Request, response(true), next);
  const live = response(false);
  filter({} as Request, live, next);
  expect(nexts).toBe(3);
  live.emit('close');
  filter({} as Request, response(false), next);
  expect(nexts).toBe(4);
});
