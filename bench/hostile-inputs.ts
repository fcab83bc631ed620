/**
 * The hostile-input rows (issue 25): for each class of hostile body — the largest legal JSON and
 * YAML bodies, YAML with repeated keys, the YAML alias and nesting limits, JSON at and past the
 * depth limit — what one such request costs everyone else: the server's worst event-loop stall
 * while it is handled, the worst latency another client saw meanwhile (a /readyz probe every
 * 5 ms), and the server's RSS growth. A plain create is measured the same way, as the row's floor.
 * Target: no stall above 200 ms.
 */
import https from 'node:https';
import type { ApiTarget } from './support/api-client';
import type { Progress } from './support/progress';
import type { ServerHandle } from './support/server-handle';

/** One class of hostile body, measured over `reps` sequential requests. */
export interface HostileRow {
  label: string;
  bodyBytes: number;
  contentType: string;
  /** The statuses answered (e.g. "400", "201"). */
  statuses: string;
  /** Slowest request of the class, ms. */
  requestMs: number;
  /** The server's worst event-loop delay while the class ran, ms. */
  stallMs: number;
  /** The slowest /readyz answer another client got meanwhile, ms. */
  probeMaxMs: number;
  /** The server's VmRSS after the class minus before it (no GC in between), bytes. */
  rssGrowthBytes: number;
}

interface Body {
  label: string;
  contentType: string;
  body: Buffer;
}

const MiB = 1024 * 1024;
/** kube's MaxRequestBodyBytes, the largest legal body. */
const maxBody = 3 * MiB;

/** A ConfigMap JSON body of about `bytes` bytes spread over `keys` data keys. */
function wideJson(name: string, bytes: number, keys: number): string {
  const per = Math.max(1, Math.floor((bytes - 200) / keys) - 16);
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`k${i}`] = 'v'.repeat(per);
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
}

/** The same ConfigMap as YAML: one data key per line. */
function wideYaml(name: string, bytes: number, keys: number, repeatedKeys = 0): string {
  const per = Math.max(1, Math.floor((bytes - 200) / keys) - 12);
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, 'data:'];
  for (let i = 0; i < keys; i++) lines.push(`  k${i < repeatedKeys ? 0 : i}: ${'v'.repeat(per)}`);
  return `${lines.join('\n')}\n`;
}

/** The alias chain of the issue: level 0 is `width` strings, each next level `width` aliases of the one before. */
function aliasChain(name: string, levels: number, width: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, '  managedFields:', '  - manager: m', '    fieldsV1:'];
  lines.push(`      a0: &a0 [${Array(width).fill('"lol"').join(', ')}]`);
  for (let i = 1; i < levels; i++) lines.push(`      a${i}: &a${i} [${Array(width).fill(`*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

function nestedJson(name: string, depth: number): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
}

function nestedYaml(name: string, depth: number): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\nx: ${'['.repeat(depth)}1${']'.repeat(depth)}\n`;
}

function bodies(): Body[] {
  const json = (label: string, text: string): Body => ({ label, contentType: 'application/json', body: Buffer.from(text) });
  const yaml = (label: string, text: string): Body => ({ label, contentType: 'application/yaml', body: Buffer.from(text) });
  return [
    json('plain create, 1 KiB JSON (the floor)', wideJson('plain', 1024, 4)),
    json('JSON 3 MiB, 4 values', wideJson('big', maxBody - 64, 4)),
    json('JSON 3 MiB, 100,000 keys', wideJson('wide', maxBody - 64, 100_000)),
    yaml('YAML 3 MiB, 4 values', wideYaml('bigy', maxBody - 64, 4)),
    yaml('YAML 3 MiB, 100,000 keys', wideYaml('widey', maxBody - 64, 100_000)),
    yaml('YAML 2.8 MiB, 100 repeated keys', wideYaml('dups', 2.8 * MiB, 200, 101)),
    yaml('YAML alias chain, 9 levels × 9 (bomb)', aliasChain('bomb9', 9, 9)),
    yaml('YAML alias chain, 5 levels × 9', aliasChain('chain5', 5, 9)),
    json('JSON nested 10,000 deep', nestedJson('deep10k', 10_000)),
    json('JSON nested 10,001 deep', nestedJson('deep10k1', 10_001)),
    yaml('YAML nested 10,000 deep', nestedYaml('ydeep10k', 10_000)),
  ];
}

/** POSTs a raw body; resolves with status and time, never rejects on a status. */
function post(target: ApiTarget, agent: https.Agent, path: string, b: Body): Promise<{ status: number; ms: number }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = https.request(
      `${target.url}${path}`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${target.token}`, 'content-type': b.contentType, 'content-length': String(b.body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
      },
    );
    req.on('error', () => resolve({ status: -1, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    req.end(b.body);
  });
}

/** Probes /readyz every `intervalMs` on its own connection until stopped; resolves with the slowest answer. */
function probe(target: ApiTarget, intervalMs: number): { stop(): Promise<number> } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: target.caCert });
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      const start = process.hrtime.bigint();
      await new Promise<void>((resolve) => {
        const req = https.get(`${target.url}/readyz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', () => resolve());
      });
      worst = Math.max(worst, Number(process.hrtime.bigint() - start) / 1e6);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return worst;
    },
  };
}

/** Runs every class `reps` times against the server, in `namespace` (created items are deleted). */
export async function measureHostileInputs(server: ServerHandle, namespace: string, reps: number, progress: Progress): Promise<HostileRow[]> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.caCert });
  const rows: HostileRow[] = [];
  try {
    for (const b of bodies()) {
      progress('hostile', `${b.label} (${(b.body.length / 1024).toFixed(0)} KiB), ${reps}×`);
      const rssBefore = await server.procRss();
      let rssMax = rssBefore;
      const p = probe(server, 5);
      server.loopDelay.start();
      const statuses = new Set<string>();
      let slowest = 0;
      for (let i = 0; i < reps; i++) {
        // dryRun: a class that is accepted stores nothing, so every repetition does the same work.
        const r = await post(server, agent, `/api/v1/namespaces/${namespace}/configmaps?dryRun=All`, b);
        statuses.add(String(r.status));
        slowest = Math.max(slowest, r.ms);
        rssMax = Math.max(rssMax, await server.procRss());
      }
      const delay = await server.loopDelay.stop();
      const probeMaxMs = await p.stop();
      rows.push({
        label: b.label,
        bodyBytes: b.body.length,
        contentType: b.contentType,
        statuses: [...statuses].join(','),
        requestMs: slowest,
        stallMs: delay.max,
        probeMaxMs,
        rssGrowthBytes: rssMax - rssBefore,
      });
    }
  } finally {
    agent.destroy();
  }
  return rows;
}
