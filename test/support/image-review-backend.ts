/**
 * An ImagePolicyWebhook backend for tests: an HTTPS server with its own serving CA that requires a
 * client certificate from its own client CA, answering each ImageReview with what the test's
 * policy says (a status, or any raw answer: another code, garbage, no answer at all), recording
 * every review it was sent. `kubeconfig` names it the way an operator would (CA, client
 * certificate and key as files); `deadKubeconfig` names a port where nothing listens: port 1 of the
 * loopback address, which no test server takes (a port freed by a probe could be taken by another
 * test's server in a parallel run, and the call would then meet that server instead of a refusal).
 */
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CERT_FILES, CLIENT_CERT_FILES, ensureClientCertificates, ensureServingCertificates } from '../../src/server/certs';

/** The ImageReview as the backend received it. */
export interface ReceivedReview {
  apiVersion: string;
  kind: string;
  spec: { containers?: Array<{ image?: string }>; annotations?: Record<string, string>; namespace?: string };
}

export interface ReviewCall {
  review: ReceivedReview;
  /** The exact body. */
  body: string;
  /** The request's path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The client certificate's CN. */
  clientCN: string;
}

/**
 * What the backend answers: an ImageReview status (200, JSON), or a raw answer, or `hang` (no
 * answer until the backend closes), or `reset` (the connection closed without an answer).
 */
export type ReviewAnswer =
  | { status: { allowed: boolean; reason?: string; auditAnnotations?: Record<string, string> } }
  | { code: number; body: string; contentType?: string; headers?: Record<string, string> }
  | 'hang'
  | 'reset';

export type ReviewPolicy = (review: ReceivedReview, call: ReviewCall) => ReviewAnswer;

export interface ImageReviewBackend {
  /** The URL reviews are posted to (`https://127.0.0.1:<port>/review`). */
  url: string;
  /** A kubeconfig file naming the backend, with its CA and a client certificate it accepts. */
  kubeconfig: string;
  /** A kubeconfig file like `kubeconfig` whose server is a port where nothing listens (127.0.0.1:1). */
  deadKubeconfig: string;
  /** Every call, in order. */
  calls: ReviewCall[];
  /** The policy in force (replaceable). */
  policy: ReviewPolicy;
  close(): Promise<void>;
}

/** The kubeconfig of a backend at `server`, trusting `caFile`, authenticating with the client pair. */
export function backendKubeconfig(server: string, caFile: string, certFile: string, keyFile: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: image-policy
  cluster:
    server: ${server}
    certificate-authority: ${caFile}
users:
- name: apiserver
  user:
    client-certificate: ${certFile}
    client-key: ${keyFile}
contexts:
- name: image-policy
  context: {cluster: image-policy, user: apiserver}
current-context: image-policy
`;
}

/** Starts a backend whose certificates and kubeconfig files live in `dir`. */
export async function startImageReviewBackend(dir: string, policy: ReviewPolicy = () => ({ status: { allowed: true } })): Promise<ImageReviewBackend> {
  const serving = await ensureServingCertificates({ certDir: dir, hosts: [] });
  const client = await ensureClientCertificates({ certDir: dir });
  const hanging = new Set<ServerResponse>();
  const backend: ImageReviewBackend = {
    url: '',
    kubeconfig: path.join(dir, 'image-policy.kubeconfig'),
    deadKubeconfig: path.join(dir, 'dead.kubeconfig'),
    calls: [],
    policy,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as ReceivedReview;
      const call: ReviewCall = {
        review,
        body,
        url: req.url ?? '',
        headers: req.headers,
        clientCN: String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN),
      };
      backend.calls.push(call);
      const answer = backend.policy(review, call);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      if ('status' in answer) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status: answer.status }));
        return;
      }
      res.writeHead(answer.code, { 'content-type': answer.contentType ?? 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  };
  const server = https.createServer({ cert: serving.cert, key: serving.key, ca: client.caCert, requestCert: true, rejectUnauthorized: true }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backend.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`;
  const files = [path.join(dir, CERT_FILES.caCert), path.join(dir, CLIENT_CERT_FILES.adminCert), path.join(dir, CLIENT_CERT_FILES.adminKey)] as const;
  await writeFile(backend.kubeconfig, backendKubeconfig(backend.url, ...files));
  await writeFile(backend.deadKubeconfig, backendKubeconfig('https://127.0.0.1:1/review', ...files));
  return backend;
}
