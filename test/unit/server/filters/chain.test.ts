/**
 * The filters run as one handler (inSequence) and, with resource requests, ahead of the Express app
 * (frontOfApp): the contract of Express's layers — next() goes on, next(err), a throw and a rejected
 * promise reach the error handler, next('route') goes on — and what nobody answers goes to the app.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { frontOfApp, inSequence } from '../../../../src/server/filters/chain';

const req = {} as Request;
const res = {} as Response;
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Runs `handler`; resolves with what its final next got ('done' for no argument), or 'pending'. */
async function outcome(handler: RequestHandler): Promise<unknown> {
  let got: unknown = 'pending';
  handler(req, res, ((err?: unknown) => (got = err === undefined ? 'done' : err)) as NextFunction);
  await turn();
  return got;
}

test('each handler runs in order; the last next() leaves', async () => {
  const order: string[] = [];
  const step =
    (name: string): RequestHandler =>
    (_q, _s, next) => {
      order.push(name);
      next();
    };
  expect(await outcome(inSequence([step('a'), step('b'), step('c')]))).toBe('done');
  expect(order).toEqual(['a', 'b', 'c']);
});

test('an async handler goes on when it calls next after an await', async () => {
  const order: string[] = [];
  const chain = inSequence([
    async (_q, _s, next) => {
      await turn();
      order.push('a');
      next();
    },
    (_q, _s, next) => {
      order.push('b');
      next();
    },
  ]);
  expect(await outcome(chain)).toBe('done');
  expect(order).toEqual(['a', 'b']);
});

test("next('route') goes on, as for a layer mounted with use", async () => {
  const seen: string[] = [];
  const chain = inSequence([(_q, _s, next) => next('route'), (_q, _s, next) => (seen.push('b'), next())]);
  expect(await outcome(chain)).toBe('done');
  expect(seen).toEqual(['b']);
});

test('next(err), a throw and a rejected promise end the sequence with the error', async () => {
  const after = jest.fn();
  const boom = new Error('boom');
  expect(await outcome(inSequence([(_q, _s, next) => next(boom), after]))).toBe(boom);
  expect(
    await outcome(
      inSequence([
        () => {
          throw boom;
        },
        after,
      ]),
    ),
  ).toBe(boom);
  expect(await outcome(inSequence([async () => Promise.reject(boom), after]))).toBe(boom);
  expect(after).not.toHaveBeenCalled();
});

test('a promise rejected with nothing is an error all the same (as Express has it)', async () => {
  const got = await outcome(inSequence([async () => Promise.reject(undefined)]));
  expect(got).toBeInstanceOf(Error);
  expect((got as Error).message).toBe('Rejected promise');
});

test('a handler that answers and never calls next ends the sequence', async () => {
  const after = jest.fn();
  expect(await outcome(inSequence([() => undefined, after]))).toBe('pending');
  expect(after).not.toHaveBeenCalled();
});

describe('frontOfApp', () => {
  const pass: RequestHandler = (_q, _s, next) => next();

  test('what the filters and the resource handler pass on goes to the app', async () => {
    const toApp = jest.fn();
    const onError = jest.fn();
    frontOfApp(pass, pass, onError)(req, res, toApp);
    await turn();
    expect(toApp).toHaveBeenCalledTimes(1);
    expect(onError).not.toHaveBeenCalled();
  });

  test('a served resource request never reaches the app', async () => {
    const toApp = jest.fn();
    const served = jest.fn();
    frontOfApp(pass, () => served(), jest.fn())(req, res, toApp);
    await turn();
    expect(served).toHaveBeenCalledTimes(1);
    expect(toApp).not.toHaveBeenCalled();
  });

  test("an error of a filter or of the resource handler goes to the app's error handler, not to the app", async () => {
    const boom = new Error('boom');
    for (const [filters, serve] of [
      [(_q: Request, _s: Response, next: NextFunction) => next(boom), pass],
      [pass, async () => Promise.reject(boom)],
    ] as Array<[RequestHandler, RequestHandler]>) {
      const toApp = jest.fn();
      const onError = jest.fn();
      frontOfApp(filters, serve, onError)(req, res, toApp);
      await turn();
      expect(onError).toHaveBeenCalledWith(boom, req, res, expect.any(Function));
      expect(toApp).not.toHaveBeenCalled();
    }
  });

  test('an error handler that fails too: a bare 500, or the connection cut once the answer has started', async () => {
    const fail = (): void => {
      throw new Error('handler bug');
    };
    const raise: RequestHandler = (_q, _s, next) => next(new Error('boom'));
    const fresh = { headersSent: false, status: jest.fn(), end: jest.fn(), destroy: jest.fn() };
    fresh.status.mockReturnValue(fresh);
    frontOfApp(raise, pass, fail)(req, fresh as unknown as Response, jest.fn());
    expect(fresh.status).toHaveBeenCalledWith(500);
    expect(fresh.end).toHaveBeenCalled();
    const started = { headersSent: true, status: jest.fn(), end: jest.fn(), destroy: jest.fn() };
    frontOfApp(raise, pass, fail)(req, started as unknown as Response, jest.fn());
    expect(started.destroy).toHaveBeenCalled();
    expect(started.status).not.toHaveBeenCalled();
  });
});
