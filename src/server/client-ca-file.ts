/**
 * `--client-ca-file`, reloaded as kube-apiserver reloads it (its dynamic CA file content): the file
 * is read every second (server/config-file-watch.ts); a changed bundle that parses replaces the one
 * in force, both for verifying presented certificates (the x509 authenticator asks `roots()`) and
 * for the CA names the TLS handshake sends (new connections; `onBundle`). A bundle that does not
 * parse, or an empty or unreadable file, keeps the old bundle and is logged, as kube does.
 */
import type { X509Certificate } from 'node:crypto';
import { parseCaBundle } from '../auth';
import { watchConfigFile } from './config-file-watch';

export interface ClientCaBundle {
  pem: string;
  roots: X509Certificate[];
}

export interface ClientCaFileWatch {
  /** The roots in force: the same array until the file changes. */
  roots(): readonly X509Certificate[];
  /** Called with each new bundle's PEM once it is in force (the TLS server's CA names). */
  onBundle(listener: (pem: string) => void): void;
  stop(): void;
}

export function watchClientCaFile(
  file: string,
  initial: ClientCaBundle,
  opts: { pollMs?: number; log: { info(m: string, meta?: object): void; error(m: string, meta?: object): void } },
): ClientCaFileWatch {
  let current = initial;
  const listeners: Array<(pem: string) => void> = [];
  const stop = watchConfigFile(file, {
    pollMs: opts.pollMs,
    onText: (text) => {
      if (text === current.pem) return;
      if (text.length === 0) throw new Error(`missing content for CA bundle "client-ca-bundle::${file}"`);
      current = { pem: text, roots: parseCaBundle(text, `client-ca-bundle::${file}`) };
      opts.log.info('loaded a new CA bundle', { name: `client-ca-bundle::${file}`, certificates: current.roots.length });
      for (const l of listeners) l(text);
    },
    onError: (e, stage) => opts.log.error('failed to load the client CA bundle; the bundle in force stays', { file, stage, error: (e as Error).message }),
  });
  return {
    roots: () => current.roots,
    onBundle: (l) => void listeners.push(l),
    stop,
  };
}
