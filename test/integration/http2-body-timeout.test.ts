/**
 * An HTTP/2 request whose body never finishes: past the request read timeout it gets kube's 504
 * (the request-timeout filter's answer), the stream is reset, nothing is stored, and the stream's
 * in-flight slot is released (a stalled body must not hold the server's mutating slots for ever).
 */
import http2 from 'node:http2';
import { useTestServer } from '../support/server-fixture';
import { failure } from '../support/kube-status';

const { srv } = useTestServer({ requestReadTimeoutMs: 300 });

test('a stalled HTTP/2 body gets 504 Timeout, stores nothing, and the server goes on', async () => {
  const session = http2.connect(srv.url, { ca: srv.caCert });
  session.on('error', () => undefined);
  try {
    const body = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"stalled"}}');
    const answer = await new Promise<{ status: number; text: string }>((resolve) => {
      const req = session.request(
        { ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', authorization: `Bearer ${srv.token}`, 'content-type': 'application/json', 'content-length': String(body.length + 100) },
        { endStream: false },
      );
      let status = 0;
      const chunks: Buffer[] = [];
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('error', () => undefined);
      req.on('close', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
      req.write(body); // and never the rest
    });
    expect(answer.status).toBe(504);
    expect(JSON.parse(answer.text)).toEqual(
      failure(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {}),
    );
  } finally {
    session.close();
  }
  expect((await srv.request('GET', '/api/v1/namespaces/default/configmaps/stalled')).status).toBe(404);
  expect((await srv.request('GET', '/readyz', { token: null })).status).toBe(200);
});
