import type { RequestHandler } from 'express';
import { requestState } from '../../endpoints/request-state';
import { isLongRunning } from './timeout';

const mutating = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * kube's max-in-flight filter: 429 in plain text with Retry-After: 1; long-running requests (watches,
 * and the exec, attach, portforward, proxy and log subresources) and system:masters are exempt.
 */
export function withMaxInFlight(limits: { readOnly: number; mutating: number }): RequestHandler {
  const inFlight = { readOnly: 0, mutating: 0 };
  return (_req, res, next) => {
    const state = requestState(res);
    const { info, user } = state;
    if (isLongRunning(info)) return next();
    // kube: members of system:masters are never throttled.
    if (user?.groups.includes('system:masters')) return next();
    const kind = mutating.has(info.verb) ? 'mutating' : 'readOnly';
    if (limits[kind] > 0 && inFlight[kind] >= limits[kind]) {
      res.status(429).setHeader('Retry-After', '1');
      // Go's http.Error, which kube's max-in-flight filter answers with.
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.type('text/plain; charset=utf-8').send('Too many requests, please try again later.\n');
      return;
    }
    inFlight[kind]++;
    let done = false;
    const release = (): void => {
      if (!done) {
        done = true;
        inFlight[kind]--;
      }
    };
    // kube holds the slot until the handler returns: normally when the response ends; after the
    // request-timeout filter's 504 (the handler still working), when the handler ends its own.
    const ended = (): void => {
      if (state.handlerAfterTimeout) void state.handlerAfterTimeout.then(release);
      else release();
    };
    if (res.writableEnded) ended();
    else {
      res.on('finish', ended);
      res.on('close', ended);
    }
    next();
  };
}
