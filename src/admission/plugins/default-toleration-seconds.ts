/**
 * kube's DefaultTolerationSeconds admission plugin (plugin/pkg/admission/defaulttolerationseconds,
 * on by default): on a pod's create or update (not its subresources), a pod that does not already
 * tolerate the NoExecute taints `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable`
 * gets a toleration of each (operator Exists, effect NoExecute) for
 * --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (300 s). A
 * toleration with an empty key or an empty effect counts as tolerating them, as in kube.
 */
import type { KubeObject } from '../../api';
import { AdmissionPlugin, handlesOperations } from '../interface';
import type { Plugins } from '../plugin-registry';

export const defaultTolerationSecondsPluginName = 'DefaultTolerationSeconds';

export const taintNodeNotReady = 'node.kubernetes.io/not-ready';
export const taintNodeUnreachable = 'node.kubernetes.io/unreachable';

/** kube's flag defaults. */
export const defaultNotReadyTolerationSeconds = 300;
export const defaultUnreachableTolerationSeconds = 300;

export interface DefaultTolerationSettings {
  /** --default-not-ready-toleration-seconds */
  notReady: number;
  /** --default-unreachable-toleration-seconds */
  unreachable: number;
}

interface Toleration {
  key?: string | null;
  effect?: string | null;
}
type Pod = KubeObject & { spec?: { tolerations?: Toleration[] | null } | null };

/** Whether one of the tolerations covers the NoExecute taint `key`. */
function tolerates(tolerations: readonly (Toleration | null)[], key: string): boolean {
  return tolerations.some((t) => !!t && (!t.key || t.key === key) && (!t.effect || t.effect === 'NoExecute'));
}

export function defaultTolerationSeconds(settings: DefaultTolerationSettings): AdmissionPlugin {
  return {
    name: defaultTolerationSecondsPluginName,
    handles: handlesOperations('CREATE', 'UPDATE'),
    async admit(_ctx, a) {
      if (a.group !== '' || a.resource !== 'pods' || a.subresource || !a.object) return;
      const pod = a.object as Pod;
      const spec = (pod.spec ??= {});
      const tolerations = spec.tolerations ?? [];
      const added: Record<string, unknown>[] = [];
      if (!tolerates(tolerations, taintNodeNotReady)) {
        added.push({ key: taintNodeNotReady, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: settings.notReady });
      }
      if (!tolerates(tolerations, taintNodeUnreachable)) {
        added.push({ key: taintNodeUnreachable, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: settings.unreachable });
      }
      if (added.length) spec.tolerations = [...tolerations, ...added];
    },
  };
}

/** Reads deps.defaultTolerationSeconds (the two flags), kube's 300 s each when the server sets none. */
export function registerDefaultTolerationSeconds(plugins: Plugins): void {
  plugins.register(defaultTolerationSecondsPluginName, (_config, deps) =>
    defaultTolerationSeconds(deps.defaultTolerationSeconds ?? { notReady: defaultNotReadyTolerationSeconds, unreachable: defaultUnreachableTolerationSeconds }),
  );
}
