/**
 * One real etcd and one server for a test file: started before its tests, stopped after them.
 *
 *   const { srv, etcd } = useTestServer();                 // in the file's top level
 *   test('…', async () => { await srv.request('GET', '/api') });
 *
 * The handles returned stand for the server and etcd once they are up (they may be used inside
 * tests and hooks, not at the top level).
 */
import { startTestEtcd, type TestEtcd } from './etcd';
import { startTestServer, type TestServer, type TestServerOptions } from './api-server';

export interface TestServerFixture {
  srv: TestServer;
  etcd: TestEtcd;
}

export function useTestServer(opts: Omit<TestServerOptions, 'etcdEndpoints'> = {}): TestServerFixture {
  let etcd: TestEtcd | undefined;
  let srv: TestServer | undefined;
  beforeAll(async () => {
    etcd = await startTestEtcd();
    srv = await startTestServer({ ...opts, etcdEndpoints: etcd.endpoints });
  });
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  });
  return { srv: handle(() => srv, 'server'), etcd: handle(() => etcd, 'etcd') };
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
