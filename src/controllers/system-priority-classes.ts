/**
 * Creates kube's two system PriorityClasses, system-node-critical (2000001000) and
 * system-cluster-critical (2000000000), when they are missing (kube-apiserver's
 * `scheduling/bootstrap-system-priority-classes` PostStartHook, pkg/registry/scheduling/rest). A
 * class that exists is left as it is. Writes go through the registry as the API server itself, so
 * admission sees them as kube's loopback client's. A pass runs every second while a read fails or
 * a create fails for a reason that may pass (a 5xx, a 429); a refusal of a create (another 4xx) ends
 * the attempt. kube polls for 30 s and then stops the server, whose restart tries again; here the
 * passes go on while the server runs (unless `retryTimeoutMs` says otherwise), and the result says
 * what failed, the caller keeping the hook's health check failing.
 */
import { ApiError, SCHEDULING_GROUP, SYSTEM_PRIORITY_CLASSES, systemPriorityClassObject } from '../api';
import { getOrUndefined, type Registry } from '../registry';
import { controllerContext } from './context';
import type { BootstrapLogger } from './rbac-bootstrap';
import { sleep } from './sleep';

export const systemPriorityClassesHookName = 'scheduling/bootstrap-system-priority-classes';

export interface SystemPriorityClassesOptions {
  logger?: BootstrapLogger;
  /** Time between passes (kube: 1 s). */
  retryIntervalMs?: number;
  /** How long passes are tried (default: until `signal`; kube: 30 s, then the server stops). */
  retryTimeoutMs?: number;
  /** Ends the retries (the server stopping). */
  signal?: AbortSignal;
}

export interface SystemPriorityClassesResult {
  /** priorityclasses is not served (--runtime-config): nothing was done. */
  skipped: boolean;
  /** The classes this run created. */
  created: string[];
  /** Why the classes could not all be made; undefined when they all exist. */
  error?: string;
}

/** Ensures the system classes exist; resolves when done or given up, never rejects. */
export async function ensureSystemPriorityClasses(registry: Registry, opts: SystemPriorityClassesOptions = {}): Promise<SystemPriorityClassesResult> {
  const store = registry.get(SCHEDULING_GROUP, 'v1', 'priorityclasses');
  if (!store) return { skipped: true, created: [] };
  const ctx = () => controllerContext('system:apiserver', ['system:masters']);
  const interval = opts.retryIntervalMs ?? 1000;
  const deadline = opts.retryTimeoutMs === undefined ? Infinity : Date.now() + opts.retryTimeoutMs;
  let warned = false;
  const created: string[] = [];
  let lastError = '';
  for (;;) {
    let retry = false;
    for (const c of SYSTEM_PRIORITY_CLASSES) {
      try {
        if (await getOrUndefined(store, ctx(), c.name)) continue;
      } catch (e) {
        // kube: a read failing for another reason than NotFound is tried again.
        lastError = `unable to get PriorityClass ${c.name}: ${message(e)}`;
        retry = true;
        break;
      }
      try {
        await store.create(ctx(), systemPriorityClassObject(c));
        created.push(c.name);
        opts.logger?.info(`created PriorityClass ${c.name} with value ${c.value}`);
      } catch (e) {
        if (e instanceof ApiError && e.code === 409 && e.reason === 'AlreadyExists') continue;
        lastError = `unable to create PriorityClass ${c.name}: ${message(e)}`;
        // A refusal ends the hook (kube ends it for anything but a 503 and restarts the server).
        if (!mayPass(e)) return failed(created, lastError, opts.logger);
        retry = true;
        break;
      }
    }
    if (!retry) {
      opts.logger?.info('all system priority classes are created successfully or already exist.');
      return { skipped: false, created };
    }
    if (opts.signal?.aborted || Date.now() + interval > deadline) return failed(created, lastError, opts.logger);
    if (!warned) {
      warned = true;
      opts.logger?.warn(`going to retry: ${lastError}`);
    }
    await sleep(interval, opts.signal);
  }
}

function failed(created: string[], error: string, logger: BootstrapLogger | undefined): SystemPriorityClassesResult {
  const text = `unable to add default system priority classes: ${error}`;
  logger?.warn(text);
  return { skipped: false, created, error: text };
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Worth another pass: not the server refusing the object (etcd away, a 5xx, a 429). */
function mayPass(e: unknown): boolean {
  return !(e instanceof ApiError) || e.code >= 500 || e.code === 429;
}
