import { startTestEtcd } from '../../support/etcd';
import { startTestServer } from '../../support/api-server';
test('probe', async () => {
  const etcd = await startTestEtcd();
  const srv = await startTestServer({ etcdEndpoints: etcd.endpoints });
  for (const p of ['/api/v1/watch/namespaces/default/secrets?timeoutSeconds=1', '/api/v1/namespaces/default/secrets/x?watch=1&timeoutSeconds=1']) {
    const r = await srv.request('GET', p);
    console.log(p, r.status, r.text.slice(0, 300));
  }
  await srv.stop(); await etcd.stop();
});
