#!/usr/bin/env node
/**
 * `make bench`: issue 7's table. Starts its own etcd (fsync on) and the server in a child process,
 * then measures from this process, each API row beside its raw-etcd counterpart: create throughput
 * and latency, get and list latency (watch cache vs etcd, paged and unpaged), watch delivery latency
 * to many watchers, server memory with many stored secrets, and the real binary's start to ready.
 * `--only=` picks phases. Progress goes to stderr; the table to stdout; the results as JSON to
 * bench/results/<timestamp>.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { EmbeddedEtcd } from '../src/server/embedded-etcd';
import { measureConnectionStorm } from './connection-storm';
import { measureCreateThroughput, measureVariantCells, warmUpClient, warmUpCreates, type CreatePlan, type CreateRow, type CreateVariant } from './create-throughput';
import { measureEtcdPutBaseline } from './etcd-baseline';
import { measureGetLatency } from './get-latency';
import { measureHostileInputs } from './hostile-inputs';
import { apiList, apiPagedList, measureListLatency, rawEtcdList, rawEtcdPagedList } from './list-latency';
import { measureMemoryPerObject } from './memory-per-object';
import { renderReport, type BenchResults, type WatchRow } from './report';
import { ApiClient, type ApiTarget } from './support/api-client';
import { waitForCache } from './support/cache-sync';
import { cpuMeter } from './support/cpu';
import { forkFloorServer } from './support/floor-server';
import { describeMachine } from './support/machine';
import { parseOptions, type BenchOptions, type Phase } from './support/options';
import { progressPrinter, type Progress } from './support/progress';
import { forkServer, type ServerHandle } from './support/server-handle';
import { writeJwtAuthenticationConfig } from './support/jwt-config';
import { setUpRbacUser } from './support/rbac-user';
import { forkWebhook, type WebhookHandle } from './support/webhook';
import { startTestIssuer } from '../test/support/jwt-issuer';
import { forkWatchers } from './support/watcher-fleet';
import { createSecrets, ensureNamespace, secret } from './support/secrets';
import { summarize } from './support/stats';
import { storedSecretFactory, type StoredSecretFactory } from './support/stored-secret';
import { measureStartup } from './startup-time';
import { measureStuckWatchers } from './stuck-watchers';
import { WRITE_MARKER, measureWatchLatency } from './watch-latency';

const PREFIX = '/registry';
const CREATE_NS = 'bench-create';
const LIST_NS = 'bench-list';
const MEM_NS = 'bench-mem';
const HOSTILE_NS = 'bench-hostile';
const STUCK_NS = 'bench-stuck';
/** Each watch protocol writes in a namespace of its own (`bench-watch-h1`, `bench-watch-h2`). */
const WATCH_NS = 'bench-watch';
/** Raw etcd creates go here, outside the server's prefix. */
const RAW_CREATE_PREFIX = '/bench-raw-create/';
/** The etcd prefix of the second server, whose webhook decisions are not cached. */
const UNCACHED_WEBHOOK_PREFIX = '/registry-webhook-uncached';
/** The create cells whose secrets land in the bench's server (the memory row counts them). */
const MAIN_SERVER_VARIANTS: CreateVariant[] = ['apiByCert', 'apiImpersonating', 'apiByJwt', 'apiAsRbacUser', 'apiByWebhook'];

async function main(opts: BenchOptions): Promise<void> {
  const progress = progressPrinter();
  const machine = await describeMachine();
  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  const has = (p: Phase) => opts.only.includes(p);
  process.stdout.write(
    `platform-apiserver bench — ${startedAt.toISOString()} — phases: ${opts.only.join(', ')}\n` +
      `machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${(machine.memoryTotalBytes / 2 ** 30).toFixed(1)} GiB, ` +
      `${machine.platform} ${machine.kernel}; node ${machine.node}; etcd ${machine.etcd} (fsync on)\n` +
      `load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}` +
      `${loadAtStart[0] !== undefined && loadAtStart[0] > 0.5 ? ' — the machine is busy; figures will be noisy' : ''}\n\n`,
  );
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    durationSeconds: 0,
    machine,
    options: opts,
    loadAverage: { start: loadAtStart, end: [] },
  };

  // The real binary, with nothing else of the bench running yet.
  if (has('startup')) {
    progress('startup', `${opts.startupRuns} fresh starts, each followed by a restart on its data dir`);
    results.startup = await measureStartup(path.join(__dirname, '../src/main.js'), opts.startupRuns, opts.tmpDir ?? os.tmpdir(), progress);
  }
  if (opts.only.some((p) => p !== 'startup')) await runAgainstServer(opts, machine.etcd, results, progress);

  results.durationSeconds = (Date.now() - startedAt.getTime()) / 1000;
  results.loadAverage.end = os.loadavg();
  process.stdout.write(`${renderReport(results)}\n`);
  const resultsDir = path.resolve(__dirname, '../../bench/results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(
    `\nload average at end: ${results.loadAverage.end.map((l) => l.toFixed(2)).join(' ')}; ` +
      `run took ${results.durationSeconds.toFixed(0)} s\nresults: ${path.relative(process.cwd(), file)}\n`,
  );
}

/** The phases that need the bench's etcd and server child; fills their fields of `results`. */
async function runAgainstServer(opts: BenchOptions, etcdVersion: string, results: BenchResults, progress: Progress): Promise<void> {
  const has = (p: Phase) => opts.only.includes(p);
  const dir = await mkdtemp(path.join(opts.tmpDir ?? os.tmpdir(), 'papi-bench-'));
  const etcd = new EmbeddedEtcd();
  const cleanups: Array<() => Promise<void>> = [() => rm(dir, { recursive: true, force: true }), () => etcd.stop()];
  try {
    const etcdStart = process.hrtime.bigint();
    const { endpoints } = await etcd.start({ dataDir: path.join(dir, 'etcd'), logFile: path.join(dir, 'etcd.log') });
    progress('setup', `etcd ${endpoints[0]} ready in ${(Number(process.hrtime.bigint() - etcdStart) / 1e6).toFixed(0)} ms (data in ${dir})`);
    progress('etcd', 'raw put baseline: 1 KiB values, 1 in flight, 2 s');
    results.etcd = { version: etcdVersion, fsync: true, ...(await measureEtcdPutBaseline(endpoints, 2)) };
    // A JWT issuer (HTTPS discovery + JWKS) the server trusts through --authentication-config, for the JWT create cells.
    const issuer = has('create') ? await startTestIssuer() : undefined;
    if (issuer) cleanups.push(() => issuer.stop());
    const authenticationConfig = issuer ? await writeJwtAuthenticationConfig(dir, issuer) : undefined;
    // An allow-all SubjectAccessReview webhook after RBAC (--authorization-mode=RBAC,Webhook, kube's decision
    // cache TTLs), for the webhook create cells: the admin and the RBAC user are allowed before it.
    const webhook = has('create') ? await forkWebhook(path.join(dir, 'webhook')) : undefined;
    if (webhook) cleanups.push(() => webhook.stop());
    const server = await forkServer({
      etcdEndpoints: endpoints,
      prefix: PREFIX,
      watchCache: true,
      dir: path.join(dir, 'server'),
      authenticationConfig,
      ...(webhook ? { webhook: { kubeconfig: webhook.kubeconfig, authorizedTtlMs: 300_000 } } : {}),
    });
    cleanups.push(() => server.stop());
    progress('setup', `server (watch cache on) pid ${server.pid} listening at ${server.url}`);
    const load = new ApiClient(server, { maxSockets: Math.max(64, opts.loadConcurrency, ...opts.createConcurrency) });
    const raw = new Etcd3({ hosts: endpoints, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
    cleanups.push(async () => load.close(), async () => raw.close());
    for (const ns of [CREATE_NS, LIST_NS, MEM_NS]) await ensureNamespace(load, ns);
    // A user RBAC allows through a RoleBinding, among --rbac-bindings bindings of other users (the admin rows pass as system:masters).
    const userLoad = new ApiClient({ url: server.url, caCert: server.caCert, token: server.userToken }, { maxSockets: Math.max(64, ...opts.createConcurrency) });
    cleanups.push(async () => userLoad.close());
    if (has('create') || has('list')) {
      progress('setup', `RBAC: bench-user bound by a RoleBinding in ${CREATE_NS} and ${LIST_NS}, among ${opts.rbacBindings} other RoleBindings`);
      await setUpRbacUser(load, userLoad, { user: 'bench-user', namespaces: [CREATE_NS, LIST_NS], fillerBindings: opts.rbacBindings, concurrency: opts.loadConcurrency });
    }
    // Secrets in the server so far, for the memory row's total.
    let stored = 0;
    let value: StoredSecretFactory | undefined;
    if (has('create') || has('rss')) {
      value = await storedSecretFactory(load, raw, PREFIX, CREATE_NS, 'template');
      stored++;
    }

    if (has('create') && value) {
      // The same server, authenticated another way; each client has its own sockets, and its cells run after the token's.
      const variantSockets = { maxSockets: Math.max(64, ...opts.createConcurrency) };
      const certLoad = new ApiClient({ url: server.url, caCert: server.caCert, token: '', clientCert: server.clientCert }, variantSockets);
      // The admin token impersonating a user of system:masters: the impersonation filter's checks and user swap per request.
      const impersonatingLoad = new ApiClient({ url: server.url, caCert: server.caCert, token: server.token, headers: { 'impersonate-user': 'bench-impersonated', 'impersonate-group': 'system:masters' } }, variantSockets);
      // A JWT of the issuer above: the issuer's claim mappings, CEL-free, make it a system:masters user.
      const jwt = await issuer!.sign({ sub: 'bench-jwt', aud: 'bench', groups: ['system:masters'], exp: Math.floor(Date.now() / 1000) + 3600 });
      const jwtLoad = new ApiClient({ url: server.url, caCert: server.caCert, token: jwt }, variantSockets);
      // A user no RBAC binding names, in no group: the webhook allows it (its decision cached after the first create).
      const webhookLoad = new ApiClient({ url: server.url, caCert: server.caCert, token: server.webhookUserToken }, variantSockets);
      cleanups.push(async () => certLoad.close(), async () => impersonatingLoad.close(), async () => jwtLoad.close(), async () => webhookLoad.close());
      // The create floor: what a Node server pays for HTTPS, JSON and the etcd3 call alone (keys under the raw prefix).
      let floor: { client: ApiClient; pid: number } | undefined;
      if (opts.createFloor) {
        const server = await forkFloorServer(path.join(dir, 'floor-create'), { endpoints, prefix: `${RAW_CREATE_PREFIX}floor/` });
        floor = { client: new ApiClient(server, { maxSockets: Math.max(64, ...opts.createConcurrency) }), pid: server.pid };
        const client = floor.client;
        cleanups.push(async () => client.close(), () => server.stop());
        progress('setup', `create floor server (bare HTTPS + etcd3 txn) pid ${server.pid} listening at ${server.url}`);
      }
      const plan = {
        concurrencies: opts.createConcurrency,
        seconds: opts.createSeconds,
        namespace: CREATE_NS,
        rawPrefix: RAW_CREATE_PREFIX,
        pids: { server: server.pid, etcd: etcd.pid ?? -1, bench: process.pid },
        ...(floor ? { floor } : {}),
        variants: {
          apiByCert: { client: certLoad, label: 'authenticated by a client certificate' },
          apiImpersonating: { client: impersonatingLoad, label: 'with the token, impersonating a user' },
          apiByJwt: { client: jwtLoad, label: 'authenticated by a JWT of an --authentication-config issuer' },
          apiAsRbacUser: { client: userLoad, label: `as a user RBAC allows by a RoleBinding (${opts.rbacBindings} other bindings)` },
          apiByWebhook: { client: webhookLoad, label: 'as a user an authorization webhook allows (decision cached)', pids: { webhook: webhook!.pid } },
        },
      };
      if (opts.createWarmupSeconds > 0) {
        results.createWarmup = await warmUpCreates(load, raw, value, plan, opts.createWarmupSeconds, progress);
        stored += results.createWarmup.apiCreates;
      }
      results.create = await measureCreateThroughput(load, raw, value, plan, progress);
      stored += results.create.reduce((n, r) => n + r.api.creates + MAIN_SERVER_VARIANTS.reduce((m, v) => m + (r[v]?.creates ?? 0), 0), 0);
      await runAdmissionWebhookCells(load, webhook!, results.create, plan, progress);
      stored += results.create.reduce((n, r) => n + (r.apiThroughAdmissionWebhooks?.creates ?? 0), 0);
      await runUncachedWebhookCells(opts, endpoints, dir, webhook!, results.create, plan, progress);
    }
    if (has('get') || has('list')) {
      progress('load', `creating ${opts.listObjects} secrets in ${LIST_NS} through the API, ${opts.loadConcurrency} in flight`);
      const { latenciesMs, seconds } = await createSecrets(load, LIST_NS, opts.listObjects, opts.loadConcurrency);
      results.listLoad = { objects: opts.listObjects, concurrency: opts.loadConcurrency, latencyMs: summarize(latenciesMs), throughputPerSec: opts.listObjects / seconds };
      stored += opts.listObjects;
      await waitForCache(load, raw, LIST_NS, `s-${opts.listObjects - 1}`);
    }
    if (has('get')) {
      progress('get', `${opts.getReps} rounds of gets, 1 in flight`);
      results.get = await measureGetLatency(load, raw, { namespace: LIST_NS, objects: opts.listObjects, reps: opts.getReps, prefix: PREFIX }, progress);
    }
    if (has('list')) results.list = await runListPhase(opts, endpoints, dir, load, userLoad, raw, progress);
    if (has('rss') && value) {
      results.memory = await measureMemoryPerObject(
        load,
        raw,
        value,
        server,
        { namespace: MEM_NS, objects: opts.rssObjects, concurrency: opts.loadConcurrency, via: opts.rssLoad, prefix: PREFIX },
        stored,
        progress,
      );
    }
    if (has('watch')) results.watch = await runWatchPhase(opts, server, etcd.pid ?? -1, dir, progress);
    if (has('hostile')) {
      await ensureNamespace(load, HOSTILE_NS);
      results.hostile = await measureHostileInputs(server, HOSTILE_NS, opts.hostileReps, progress);
    }
    if (has('storm')) results.storm = await measureConnectionStorm(server, opts.stormConnections, `/api/v1/namespaces/${CREATE_NS}/secrets?limit=1`, progress);
    if (has('stuck')) {
      await ensureNamespace(load, STUCK_NS);
      results.stuck = await measureStuckWatchers(load, server, { namespace: STUCK_NS, watchers: opts.stuckWatchers, mibPerWatcher: opts.stuckMib }, progress);
    }
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
}

/** The namespace of the admission webhook cells: the only one their webhooks' namespaceSelector matches. */
const ADMISSION_NS = 'bench-create-admission';
const ADMISSION_NS_LABEL = 'bench-admission-webhooks';

/**
 * The token's creates through one mutating webhook (a JSONPatch adding a label) and one validating
 * webhook (allows), both served by the bench's local webhook process, as kube configures them
 * (sideEffects None, failurePolicy Fail, namespaceSelector on a namespace of their own). The
 * configurations exist only while these cells run, so no other cell pays for matching them; the
 * cells start once a create comes back mutated (the server's informers have them).
 */
async function runAdmissionWebhookCells(load: ApiClient, webhook: WebhookHandle, rows: CreateRow[], plan: CreatePlan, progress: Progress): Promise<void> {
  const caBundle = Buffer.from(webhook.caCert).toString('base64');
  const hook = (name: string, urlPath: string) => ({
    name,
    clientConfig: { url: `${webhook.url}${urlPath}`, caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
    namespaceSelector: { matchLabels: { [ADMISSION_NS_LABEL]: 'on' } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
  });
  const configs = [
    { path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', hook: hook('mutate.bench.example.com', '/mutate') },
    { path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', hook: hook('validate.bench.example.com', '/validate') },
  ];
  const ns = await load.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ADMISSION_NS, labels: { [ADMISSION_NS_LABEL]: 'on' } } });
  if (ns.status !== 201 && ns.status !== 409) throw new Error(`create namespace ${ADMISSION_NS} → ${ns.status}: ${ns.body.toString('utf8').slice(0, 300)}`);
  for (const c of configs) {
    await load.expect('POST', c.path, { apiVersion: 'admissionregistration.k8s.io/v1', kind: c.kind, metadata: { name: 'bench' }, webhooks: [c.hook] }, 201);
  }
  try {
    progress('setup', 'admission webhooks: waiting until a create comes back mutated');
    for (let i = 0; ; i++) {
      const res = await load.request('POST', `/api/v1/namespaces/${ADMISSION_NS}/secrets`, secret(ADMISSION_NS, `probe-${i}`));
      const labels = res.status === 201 ? (JSON.parse(res.body.toString('utf8')) as { metadata?: { labels?: Record<string, string> } }).metadata?.labels : undefined;
      if (labels?.['bench-mutated'] === 'true') break;
      if (i >= 200) throw new Error(`admission webhooks never applied: last create → ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const label = 'with the token, through 1 mutating + 1 validating admission webhook (local)';
    await measureVariantCells(rows, 'apiThroughAdmissionWebhooks', { client: load, label, pids: { webhook: webhook.pid } }, { ...plan, namespace: ADMISSION_NS }, progress);
  } finally {
    for (const c of configs) await load.request('DELETE', `${c.path}/bench`);
  }
}

/**
 * The webhook cells without a decision cache (`--authorization-webhook-cache-authorized-ttl=0`): every
 * create asks the webhook. They need a server configured so, a second child on a prefix of its own,
 * run only for these cells, warmed up as the main one was, once its bootstrap policy is in (/readyz).
 */
async function runUncachedWebhookCells(
  opts: BenchOptions,
  endpoints: string[],
  dir: string,
  webhook: WebhookHandle,
  rows: CreateRow[],
  plan: CreatePlan,
  progress: Progress,
): Promise<void> {
  const other = await forkServer({
    etcdEndpoints: endpoints,
    prefix: UNCACHED_WEBHOOK_PREFIX,
    watchCache: true,
    dir: path.join(dir, 'server-webhook-uncached'),
    webhook: { kubeconfig: webhook.kubeconfig, authorizedTtlMs: 0 },
  });
  const admin = new ApiClient(other, { maxSockets: 4 });
  const client = new ApiClient({ url: other.url, caCert: other.caCert, token: other.webhookUserToken }, { maxSockets: Math.max(64, ...opts.createConcurrency) });
  try {
    progress('setup', `second server (webhook decisions not cached) pid ${other.pid} listening at ${other.url}`);
    const deadline = Date.now() + 30_000;
    while ((await admin.request('GET', '/readyz')).status !== 200) {
      if (Date.now() > deadline) throw new Error('the second server is not ready after 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    await ensureNamespace(admin, plan.namespace);
    if (opts.createWarmupSeconds > 0) {
      progress('create', `warming up the second server: API creates, 16 in flight, ${opts.createWarmupSeconds} s (untimed)`);
      await warmUpClient(client, plan.namespace, opts.createWarmupSeconds);
    }
    const pids = { server: other.pid, webhook: webhook.pid };
    // The admin token first (system:masters: the webhook is never asked), the reference of the webhook cells.
    const token = new ApiClient(other, { maxSockets: Math.max(64, ...opts.createConcurrency) });
    try {
      await measureVariantCells(rows, 'apiSecondServer', { client: token, label: 'with the token (second server)', pids }, plan, progress);
    } finally {
      token.close();
    }
    await measureVariantCells(rows, 'apiByWebhookUncached', { client, label: 'as a user an authorization webhook allows (no decision cache, second server)', pids }, plan, progress);
  } finally {
    admin.close();
    client.close();
    await other.stop();
  }
}

/** The list rows: the cached server every way, a --watch-cache=false server, and raw etcd, unpaged and paged. */
async function runListPhase(opts: BenchOptions, endpoints: string[], dir: string, load: ApiClient, userLoad: ApiClient, raw: Etcd3, progress: Progress) {
  const uncached = await forkServer({ etcdEndpoints: endpoints, prefix: PREFIX, watchCache: false, dir: path.join(dir, 'server-uncached') });
  const uncachedClient = new ApiClient(uncached, { maxSockets: 4 });
  try {
    progress('list', `listing ${opts.listObjects} secrets, ${opts.listReps} rounds (second server, --watch-cache=false, pid ${uncached.pid})`);
    const p = `/api/v1/namespaces/${LIST_NS}/secrets`;
    const keys = `${PREFIX}/secrets/${LIST_NS}/`;
    const page = opts.listPageSize;
    return await measureListLatency(
      [
        apiList(load, 'cache-rv0', 'API, watch cache, resourceVersion=0', 'cache', `${p}?resourceVersion=0`, 'raw-etcd'),
        apiList(userLoad, 'cache-rv0-rbac', `API, watch cache, resourceVersion=0, as a RoleBinding user (${opts.rbacBindings} bindings)`, 'cache', `${p}?resourceVersion=0`, 'raw-etcd'),
        apiList(load, 'cache-consistent', 'API, watch cache, RV unset (consistent)', 'cache', p, 'raw-etcd'),
        apiList(load, 'delegated-limit', `API, limit=${opts.listObjects} (delegated to etcd)`, 'etcd-via-api', `${p}?limit=${opts.listObjects}`, 'raw-etcd'),
        apiList(uncachedClient, 'no-cache', 'API, --watch-cache=false (etcd)', 'etcd-via-api', p, 'raw-etcd'),
        rawEtcdList(raw, 'raw-etcd', 'raw etcd3 range read (same prefix)', keys),
        apiPagedList(load, 'paged', `API, paged: limit=${page} + continue (etcd)`, p, page, 'raw-etcd-paged'),
        rawEtcdPagedList(raw, 'raw-etcd-paged', `raw etcd3 ranges of ${page}, start-key loop`, keys, page),
      ],
      { reps: opts.listReps, warmup: 2, expected: opts.listObjects },
      progress,
    );
  } finally {
    uncachedClient.close();
    await uncached.stop();
  }
}

/** The watch rows, once per protocol asked for (--watch-protocol), each followed by its floor rows unless --watch-floor=false; with the CPU use of the server, etcd and this process. */
async function runWatchPhase(opts: BenchOptions, server: ServerHandle, etcdPid: number, dir: string, progress: Progress): Promise<WatchRow[]> {
  const protocols: Array<'h1' | 'h2'> = opts.watchProtocol === 'both' ? ['h1', 'h2'] : [opts.watchProtocol];
  const rows: WatchRow[] = [];
  for (const protocol of protocols) {
    rows.push(await runWatchProtocol(opts, protocol, server, { server: server.pid, etcd: etcdPid }, progress, server.loopDelay));
    if (!opts.watchFloor) continue;
    // The same watchers and writes against a server that does nothing but fan out: this machine's floor.
    const floor = await forkFloorServer(path.join(dir, `floor-${protocol}`));
    try {
      progress('watch', `floor: the same load against a bare HTTPS/HTTP2 server (no API server, no etcd)`);
      rows.push({ ...(await runWatchProtocol(opts, protocol, floor, { server: floor.pid }, progress)), floor: true });
    } finally {
      await floor.stop();
    }
  }
  return rows;
}

/**
 * One protocol's watch rows. The watchers run in a process of their own (support/watcher-process.ts).
 * HTTP/1.1: every watcher its own socket of one keep-alive agent. HTTP/2: the watchers' streams
 * spread round-robin over --watch-connections sessions advertising client-go's flow-control
 * windows. The writer, in this process, uses HTTP/1.1 either way.
 */
async function runWatchProtocol(
  opts: BenchOptions,
  protocol: 'h1' | 'h2',
  server: ApiTarget,
  serverPids: Record<string, number>,
  progress: Progress,
  serverLoopDelay?: ServerHandle['loopDelay'],
): Promise<WatchRow> {
  const pids = { ...serverPids, bench: process.pid };
  const watchCpu = await cpuMeter(pids);
  const writer = new ApiClient(server, { maxSockets: 256 });
  const namespace = `${WATCH_NS}-${protocol}`;
  const connections = protocol === 'h2' ? opts.watchConnections : opts.watchers;
  try {
    await ensureNamespace(writer, namespace);
    progress('watch', `over ${protocol === 'h2' ? `HTTP/2, ${connections} connection(s)` : 'HTTP/1.1, one socket per watcher'}, watchers in a process of their own`);
    const startWatchers = (watchPath: string, writes: number, baseNs: bigint) =>
      forkWatchers(
        {
          target: { url: server.url, caCert: server.caCert, token: server.token },
          protocol,
          connections: opts.watchConnections,
          watchers: opts.watchers,
          path: watchPath,
          connectConcurrency: 50,
          markerKey: WRITE_MARKER,
          writes,
          baseNs: baseNs.toString(),
        },
        (n) => progress('watch', `connected ${n}/${opts.watchers} watchers`),
      );
    const watch = await measureWatchLatency(
      writer,
      startWatchers,
      {
        namespace,
        watchers: opts.watchers,
        writesPerSecond: opts.writesPerSecond,
        durationSeconds: opts.watchSeconds,
        // 5 s of writes create, the rest update: an update waits for its create, so this keeps the
        // writer open-loop unless a write takes longer than 5 s.
        objects: Math.min(opts.writesPerSecond * 5, opts.writesPerSecond * opts.watchSeconds),
        maxDrainSeconds: 20,
        pids,
        serverLoopDelay,
      },
      progress,
    );
    const cpuPercent = { ...(await watchCpu()), watchers: watch.watcherLifeCpuPercent };
    return { protocol, connections, ...watch, cpuPercent };
  } finally {
    writer.close();
  }
}

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`bench: ${(e as Error).message}\n`);
  process.exit(2);
}
main(options).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
