/**
 * Storage: the contract between the registry and etcd. Keys are full etcd keys
 * (`<prefix>/<resource>/<namespace>/<name>`); revisions are bigints here and decimal strings outside.
 * Every method throws StorageError for expected failures.
 */
import { KubeObject, Status } from '../api';
import type { CallContext } from '../api/request-context';

/**
 * The request a storage call serves (kube passes its context to etcd): once the request's deadline
 * has passed or the client has gone, nothing more is sent to etcd, retries (conflicts) stop, and an
 * etcd call in flight is cancelled: StorageError `ContextDone` (a write cancelled in flight may or
 * may not have been applied, as in kube). Absent for the server's own calls, which only the etcd
 * connection's keepalive bounds (see etcd/etcd-store.ts).
 */
export type WriteContext = CallContext;

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export type Predicate = (obj: KubeObject) => boolean;

/**
 * How fresh a read must be (seed 000's resourceVersion tables): `latest` = Most Recent (quorum or a
 * cache that confirmed it caught up), `any` = Any (RV=0), `notOlderThan` = at least that revision
 * (TooLargeResourceVersion when not reached: the watch cache waits up to 3 s first, etcd answers at once).
 */
export type ReadConsistency = { kind: 'latest' } | { kind: 'any' } | { kind: 'notOlderThan'; revision: bigint };

export interface ListOptions {
  /** Read at this exact revision (Exact / continue); wins over `consistency`. */
  exactRevision?: bigint;
  /** Default `latest`. */
  consistency?: ReadConsistency;
  /** Maximum number of items; 0 = all. */
  limit: number;
  /** Start key (full etcd key) from a continue token. */
  startKey?: string;
  predicate?: Predicate;
  /** True when a label/field selector is in effect (remainingItemCount is then omitted). */
  hasSelector: boolean;
  /** The request the list serves, when it reads etcd (see WriteContext). */
  ctx?: WriteContext;
}

export interface ListResult {
  items: KubeObject[];
  revision: bigint;
  /** Full etcd key of the last item returned, when more may remain. */
  continueKey?: string;
  remainingItemCount?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** Where a watch starts: exactly after a revision, or with the current state as synthetic ADDED events. */
export type WatchStart = { kind: 'after'; revision: bigint } | { kind: 'state'; consistency: ReadConsistency };

export interface WatchOptions {
  start: WatchStart;
  predicate?: Predicate;
  /** Only this exact key (single-object watch) instead of the prefix. */
  exactKey?: boolean;
  /** Periodic BOOKMARK events (allowWatchBookmarks); their object carries only metadata.resourceVersion. */
  bookmarks?: boolean;
  /** After the initial state, one BOOKMARK annotated `k8s.io/initial-events-end: "true"` (sendInitialEvents). */
  initialEventsEndBookmark?: boolean;
  /**
   * kube's legacy watch: neither resourceVersion nor sendInitialEvents was given (the start is the
   * `latest` state). etcd lists its current state, as for any such start; the watch cache starts
   * from its own current state without first confirming it has caught up with etcd (kube's
   * cacher), or hands the watch to etcd under WatchFromStorageWithoutResourceVersion.
   */
  withoutResourceVersion?: boolean;
}

/** A running watch: events arrive through the sink until stop() or an ERROR/close. */
export interface Watch {
  stop(): void;
  /** Sends a BOOKMARK now if the watch allows them (kube sends one shortly before a watch times out). */
  requestBookmark?(): void;
}

export interface WatchSink {
  /** One event; it (and its object) may be shared with other watches' sinks: never modified. */
  event(e: WatchEvent): void;
  /** The watch ended (etcd gone, compacted...) after delivering an ERROR event if there was one. */
  closed(): void;
}

export interface GetOptions {
  /** Default `latest`. */
  consistency?: ReadConsistency;
  /** The request the read serves, when it reads etcd (see WriteContext). */
  ctx?: WriteContext;
}

export interface CreateOptions {
  dryRun?: boolean;
  ctx?: WriteContext;
  /** Time to live in etcd, seconds (kube's TTLFunc, e.g. --event-ttl for events); the key is deleted when it ends. */
  ttlSeconds?: number;
}

export interface UpdateOptions {
  /** As CreateOptions.ttlSeconds: every write of the object starts its time to live again. */
  ttlSeconds?: number;
  /**
   * The object as the watch cache holds it (kube's cachedExistingObject): the first attempt runs on
   * it, the txn's compare checks it is still current. Ignored for dry runs, which read etcd.
   */
  cachedExisting?: KubeObject;
  preconditions?: Preconditions;
  /** Called with the current object (null when missing and createIfMissing). Returns the new object. */
  tryUpdate: (current: KubeObject | null) => Promise<KubeObject> | KubeObject;
  createIfMissing?: boolean;
  dryRun?: boolean;
  ctx?: WriteContext;
}

export interface DeleteOptions {
  /**
   * The object as the caller last read it (kube's cachedExistingObject): the delete's compare uses
   * its resourceVersion instead of reading first; if it is stale the txn returns the current value.
   */
  cachedExisting?: KubeObject;
  preconditions?: Preconditions;
  /** Checked against the current object just before the delete. */
  validateDeletion?: (current: KubeObject) => Promise<void> | void;
  dryRun?: boolean;
  ctx?: WriteContext;
}

export interface Storage {
  /** Creates `key` if absent (KeyExists otherwise). Returns the stored object with its resourceVersion. */
  create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject>;
  /** Reads one object (KeyNotFound when absent), as fresh as `consistency` asks (default latest). */
  get(key: string, opts?: GetOptions): Promise<KubeObject>;
  /** kube's GuaranteedUpdate: read-modify-CAS, retried on conflict. Returns the stored object; `created` for create-on-update. */
  guaranteedUpdate(key: string, opts: UpdateOptions): Promise<{ object: KubeObject; created: boolean }>;
  /** Deletes `key` under preconditions (KeyNotFound when absent). Returns the last state, stamped with the delete revision. */
  delete(key: string, opts?: DeleteOptions): Promise<KubeObject>;
  /**
   * kube's Delete with IgnoreStoreReadError: deletes whatever `key` holds without reading it back
   * (a corrupt value); no preconditions. False when the key was already gone.
   */
  deleteIgnoringReadError(key: string, opts?: { ctx?: WriteContext }): Promise<boolean>;
  /**
   * Lists keys under `prefix` (which ends with '/'). TooLargeResourceVersion for a not-older-than
   * revision not reached; FutureRevision for an exact one etcd has not reached.
   */
  list(prefix: string, opts: ListOptions): Promise<ListResult>;
  /** Watches `prefix` (or an exact key). */
  watch(prefix: string, opts: WatchOptions, sink: WatchSink): Watch;
  /** etcd's current revision (one cheap quorum read). */
  currentRevision(): Promise<bigint>;
  /** True when etcd answers (within `timeoutMs`, else the store's own health-check timeout). */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}
