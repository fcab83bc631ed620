/**
 * One real etcd and one server for a test file (or a describe block): started before its tests,
 * stopped after them.
 *
 *   const { srv, etcd } = useTestServer();                 // in the file's top level
 *   test('…', async () => { await srv.request('GET', '/api') });
 *
 * Several servers on one etcd (each with its own key prefix unless told otherwise):
 *
 *   const etcd = useTestEtcd();
 *   describe.each([true, false])('watchCache %s', (watchCache) => {
 *     const { srv } = useTestServer({ etcd, watchCache });
 *   });
 *
 * The handles returned stand for the server and etcd once they are up (they may be used inside
 * tests and hooks, not at the top level). Whatever the order the hooks were declared in, every server
 * on an etcd stops before that etcd does; `beforeStop` runs just before its server stops.
 */
import { startTestEtcd, type TestEtcd } from './etcd';
import { startTestServer, type TestServer, type TestServerOptions } from './api-server';

export interface TestServerFixture {
  srv: TestServer;
  etcd: TestEtcd;
}

export interface UseTestServerOptions extends Omit<TestServerOptions, 'etcdEndpoints'> {
  /** An etcd from useTestEtcd() (or another fixture) to share; default: a fresh etcd for this server. */
  etcd?: TestEtcd;
  /** Runs after the tests, before the server stops (e.g. to close a client's HTTP/2 session). */
  beforeStop?: () => unknown;
}

export interface UseTestEtcdOptions {
  /** Runs after the tests, before etcd stops (e.g. to close stores opened on it). */
  beforeStop?: () => unknown;
}

/** The stops of what runs on each fixture etcd, run (last started first) before that etcd stops. */
const usersOf = new WeakMap<TestEtcd, Array<() => Promise<void>>>();

/** One etcd for the enclosing scope (the file, or a describe block). */
export function useTestEtcd(opts: UseTestEtcdOptions = {}): TestEtcd {
  let etcd: TestEtcd | undefined;
  const users: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    etcd = await startTestEtcd();
  });
  afterAll(async () => {
    for (const stop of users.reverse()) await stop();
    await opts.beforeStop?.();
    await etcd?.stop();
  });
  const h = handle(() => etcd, 'etcd');
  usersOf.set(h, users);
  return h;
}

/** One server for the enclosing scope, on its own etcd or on `opts.etcd`. */
export function useTestServer(opts: UseTestServerOptions = {}): TestServerFixture {
  const { etcd: shared, beforeStop, ...serverOpts } = opts;
  const etcd = shared ?? useTestEtcd();
  let srv: TestServer | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      if (!srv) return;
      await beforeStop?.();
      await srv.stop();
    })());
  beforeAll(async () => {
    srv = await startTestServer({ ...serverOpts, etcdEndpoints: etcd.endpoints });
  });
  afterAll(stop);
  usersOf.get(etcd)?.push(stop);
  return { srv: handle(() => srv, 'server'), etcd };
}

/** An object that forwards every property to the value `get` returns once it exists. */
function handle<T extends object>(get: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const v = get();
      if (!v) throw new Error(`the test ${what} is not started yet: use it inside a test or hook`);
      const x: unknown = Reflect.get(v, key);
      return typeof x === 'function' ? (x as (...a: unknown[]) => unknown).bind(v) : x;
    },
  });
}
