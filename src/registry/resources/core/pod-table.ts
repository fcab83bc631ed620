/**
 * kube's pod printer (pkg/printers/internalversion printPod): NAME, READY, STATUS, RESTARTS, AGE
 * and, at priority 1 (kubectl -o wide), IP, NODE, NOMINATED NODE, READINESS GATES, with kube's
 * our own column descriptions; a Succeeded or Failed pod's row carries kube's Completed condition.
 */
import type { KubeObject } from '../../../api';
import { ageString } from '../../../api/duration';
import type { TableColumn, TableRowCondition } from '../../resource';
import { ageColumn, nameColumn } from './common';
import type { ContainerStatus, Pod, PodCondition } from './pod-types';

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

const conditionTrue = (conds: PodCondition[] | undefined, type: string) => !!conds?.some((c) => c.type === type && c.status === 'True');

/** A time as milliseconds since the epoch; Go's zero time (unset) as -Infinity. */
const timeOf = (t: string | undefined) => (t ? Date.parse(t) : Number.NEGATIVE_INFINITY);

function summarize(pod: Pod, now: Date): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const restartableInit = new Set((spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const total = (spec.containers ?? []).length + restartableInit.size;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = Number.NEGATIVE_INFINITY;
  let lastSidecarRestart = Number.NEGATIVE_INFINITY;
  let reason = status.reason || status.phase || '';
  if (status.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  let initializing = false;
  const inits = status.initContainerStatuses ?? [];
  for (let i = 0; i < inits.length; i++) {
    const cs = inits[i] as ContainerStatus;
    restarts += cs.restartCount ?? 0;
    const finished = timeOf(cs.lastState?.terminated?.finishedAt);
    if (cs.lastState?.terminated) lastRestart = Math.max(lastRestart, finished);
    const sidecar = restartableInit.has(cs.name);
    if (sidecar) {
      sidecarRestarts += cs.restartCount ?? 0;
      if (cs.lastState?.terminated) lastSidecarRestart = Math.max(lastSidecarRestart, finished);
    }
    const term = cs.state?.terminated;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (sidecar && cs.started) {
      if (cs.ready) ready++;
      continue;
    }
    if (term) {
      if (term.reason) reason = `Init:${term.reason}`;
      else reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode ?? 0}`;
    } else if (cs.state?.waiting?.reason && cs.state.waiting.reason !== 'PodInitializing') {
      reason = `Init:${cs.state.waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status.conditions, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] as ContainerStatus;
      restarts += cs.restartCount ?? 0;
      if (cs.lastState?.terminated) lastRestart = Math.max(lastRestart, timeOf(cs.lastState.terminated.finishedAt));
      const term = cs.state?.terminated;
      if (cs.state?.waiting?.reason) reason = cs.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(status.conditions, 'Ready') ? 'Running' : 'NotReady';
  }

  const terminal = status.phase === 'Succeeded' || status.phase === 'Failed';
  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && !terminal) reason = 'Terminating';

  let restartsText = String(restarts);
  if (restarts !== 0 && Number.isFinite(lastRestart) && !Number.isNaN(lastRestart)) {
    restartsText = `${restarts} (${ageString(new Date(lastRestart).toISOString(), now)} ago)`;
  }
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsText };
}

/** The three derived cells; each column recomputes them (cheap, and never stale). */
const summary = (o: KubeObject, now: Date): PodSummary => summarize(o as Pod, now);

const orNone = (v: string | undefined) => v || '<none>';

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (!gates.length) return '<none>';
  const conds = pod.status?.conditions ?? [];
  const trueCount = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${trueCount}/${gates.length}`;
}

/** The pod columns' descriptions: our own words for what kube's printer documents. */
const descriptions = {
  ready: "How many of the pod's containers are ready, out of how many.",
  status: 'The aggregate state of the pod and its containers.',
  restarts: "How often the pod's containers have restarted, and how long ago the last restart was.",
  ip: "The pod's first IP address, once one is allocated.",
  node: 'The node the pod is bound to.',
  nominatedNode: 'The node the scheduler nominated for the pod while preempting others.',
  readinessGates: 'How many readiness gates are true, out of how many.',
};

export const podTableColumns: TableColumn[] = [
  nameColumn,
  { name: 'Ready', type: 'string', description: descriptions.ready, cell: (o, now) => summary(o, now).ready },
  { name: 'Status', type: 'string', description: descriptions.status, cell: (o, now) => summary(o, now).status },
  { name: 'Restarts', type: 'string', description: descriptions.restarts, cell: (o, now) => summary(o, now).restarts },
  ageColumn,
  { name: 'IP', type: 'string', priority: 1, description: descriptions.ip, cell: (o) => orNone((o as Pod).status?.podIPs?.[0]?.ip) },
  { name: 'Node', type: 'string', priority: 1, description: descriptions.node, cell: (o) => orNone((o as Pod).spec?.nodeName) },
  { name: 'Nominated Node', type: 'string', priority: 1, description: descriptions.nominatedNode, cell: (o) => orNone((o as Pod).status?.nominatedNodeName) },
  { name: 'Readiness Gates', type: 'string', priority: 1, description: descriptions.readinessGates, cell: (o) => readinessGates(o as Pod) },
];

const succeeded: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const failed: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

/** kube's printPod marks a finished pod's row Completed (its podSuccessConditions / podFailedConditions). */
export function podRowConditions(o: KubeObject): TableRowCondition[] | undefined {
  const phase = (o as Pod).status?.phase;
  if (phase === 'Succeeded') return succeeded;
  if (phase === 'Failed') return failed;
  return undefined;
}
