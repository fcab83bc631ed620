/** Fresh namespaces for the tests of a file, made through kubectl. */
import type { TestServer } from './api-server';
import { until } from './until';

/**
 * A maker of namespaces named `<prefix>-<pid>-<n>`, each created by kubectl (which must print no
 * error). With `forPods` it also waits for the namespace's default ServiceAccount: the
 * ServiceAccount admission plugin refuses pods until the controller has made it.
 */
export function namespaceMaker(srv: TestServer, prefix: string, o: { forPods?: boolean } = {}): () => Promise<string> {
  let n = 0;
  return async () => {
    const ns = `${prefix}-${process.pid}-${++n}`;
    expect((await srv.kubectl(['create', 'namespace', ns])).stderr).toBe('');
    if (o.forPods) await until('the default service account', async () => (await srv.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
    return ns;
  };
}
