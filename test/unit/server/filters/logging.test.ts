import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import winston from 'winston';
import { withLogging } from '../../../../src/server/filters/logging';
import { addAuditAnnotation } from '../../../../src/api/request-context';
import { beginRequest } from '../../../../src/endpoints/request-state';
import { requestInfoFor } from '../../../../src/endpoints/request-info';

function run(level: string, annotate?: (state: ReturnType<typeof beginRequest>) => void): { lines: Array<Record<string, unknown>>; finishListeners: number } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string, unknown>, _enc, done) {
      lines.push(info);
      done();
    },
  });
  const logger = winston.createLogger({ level, transports: [new winston.transports.Stream({ stream })] });
  const res = Object.assign(new EventEmitter(), { statusCode: 201 });
  const state = beginRequest(res, { auditId: 'id', info: requestInfoFor('POST', '/api/v1/namespaces/default/secrets', false) });
  state.user = { name: 'admin', uid: '', groups: [] };
  const req = { method: 'POST', originalUrl: '/api/v1/namespaces/default/secrets' };
  let nexts = 0;
  withLogging(logger)(req as unknown as Request, res as unknown as Response, (() => nexts++) as NextFunction);
  expect(nexts).toBe(1);
  // What admission adds while the request is handled, after the filter ran.
  annotate?.(state);
  const finishListeners = res.listenerCount('finish');
  res.emit('finish');
  return { lines, finishListeners };
}

describe('withLogging', () => {
  it('logs one line per finished request at -v=2 (level http)', () => {
    const { lines } = run('http');
    expect(lines).toEqual([expect.objectContaining({ level: 'http', message: 'request', verb: 'create', code: 201, user: 'admin' })]);
  });

  it("carries the request's audit annotations when it has some (no audit event records them yet)", () => {
    const { lines } = run('http', (state) => addAuditAnnotation(state, 'imagepolicywebhook.image-policy.k8s.io/checked', 'yes'));
    expect(lines).toEqual([expect.objectContaining({ message: 'request', auditAnnotations: { 'imagepolicywebhook.image-policy.k8s.io/checked': 'yes' } })]);
    expect(run('http').lines[0]).not.toHaveProperty('auditAnnotations');
  });

  it('does not even listen for the end of a request when the level drops request lines', () => {
    const { lines, finishListeners } = run('info');
    expect(lines).toEqual([]);
    expect(finishListeners).toBe(0);
  });
});
