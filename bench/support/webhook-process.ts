/**
 * Entry of the bench's webhook (support/webhook.ts forks it): HTTPS on 127.0.0.1:0 with
 * certificates of its own under BENCH_WEBHOOK_DIR. It answers every SubjectAccessReview POST
 * `allowed: true` in the version it was asked in (the authorization webhook), and every
 * AdmissionReview allowed: on `/mutate` with a one-operation JSONPatch adding a label, on any other
 * path as is (the admission webhooks). A process of its own, so its CPU is counted apart and its
 * answers do not queue behind the bench's load.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureServingCertificates } from '../../src/server/certs';

/** The mutating webhook's answer: one label added (the bench's secrets carry labels already). */
const labelPatch = {
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/bench-mutated', value: 'true' }])).toString('base64'),
};

async function main(): Promise<void> {
  const certs = await ensureServingCertificates({ certDir: process.env.BENCH_WEBHOOK_DIR ?? '', hosts: [] });
  const server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let review: { apiVersion?: string; kind?: string; request?: { uid?: string } } = {};
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof review;
      } catch {
        // not a review: answered as a SubjectAccessReview all the same
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (review.kind === 'AdmissionReview') {
        const mutate = (req.url ?? '').startsWith('/mutate');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request?.uid ?? '', allowed: true, ...(mutate ? labelPatch : {}) } }));
        return;
      }
      const apiVersion = review.apiVersion ?? 'authorization.k8s.io/v1beta1';
      res.end(JSON.stringify({ apiVersion, kind: 'SubjectAccessReview', status: { allowed: true, reason: 'bench webhook allows everything' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('disconnect', () => process.exit(0));
  process.on('message', () => process.exit(0));
  process.send?.({ type: 'ready', url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caCert: certs.caCert });
}

main().catch((e: unknown) => {
  process.send?.({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
});
