/**
 * Storage on etcd v3: the only place (with etcd-errors.ts) that talks to etcd3.
 * Transaction shapes follow kube's etcd3 store: create = if mod_revision == 0 then put;
 * update/delete = if mod_revision == rv then write else get (a failed compare retries from the
 * returned value without an extra read).
 */
import { ExponentialBackoff, noop } from 'cockatiel';
import { Etcd3, GRPCDeadlineExceededError, IKeyValue, IRangeResponse, ITxnResponse, IWatchResponse, Watcher } from 'etcd3';
import { KubeObject, RevisionSlot, cloneJson, loopHeld, nextTurn, rememberStoredJson } from '../../api';
import { contextError, deadlineReached, type CallContext } from '../../api/request-context';
import { StorageCodec, jsonCodec } from '../codec/json-codec';
import { StorageError, assertSendable, tooLargeResourceVersionError, watchErrorStatus } from '../errors';
import {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Preconditions,
  ReadConsistency,
  Storage,
  UpdateOptions,
  Watch,
  WatchOptions,
  WatchSink,
  WriteContext,
} from '../interface';
import { Transformer, identityTransformer } from '../transformer';
import { CorruptErrorOptions, CorruptObjectsError, CorruptValue, corruptListError, corruptReadError, corruptWatchError, corruptWriteError, maxCorruptObjectsListed } from '../corrupt';
import { withRevision } from '../revision';
import { toStorageError } from './etcd-errors';
import { watchPrefix } from './etcd-watch';
import { Feed, FeedListener, watchKeyspace } from './etcd-feed';
import { Compactor, CompactorOptions } from './compactor';
import { LeaseManager } from './lease-manager';
import { EtcdCallOptions, bindToContext } from './call-context';

export interface EtcdStoreOptions {
  endpoints: string[];
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  codec?: StorageCodec;
  transformer?: Transformer;
  /**
   * gRPC keepalive, kube's etcd client's values: a ping every 30 s while calls or watches are open,
   * the connection dropped when one goes unanswered for 10 s. It is what bounds a call made with no
   * request context (the watch cache's lists, the server's own writes, compaction), as kube's calls
   * on context.Background are bounded: a stalled etcd fails it with Unreachable within ~40 s.
   */
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
  /** Deadline of the health checks' read (`ping`; kube's --etcd-healthcheck-timeout, 2 s). */
  healthcheckTimeoutMs?: number;
  /**
   * How long a watch from a future revision waits before its ERROR 504. Gets and lists never wait:
   * as kube's etcd3 store they read, then answer TooLargeResourceVersion if the read is older.
   */
  futureRevisionWaitMs?: number;
  /**
   * Gate AllowUnsafeMalformedObjectDeletion: errors about values that cannot be read back use
   * kube's corrupt-object wording (see ../corrupt.ts), and lists report every such value.
   */
  allowUnsafeMalformedObjectDeletion?: boolean;
  /** The server's --etcd-prefix, which kube's corrupt-object errors leave out of a get's key. Default /registry. */
  keyPrefix?: string;
}

/** etcd's maximum page we grow to when selectors filter items out (kube: maxLimit). */
const maxPageSize = 10000;
/**
 * Compare-and-swap attempts of a write the server makes for itself (no request deadline). kube's
 * loops are unbounded; a request's loop here is too, ended only by its context (deadline, client
 * gone), so unconditional writes racing on one object all land, as they do in kube.
 */
const maxUpdateAttempts = 64;

/** How many compare-and-swap attempts a write may make: unbounded while a request's deadline bounds it. */
function attemptsFor(ctx: CallContext | undefined): number {
  return ctx?.deadlineAt !== undefined ? Infinity : maxUpdateAttempts;
}

interface Current {
  object: KubeObject;
  plain: Buffer;
  modRevision: bigint;
  /** The transformer asked for a rewrite (e.g. an old encryption key): an unchanged update still writes. */
  stale?: boolean;
}

export class EtcdStore implements Storage {
  private readonly client: Etcd3;
  private readonly leases: LeaseManager;
  private readonly codec: StorageCodec;
  private readonly transformer: Transformer;
  private readonly futureRevisionWaitMs: number;
  private readonly healthcheckTimeoutMs: number;
  private readonly compactors: Compactor[] = [];
  /** How errors about corrupt values are worded (the gate and the prefix). */
  readonly corruptErrors: CorruptErrorOptions;

  constructor(opts: EtcdStoreOptions) {
    this.codec = opts.codec ?? jsonCodec;
    this.transformer = opts.transformer ?? identityTransformer;
    this.futureRevisionWaitMs = opts.futureRevisionWaitMs ?? 3000;
    this.healthcheckTimeoutMs = opts.healthcheckTimeoutMs ?? 2000;
    this.corruptErrors = { gate: !!opts.allowUnsafeMalformedObjectDeletion, keyPrefix: (opts.keyPrefix ?? '/registry').replace(/\/+$/, '') };
    this.client = new Etcd3({
      hosts: opts.endpoints,
      credentials: opts.tls && {
        rootCertificate: opts.tls.ca ?? Buffer.alloc(0),
        certChain: opts.tls.cert,
        privateKey: opts.tls.key,
      },
      grpcOptions: {
        // grpc-js caps received messages at 4 MiB by default; a list of many objects is larger.
        'grpc.max_receive_message_length': -1,
        'grpc.max_send_message_length': 4 * 1024 * 1024,
        // As kube's: pings only while calls or streams are open (no keepalive without them).
        'grpc.keepalive_time_ms': opts.keepaliveTimeMs ?? 30_000,
        'grpc.keepalive_timeout_ms': opts.keepaliveTimeoutMs ?? 10_000,
      },
      // No default deadline: as kube's, a call is bounded by its request's context (./call-context.ts)
      // or, without one, by the keepalive above.
      // No automatic retries: a retried write may fail its own compare, and a breaker would keep
      // failing requests for seconds after etcd is back. Watches reconnect quickly on their own.
      faultHandling: {
        host: () => noop,
        global: noop,
        // etcd3 calls .next() on this (a backoff factory), though its typings say IBackoff.
        watchBackoff: new ExponentialBackoff({ initialDelay: 100, maxDelay: 2000 }) as never,
      },
    });
    this.leases = new LeaseManager(this.client);
  }

  async create(key: string, obj: KubeObject, opts: CreateOptions = {}): Promise<KubeObject> {
    // Encoding a 3 MiB object is a stage of its own (api/turns.ts).
    if (loopHeld()) await nextTurn();
    const { bytes: plain, slot } = this.encodeForWrite(obj, opts.dryRun);
    if (opts.dryRun) {
      if (await this.readCurrent(key, opts.ctx)) throw keyExists(key);
      return obj;
    }
    // Without a transformer or a time to live the write's only wait is etcd's answer.
    const value = this.transformer === identityTransformer ? plain : await this.transformer.toStorage(plain, key);
    const lease = opts.ttlSeconds ? await this.leaseFor(key, opts.ttlSeconds, opts.ctx) : '0';
    assertSendable(key, opts.ctx);
    const resp = await this.call(key, opts.ctx, (o) =>
      this.client.kv.txn({
        compare: [{ key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key: Buffer.from(key), value, lease } }],
        failure: [],
      }, o),
    );
    if (!resp.succeeded) throw keyExists(key);
    const created = withRevision(obj, BigInt(resp.header.revision));
    if (slot) rememberStoredJson(opts.ctx, created, plain, slot);
    return created;
  }

  /** kube's store.Get: a quorum read, then the not-older-than check (before not-found, as kube). */
  async get(key: string, opts: GetOptions = {}): Promise<KubeObject> {
    const resp = await this.call(key, opts.ctx, (o) => this.client.kv.range({ key: Buffer.from(key) }, o));
    validateMinimumRevision(key, opts.consistency, BigInt(resp.header.revision));
    const cur = await this.currentFrom(key, resp);
    if (!cur) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
    if (cur instanceof CorruptValue) throw corruptReadError(cur, this.corruptErrors);
    return cur.object;
  }

  /**
   * kube's GuaranteedUpdate. With `opts.cachedExisting` (the watch cache's copy) the first attempt
   * runs on it and the txn's compare checks it is current, so an update is one etcd round trip;
   * a stale copy costs a retry on the state the failed txn returned. As in kube, a check or
   * tryUpdate error on the cached copy is retried once on a fresh read (and returned if the copy
   * was current after all), and an update that changes nothing is confirmed against etcd before
   * it is answered without a write.
   */
  async guaranteedUpdate(key: string, opts: UpdateOptions): Promise<{ object: KubeObject; created: boolean }> {
    const cached = opts.cachedExisting;
    let cur: Current | null =
      cached?.metadata.resourceVersion !== undefined && !opts.dryRun
        ? { object: cached, plain: this.codec.encode(cached), modRevision: BigInt(cached.metadata.resourceVersion) }
        : await this.readCurrent(key, opts.ctx);
    let isCurrent = cur === null || cur.object !== cached;
    for (let attempt = 0, max = attemptsFor(opts.ctx); attempt < max; attempt++) {
      // A retry of a request that is done stops here (kube's would fail at its next etcd call).
      if (attempt > 0) assertSendable(key, opts.ctx);
      if (!cur && !opts.createIfMissing) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      let next: KubeObject;
      try {
        if (cur) checkPreconditions(key, opts.preconditions, cur.object);
        if (loopHeld()) await nextTurn();
        next = await opts.tryUpdate(cur ? cloneJson(cur.object) : null);
      } catch (e) {
        if (isCurrent) throw e;
        const cachedRevision = cur?.modRevision;
        cur = await this.readCurrent(key, opts.ctx);
        isCurrent = true;
        if (cur?.modRevision === cachedRevision) throw e;
        continue;
      }
      if (loopHeld()) await nextTurn();
      const { bytes: plain, slot } = this.encodeForWrite(next, opts.dryRun);
      if (cur && plain.equals(cur.plain)) {
        if (!isCurrent) {
          cur = await this.readCurrent(key, opts.ctx);
          isCurrent = true;
          if (!cur || !plain.equals(cur.plain)) continue;
        }
        // kube: a stale value (the transformer wants it rewritten) is written even when unchanged.
        if (!cur.stale) return { object: cur.object, created: false };
      }
      if (opts.dryRun) {
        return { object: cur ? withRevision(next, cur.modRevision) : next, created: !cur };
      }
      const value = await this.transformer.toStorage(plain, key);
      const lease = await this.leaseFor(key, opts.ttlSeconds, opts.ctx);
      assertSendable(key, opts.ctx);
      const resp = await this.call(key, opts.ctx, (o) =>
        this.client.kv.txn({
          compare: [
            { key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: String(cur?.modRevision ?? 0n) },
          ],
          success: [{ request_put: { key: Buffer.from(key), value, lease } }],
          failure: [{ request_range: { key: Buffer.from(key) } }],
        }, o),
      );
      if (resp.succeeded) return { object: writtenAt(next, BigInt(resp.header.revision), plain, slot, opts.ctx), created: !cur };
      cur = await this.readableFrom(key, resp.responses[0]?.response_range);
      isCurrent = true;
    }
    throw new StorageError('Conflict', key, `too many conflicting updates of ${key}`);
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const cached = opts.cachedExisting;
    let cur: { object: KubeObject; modRevision: bigint } | null =
      cached?.metadata.resourceVersion !== undefined
        ? { object: cached, modRevision: BigInt(cached.metadata.resourceVersion) }
        : await this.readCurrent(key, opts.ctx);
    let fromCache = cur?.object === cached;
    for (let attempt = 0, max = attemptsFor(opts.ctx); attempt < max; attempt++) {
      if (attempt > 0) assertSendable(key, opts.ctx);
      if (!cur) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      try {
        checkPreconditions(key, opts.preconditions, cur.object);
        if (opts.validateDeletion) await opts.validateDeletion(cur.object);
      } catch (e) {
        // kube: a check that fails on the cached object is retried once on a fresh read, unless that
        // read shows the cached object was current (then its error stands: admission is not asked twice).
        if (!fromCache) throw e;
        fromCache = false;
        const cachedRevision = cur.modRevision;
        cur = await this.readCurrent(key, opts.ctx);
        if (cur?.modRevision === cachedRevision) throw e;
        continue;
      }
      if (opts.dryRun) return cur.object;
      assertSendable(key, opts.ctx);
      const resp = await this.call(key, opts.ctx, (o) =>
        this.client.kv.txn({
          compare: [{ key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: String(cur?.modRevision) }],
          success: [{ request_delete_range: { key: Buffer.from(key) } }],
          failure: [{ request_range: { key: Buffer.from(key) } }],
        }, o),
      );
      if (resp.succeeded) return withRevision(cur.object, BigInt(resp.header.revision));
      cur = await this.readableFrom(key, resp.responses[0]?.response_range);
      fromCache = false;
    }
    throw new StorageError('Conflict', key, `too many conflicting deletes of ${key}`);
  }

  /** kube's conditionalDelete with skipTransformDecode: the compare is on the mod revision alone. */
  async deleteIgnoringReadError(key: string, opts: { ctx?: WriteContext } = {}): Promise<boolean> {
    let range: IRangeResponse | undefined = await this.call(key, opts.ctx, (o) => this.client.kv.range({ key: Buffer.from(key), keys_only: true }, o));
    for (let attempt = 0, max = attemptsFor(opts.ctx); attempt < max; attempt++) {
      const kv: IKeyValue | undefined = range?.kvs[0];
      if (!kv) return false;
      assertSendable(key, opts.ctx);
      const resp: ITxnResponse = await this.call(key, opts.ctx, (o) =>
        this.client.kv.txn({
          compare: [{ key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: kv.mod_revision }],
          success: [{ request_delete_range: { key: Buffer.from(key) } }],
          failure: [{ request_range: { key: Buffer.from(key), keys_only: true } }],
        }, o),
      );
      if (resp.succeeded) return true;
      range = resp.responses[0]?.response_range;
    }
    throw new StorageError('Conflict', key, `too many conflicting deletes of ${key}`);
  }

  /**
   * kube's store.GetList. A not-older-than list reads the latest revision and then answers
   * TooLargeResourceVersion at once if that is older; an exact revision etcd has not reached fails
   * the range itself (FutureRevision).
   */
  async list(prefix: string, opts: ListOptions): Promise<ListResult> {
    const rangeEnd = prefixEnd(prefix);
    let startKey = Buffer.from(opts.startKey ?? prefix);
    let revision = opts.exactRevision ?? 0n;
    const limit = opts.limit > 0 ? opts.limit : 0;
    let pageSize = limit;
    const items: KubeObject[] = [];
    let lastReturnedKey: string | undefined;
    let more = false;
    let firstCount = 0;
    const corrupt: CorruptValue[] = [];
    for (let page = 0; ; page++) {
      const resp: IRangeResponse = await this.call(prefix, opts.ctx, (o) =>
        this.client.kv.range({
          key: startKey,
          range_end: rangeEnd,
          limit: pageSize,
          revision: String(revision),
        }, o),
      );
      if (page === 0 && opts.exactRevision === undefined) validateMinimumRevision(prefix, opts.consistency, BigInt(resp.header.revision));
      if (revision === 0n) revision = BigInt(resp.header.revision);
      if (page === 0) firstCount = Number(resp.count);
      let stoppedAt = -1;
      for (let i = 0; i < resp.kvs.length; i++) {
        const kv = resp.kvs[i] as IKeyValue;
        const obj = await this.decodeEntry(kv);
        if (obj instanceof CorruptValue) {
          // kube: without the gate the first one ends the list; with it, all are gathered, at most 100.
          if (!this.corruptErrors.gate) throw corruptListError([obj], false, this.corruptErrors);
          if (corrupt.length >= maxCorruptObjectsListed) throw corruptListError(corrupt, true, this.corruptErrors);
          corrupt.push(obj);
          continue;
        }
        if (opts.predicate && !opts.predicate(obj)) continue;
        items.push(obj);
        lastReturnedKey = kv.key.toString();
        if (limit > 0 && items.length === limit) {
          stoppedAt = i;
          break;
        }
      }
      const last = resp.kvs[resp.kvs.length - 1];
      if (stoppedAt >= 0) {
        more = stoppedAt < resp.kvs.length - 1 || resp.more;
        break;
      }
      if (!resp.more || !last || limit === 0) break;
      startKey = Buffer.concat([last.key, Buffer.from([0])]);
      pageSize = Math.min(pageSize * 2, maxPageSize);
    }
    if (corrupt.length) throw corruptListError(corrupt, false, this.corruptErrors);
    const result: ListResult = { items, revision };
    if (more && lastReturnedKey !== undefined) {
      result.continueKey = lastReturnedKey;
      // kube: remainingItemCount only without selectors, counted from this page's start key.
      if (!opts.hasSelector) result.remainingItemCount = firstCount - items.length;
    }
    return result;
  }

  /** Raw pages of (key, object) for the watch cache's initial list. */
  async listEntries(
    prefix: string,
    o: { limit: number; startKey?: string; revision?: bigint },
  ): Promise<{ entries: Array<{ key: string; object: KubeObject | CorruptValue }>; revision: bigint; more: boolean }> {
    const resp: IRangeResponse = await this.call(prefix, undefined, () =>
      this.client.kv.range({
        key: Buffer.from(o.startKey ?? prefix),
        range_end: prefixEnd(prefix),
        limit: o.limit,
        revision: String(o.revision ?? 0n),
      }),
    );
    const entries = [];
    for (const kv of resp.kvs) entries.push({ key: kv.key.toString(), object: await this.decodeEntry(kv) });
    return { entries, revision: o.revision ?? BigInt(resp.header.revision), more: resp.more };
  }

  /** The watch cache's feed: one etcd watch over the whole keyspace (see etcd-feed.ts). */
  feed(prefix: string, sinceRevision: bigint, listener: FeedListener): Feed {
    // Without a transformer (no encryption at rest) an event's value is decoded as it comes: no promise per event.
    const decode =
      this.transformer === identityTransformer
        ? (kv: IKeyValue, rev: bigint) => this.decodePlain(kv.key.toString(), kv.value, rev)
        : (kv: IKeyValue, rev: bigint) => this.decodeEntry(kv, rev);
    return watchKeyspace({ client: this.client, prefix, sinceRevision, decode, listener });
  }

  /**
   * Watches straight from etcd (the --watch-cache=false path, and starts older than the cache's
   * history): the initial state is a list at the requested freshness, then events after its revision.
   */
  watch(prefix: string, opts: WatchOptions, sink: WatchSink): Watch {
    let inner: Watch | undefined;
    let stopped = false;
    const start = async (): Promise<void> => {
      let since: bigint;
      if (opts.start.kind === 'after') {
        // As our cache does, a start etcd has not reached waits briefly, then ERROR 504 (kube's
        // etcd watch instead opens and waits for the events after it).
        await this.waitForRevision(prefix, opts.start.revision);
        since = opts.start.revision;
      }
      else {
        if (opts.start.consistency.kind === 'notOlderThan') await this.waitForRevision(prefix, opts.start.consistency.revision);
        const initial = opts.exactKey
          ? await this.readCurrent(prefix, undefined, corruptReadError).then(async (c) => ({ items: c ? [c.object] : [], revision: await this.currentRevision() }))
          : await this.list(prefix, { limit: 0, hasSelector: false }).catch((e: unknown) => {
              // As kube's etcd3 watcher, which reads the state value by value: the first corrupt one ends it.
              throw e instanceof CorruptObjectsError && e.found[0] ? corruptWatchError(e.found[0], false, this.corruptErrors) : e;
            });
        if (stopped) return;
        for (const item of initial.items) if (!opts.predicate || opts.predicate(item)) sink.event({ type: 'ADDED', object: item });
        since = initial.revision;
        if (opts.initialEventsEndBookmark) {
          sink.event({ type: 'BOOKMARK', object: { metadata: { resourceVersion: since.toString(), annotations: { 'k8s.io/initial-events-end': 'true' } } } });
        }
      }
      if (stopped) return;
      inner = watchPrefix({
        client: this.client,
        prefix,
        opts,
        sinceRevision: since,
        sink,
        decode: (kv, rev) => this.decodeEntry(kv, rev),
        corruptErrors: this.corruptErrors,
      });
    };
    start().catch((err: unknown) => {
      if (stopped) return;
      stopped = true;
      sink.event({ type: 'ERROR', object: watchErrorStatus(toStorageError(err, prefix)) });
      sink.closed();
    });
    return {
      stop() {
        stopped = true;
        inner?.stop();
      },
      requestBookmark() {
        inner?.requestBookmark?.();
      },
    };
  }

  /** Throws Compacted when etcd no longer holds `revision` (one count-only range read). */
  async assertRevisionAvailable(revision: bigint): Promise<void> {
    await this.call('', undefined, () => this.client.kv.range({ key: Buffer.from([0]), count_only: true, revision: String(revision) }));
  }

  async currentRevision(): Promise<bigint> {
    const resp = await this.call('', undefined, () => this.client.kv.range({ key: Buffer.from([0]), count_only: true }));
    return BigInt(resp.header.revision);
  }

  /** The health checks' read: bounded by its own timeout (kube's --etcd-healthcheck-timeout default, else `timeoutMs`). */
  async ping(timeoutMs = this.healthcheckTimeoutMs): Promise<boolean> {
    // kube's check on a context whose timeout is not positive fails at once.
    if (!(timeoutMs > 0)) return false;
    try {
      await this.client.kv.range({ key: Buffer.from([0]), count_only: true }, { deadline: Date.now() + timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    for (const c of this.compactors) c.stop();
    this.client.close();
  }

  /** Starts kube's periodic compaction (see compactor.ts); stopped by close(). */
  startCompactor(intervalMs: number, hooks: Pick<CompactorOptions, 'onCompacted' | 'onError'> = {}): Compactor {
    const c = new Compactor({ client: this.client, intervalMs, ...hooks });
    c.start();
    this.compactors.push(c);
    return c;
  }

  /** The etcd3 client, for storage-internal users and tests. */
  get etcd(): Etcd3 {
    return this.client;
  }

  /** A watch's start etcd has not reached: polls for a while, then TooLargeResourceVersion (retry 1). */
  private async waitForRevision(key: string, min: bigint): Promise<void> {
    const deadline = Date.now() + this.futureRevisionWaitMs;
    for (;;) {
      const current = await this.currentRevision();
      if (current >= min) return;
      if (Date.now() >= deadline) throw tooLargeResourceVersionError(key, min, current, 1);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The etcd lease a write with a time to live attaches to ('0', none, without one). */
  /** The bytes a write stores, with where their resourceVersion goes so the answer can be them (api/stored-json.ts); a dry run answers as usual. */
  private encodeForWrite(obj: KubeObject, dryRun: boolean | undefined): { bytes: Buffer; slot?: RevisionSlot } {
    return this.codec.encodeWithSlot && !dryRun ? this.codec.encodeWithSlot(obj) : { bytes: this.codec.encode(obj), slot: undefined };
  }

  private async leaseFor(key: string, ttlSeconds: number | undefined, ctx: CallContext | undefined): Promise<string> {
    if (!ttlSeconds) return '0';
    // kube grants the lease on the request's context.
    return this.call(key, ctx, (o) => this.leases.leaseFor(ttlSeconds, o));
  }

  /** The key's current state; a corrupt value throws `corruptError` (by default, as an update's or delete's read). */
  private async readCurrent(key: string, ctx?: CallContext, corruptError = corruptWriteError): Promise<Current | null> {
    const resp = await this.call(key, ctx, (o) => this.client.kv.range({ key: Buffer.from(key) }, o));
    return this.readableFrom(key, resp, corruptError);
  }

  /** The state a range (or a failed txn's range) returned; a corrupt value throws. */
  private async readableFrom(key: string, resp: IRangeResponse | undefined, corruptError = corruptWriteError): Promise<Current | null> {
    const cur = await this.currentFrom(key, resp);
    if (cur instanceof CorruptValue) throw corruptError(cur, this.corruptErrors);
    return cur;
  }

  private async currentFrom(key: string, resp: IRangeResponse | undefined): Promise<Current | CorruptValue | null> {
    const kv = resp?.kvs[0];
    if (!kv) return null;
    const modRevision = BigInt(kv.mod_revision);
    let plain: { data: Buffer; stale?: boolean };
    try {
      plain = await this.transformer.fromStorage(kv.value, key);
    } catch (e) {
      return new CorruptValue(key, modRevision, 'untransformable', (e as Error).message);
    }
    const object = this.decodePlain(key, plain.data, modRevision);
    if (object instanceof CorruptValue) return object;
    return { object, plain: plain.data, modRevision, stale: plain.stale };
  }

  /** A stored value as an object stamped with `revision` (default: its mod revision), or the CorruptValue it is (at that revision). */
  private async decodeEntry(kv: IKeyValue, revision?: bigint): Promise<KubeObject | CorruptValue> {
    const key = kv.key.toString();
    const modRevision = BigInt(kv.mod_revision);
    let data: Buffer;
    try {
      ({ data } = await this.transformer.fromStorage(kv.value, key));
    } catch (e) {
      return new CorruptValue(key, modRevision, 'untransformable', (e as Error).message);
    }
    // kube's watcher reports a previous value it cannot decode at the event's revision.
    return this.decodePlain(key, data, revision ?? modRevision);
  }

  private decodePlain(key: string, data: Buffer, revision: bigint): KubeObject | CorruptValue {
    // Work on an etcd answer starts this turn's clock, if not yet started (api/turns.ts): a large decode is counted.
    loopHeld();
    try {
      return this.codec.decode(data, revision);
    } catch (e) {
      return new CorruptValue(key, revision, 'undecodable', this.codec.decodeErrorText?.(data, e) ?? (e as Error).message);
    }
  }

  /**
   * One unary etcd call. With the request's context (`ctx`): refused once the context is done, and
   * cancelled when it ends meanwhile (./call-context.ts) — ContextDone with Go's ctx.Err() text
   * either way, as grpc-go fails the call with the context's error. Without one, only the
   * connection's keepalive bounds it (kube's calls on context.Background are so bounded too).
   */
  private async call<T>(key: string, ctx: CallContext | undefined, fn: (o?: EtcdCallOptions) => Promise<T>): Promise<T> {
    if (!ctx) {
      try {
        return await fn();
      } catch (e) {
        throw toStorageError(e, key);
      }
    }
    assertSendable(key, ctx);
    const bound = bindToContext(ctx);
    try {
      return await fn(bound.options);
    } catch (e) {
      // The backstop deadline (nothing timed the context's end): the request's deadline has passed.
      if (e instanceof GRPCDeadlineExceededError && ctx.deadlineAt !== undefined) deadlineReached(ctx);
      const done = contextError(ctx);
      throw done ? new StorageError('ContextDone', key, done) : toStorageError(e, key);
    } finally {
      bound.release();
    }
  }
}

/**
 * kube's validateMinimumResourceVersion: data read at etcd revision `read` must be at least the
 * requested resourceVersion, else TooLargeResourceVersion at once, with no retry advice.
 */
function validateMinimumRevision(key: string, c: ReadConsistency | undefined, read: bigint): void {
  if (c?.kind === 'notOlderThan' && c.revision > read) throw tooLargeResourceVersionError(key, c.revision, read, 0);
}

/** An update's object as written at `revision`, its stored bytes kept for the request's answer when their slot is known. */
function writtenAt(obj: KubeObject, revision: bigint, plain: Buffer, slot: RevisionSlot | undefined, ctx: WriteContext | undefined): KubeObject {
  const written = withRevision(obj, revision);
  if (slot) rememberStoredJson(ctx, written, plain, slot);
  return written;
}

function keyExists(key: string): StorageError {
  return new StorageError('KeyExists', key, `key exists: ${key}`);
}

/** kube's storage Preconditions.Check, with its StorageError wording. */
function checkPreconditions(key: string, p: Preconditions | undefined, obj: KubeObject): void {
  if (!p) return;
  if (p.uid !== undefined && p.uid !== obj.metadata.uid) {
    throw new StorageError(
      'InvalidPrecondition',
      key,
      `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`,
    );
  }
  if (p.resourceVersion !== undefined && p.resourceVersion !== obj.metadata.resourceVersion) {
    throw new StorageError(
      'InvalidPrecondition',
      key,
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`,
    );
  }
}

/** The smallest key greater than every key with this prefix. */
export function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if ((b[i] as number) < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i] = (end[i] as number) + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

export type { Watcher, IWatchResponse };
