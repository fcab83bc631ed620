/**
 * The request's context as storage and webhooks read it (api/request-context.ts): kube's ctx.Err()
 * from the deadline, the marks the timeout filter and deadline-bound calls leave, and a context
 * for another namespace that ends with the request, and the context's end as an AbortSignal.
 */
import { contextError, contextSignal, deadlineReached, endContext, requestDone, withNamespace, type RequestContext } from '../../../src/api/request-context';

const context = (over: Partial<RequestContext> = {}): RequestContext => ({ namespace: 'ns', warnings: [], dryRun: false, now: () => new Date(), ...over });

test('no deadline and no mark: never done (the server\'s own writes)', () => {
  const ctx = context();
  expect(contextError(ctx)).toBeUndefined();
  expect(requestDone(ctx)).toBe(false);
});

test('a deadline still ahead: not done; one the clock has passed: deadline exceeded', () => {
  expect(contextError(context({ deadlineAt: performance.now() + 60_000 }))).toBeUndefined();
  expect(contextError(context({ deadlineAt: performance.now() - 1 }))).toBe('context deadline exceeded');
});

test('a mark wins over the clock: a timer for the deadline may fire before the clock reads it', () => {
  const ctx = context({ deadlineAt: performance.now() + 60_000 });
  deadlineReached(ctx);
  expect(contextError(ctx)).toBe('context deadline exceeded');
  expect(requestDone(ctx)).toBe(true);
  // The first end stays: a client closing after the deadline does not change why it ended.
  const gone = context({ ended: 'context canceled' });
  deadlineReached(gone);
  expect(contextError(gone)).toBe('context canceled');
});

test('the server shutting down ends the request for webhooks (requestDone), not for storage (contextError)', () => {
  const ac = new AbortController();
  ac.abort();
  const ctx = context({ signal: ac.signal });
  expect(requestDone(ctx)).toBe(true);
  expect(contextError(ctx)).toBeUndefined();
});

test('a context for another namespace is a copy that ends with the request, both ways', () => {
  const ctx = context({ deadlineAt: performance.now() + 60_000 });
  const item = withNamespace(ctx, 'other');
  expect(item).toMatchObject({ namespace: 'other', warnings: ctx.warnings });
  expect(ctx.namespace).toBe('ns');
  expect(contextError(item)).toBeUndefined();
  ctx.ended = 'context canceled';
  expect(contextError(item)).toBe('context canceled');
  const other = context();
  deadlineReached(withNamespace(other, 'x'));
  expect(contextError(other)).toBe('context deadline exceeded');
});

describe('contextSignal: the end as an AbortSignal (kube: ctx.Done())', () => {
  test('aborted when the context ends, with Go\'s ctx.Err() text; the first end stays', () => {
    const ctx = context({ deadlineAt: performance.now() + 60_000 });
    const signal = contextSignal(ctx);
    expect(signal.aborted).toBe(false);
    expect(contextSignal(ctx)).toBe(signal);
    endContext(ctx, 'context canceled');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('context canceled');
    deadlineReached(ctx);
    expect(contextError(ctx)).toBe('context canceled');
  });

  test('already aborted for a context that is done, by its mark or by the clock', () => {
    expect(contextSignal(context({ ended: 'context canceled' })).reason).toBe('context canceled');
    expect(contextSignal(context({ deadlineAt: performance.now() - 1 })).reason).toBe('context deadline exceeded');
  });

  test("a context for another namespace shares the request's end: a signal taken through either is aborted", () => {
    const ctx = context();
    const item = withNamespace(ctx, 'other');
    const fromItem = contextSignal(item);
    expect(contextSignal(ctx)).toBe(fromItem);
    endContext(ctx, 'context deadline exceeded');
    expect(fromItem.reason).toBe('context deadline exceeded');
    expect(contextError(item)).toBe('context deadline exceeded');
  });
});
