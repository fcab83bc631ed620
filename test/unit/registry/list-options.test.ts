/**
 * The list options of a request as kube 1.32's handlers leave them (SetListOptionsDefaults and
 * ValidateListOptions, given gate WatchList), and the store's own validation of them.
 */
import { ApiError } from '../../../src/api';
import { ListQuery, requestListQuery, resolveList } from '../../../src/registry/list-options';
import { builtinResources } from '../../../src/registry/resources';

const secrets = builtinResources.find((d) => d.resource === 'secrets')!;

/** The 422 a call throws, as kube's Status reports it: message and causes. */
function invalid(fn: () => unknown): { message?: string; causes?: unknown } {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    expect(e.code).toBe(422);
    return { message: e.status.message, causes: e.status.details?.causes };
  }
  throw new Error('no error');
}

describe('WatchList on (the 1.32 default): SetListOptionsDefaults', () => {
  test.each([[undefined], [''], ['0']])('a watch from resourceVersion %p naming neither option becomes a streaming list', (rv) => {
    expect(requestListQuery({ watch: true, resourceVersion: rv }, true)).toEqual({
      watch: true,
      resourceVersion: rv,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
    });
  });

  test.each<[string, ListQuery]>([
    ['a list', { resourceVersion: '' }],
    ['a watch from resourceVersion N', { watch: true, resourceVersion: '12' }],
    ['a watch naming sendInitialEvents=false', { watch: true, sendInitialEvents: false }],
    ['a watch naming sendInitialEvents=true', { watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }],
    ['a watch naming resourceVersionMatch', { watch: true, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }],
  ])('%s is left as it is', (_what, q) => {
    expect(requestListQuery(q, true)).toBe(q);
  });

  test('sendInitialEvents on a watch passes the gate; its other rules stay the store’s', () => {
    const q: ListQuery = { watch: true, sendInitialEvents: true };
    expect(requestListQuery(q, true)).toBe(q);
    expect(invalid(() => resolveList(secrets, '/r/secrets/', q))).toEqual({
      message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan', field: 'resourceVersionMatch' }],
    });
  });
});

describe('WatchList off', () => {
  test('no defaults: a watch from resourceVersion unset stays a legacy watch', () => {
    const q: ListQuery = { watch: true };
    expect(requestListQuery(q, false)).toBe(q);
  });

  test.each([['true'], ['false']])('sendInitialEvents=%s on a watch is refused naming the gate (field sendInitialEvents)', (v) => {
    const q: ListQuery = { watch: true, sendInitialEvents: v === 'true', resourceVersionMatch: 'NotOlderThan' };
    expect(invalid(() => requestListQuery(q, false))).toEqual({
      message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      causes: [
        { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', field: 'sendInitialEvents' },
      ],
    });
  });

  test("with resourceVersionMatch missing too, both errors in kube's order", () => {
    expect(invalid(() => requestListQuery({ watch: true, sendInitialEvents: true }, false))).toEqual({
      message:
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]',
      causes: [
        { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan', field: 'resourceVersionMatch' },
        { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', field: 'sendInitialEvents' },
      ],
    });
  });

  test('a list naming sendInitialEvents gets the list rule, not the gate’s (from the store)', () => {
    const q: ListQuery = { sendInitialEvents: true };
    expect(requestListQuery(q, false)).toBe(q);
    expect(invalid(() => resolveList(secrets, '/r/secrets/', q)).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
  });

  test('the store itself still takes streaming options (the server’s own watchers use them)', () => {
    expect(() => resolveList(secrets, '/r/secrets/', { watch: true, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' })).not.toThrow();
  });
});
