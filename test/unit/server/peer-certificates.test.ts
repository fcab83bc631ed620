/**
 * peerCertificatesOf against real TLS connections (node:tls, certificates made with the openssl
 * CLI): the chain is what the client sent, in its order, leaf first (Go's PeerCertificates), never
 * the issuer the server found in its own CA store; it is read once per connection.
 */
import { constants as cryptoConstants, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { peerCertificatesOf } from '../../../src/server/peer-certificates';
import { CA_EXT, requireOpenssl, TestPki } from '../../support/openssl';

requireOpenssl();
const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-peer-certs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pki = new TestPki(dir);
pki.ca('client-ca');
pki.ca('serving-ca');
pki.issue('serving', { ca: 'serving-ca', subj: '/CN=localhost', ext: 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' });
pki.issue('inter', { ca: 'client-ca', subj: '/CN=inter', ext: CA_EXT });
pki.issue('leaf', { ca: 'inter', subj: '/CN=leaf' });
pki.issue('direct', { ca: 'client-ca', subj: '/CN=direct' });

/** Opens one connection presenting `cert` (PEM, possibly a chain) and hands the server's socket to `read`. */
async function onServerSocket<T>(client: { cert?: string; key?: string }, read: (socket: tls.TLSSocket) => T): Promise<T> {
  let result!: T;
  const server = tls.createServer({
    cert: pki.read('serving.crt'),
    key: pki.read('serving.key'),
    ca: pki.read('client-ca.crt'),
    requestCert: true,
    rejectUnauthorized: false,
    secureOptions: cryptoConstants.SSL_OP_NO_TICKET,
  });
  const served = new Promise<void>((resolve, reject) => {
    server.on('secureConnection', (socket) => {
      try {
        result = read(socket);
        resolve();
      } catch (e) {
        reject(e as Error);
      } finally {
        socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = tls.connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', servername: 'localhost', ca: pki.read('serving-ca.crt'), ...client });
  socket.on('error', () => undefined);
  socket.resume();
  try {
    await served;
  } finally {
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return result;
}

const names = (chain: readonly X509Certificate[]) => chain.map((c) => c.subject);

test('HTTP/1.1: the leaf and the intermediate the client sent, in its order; read once per connection', async () => {
  const chain = await onServerSocket({ cert: pki.read('leaf.crt') + pki.read('inter.crt'), key: pki.read('leaf.key') }, (socket) => {
    const first = peerCertificatesOf({ httpVersionMajor: 1, socket });
    const again = peerCertificatesOf({ httpVersionMajor: 1, socket });
    expect(again).toBe(first);
    return first;
  });
  expect(names(chain)).toEqual(['CN=leaf', 'CN=inter']);
  expect(chain.every((c) => c instanceof X509Certificate)).toBe(true);
  expect(chain[0]?.raw.equals(new X509Certificate(pki.read('leaf.crt')).raw)).toBe(true);
});

test('the root in the server’s CA store is not added to what the client sent', async () => {
  const chain = await onServerSocket({ cert: pki.read('direct.crt'), key: pki.read('direct.key') }, (socket) =>
    peerCertificatesOf({ httpVersionMajor: 2, stream: { session: { socket } } }),
  );
  expect(names(chain)).toEqual(['CN=direct']);
});

test('no client certificate, no TLS, or a socket that throws: no certificates', async () => {
  expect(await onServerSocket({}, (socket) => peerCertificatesOf({ httpVersionMajor: 1, socket }))).toEqual([]);
  expect(peerCertificatesOf({ httpVersionMajor: 1, socket: {} })).toEqual([]);
  expect(peerCertificatesOf({ httpVersionMajor: 2 })).toEqual([]);
  const gone = {
    getPeerX509Certificate: () => {
      throw new Error('The socket has been disconnected from the Http2Session');
    },
  };
  expect(peerCertificatesOf({ httpVersionMajor: 2, stream: { session: { socket: gone } } })).toEqual([]);
  const session = Object.defineProperty({}, 'socket', {
    get: () => {
      throw new Error('ERR_HTTP2_SOCKET_UNBOUND');
    },
  });
  expect(peerCertificatesOf({ httpVersionMajor: 2, stream: { session } })).toEqual([]);
});
