/** Forks the bench's allow-all webhook (support/webhook-process.js: authorization and admission) and writes the kubeconfig naming it. */
import { fork } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A running webhook and the kubeconfig file (`--authorization-webhook-config-file`) that points at it. */
export interface WebhookHandle {
  kubeconfig: string;
  /** Its base URL and CA, for admission webhook configurations (`clientConfig.url`, `caBundle`). */
  url: string;
  caCert: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the webhook with its certificates and kubeconfig under `dir`; resolves once it listens. */
export async function forkWebhook(dir: string): Promise<WebhookHandle> {
  const child = fork(path.join(__dirname, 'webhook-process.js'), [], {
    env: { ...process.env, BENCH_WEBHOOK_DIR: dir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; caCert: string }>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`webhook exited with code ${code} before it was ready`));
    child.once('exit', onExit);
    child.on('message', (msg: { type: string; url?: string; caCert?: string; message?: string }) => {
      if (msg.type === 'failed') reject(new Error(`webhook failed: ${msg.message}`));
      if (msg.type !== 'ready') return;
      child.off('exit', onExit);
      resolve({ url: msg.url ?? '', caCert: msg.caCert ?? '' });
    });
  });
  const kubeconfig = path.join(dir, 'webhook.kubeconfig');
  const ca = Buffer.from(ready.caCert).toString('base64');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- {name: webhook, cluster: {server: "${ready.url}", certificate-authority-data: ${ca}}}`,
      'users:',
      '- {name: apiserver, user: {}}',
      'contexts:',
      '- {name: webhook, context: {cluster: webhook, user: apiserver}}',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  return {
    kubeconfig,
    url: ready.url,
    caCert: ready.caCert,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.send('stop');
      await exited;
    },
  };
}
