/**
 * kube's Priority admission plugin (plugin/pkg/admission/priority, on by default). Mutating, for a
 * pod's create: the pod's priority and preemptionPolicy come from the PriorityClass it names (403
 * `no PriorityClass with name <x> was found` when there is none), else from the global default
 * class (whose name the pod then gets), else priority 0 and PreemptLowerPriority. A priority or
 * policy the client set that differs from the computed one is refused (403). On a pod's update the
 * old priority and policy are kept when the new object lacks them. Validating, for a PriorityClass's
 * create or update: marking it the global default while another class is the default is refused.
 * Subresources are never looked at.
 *
 * Classes are read from the server's shared informer (kube's lister), so no request reads etcd; a
 * name the copy lacks is read once more through the registry before the pod is refused (a class
 * created a moment ago), where kube's lister would refuse it until its watch caught up.
 */
import {
  ApiError,
  DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS,
  KubeObject,
  SCHEDULING_GROUP,
  defaultPriorityClass,
  errors,
  failureStatus,
  priorityClassShape,
} from '../../api';
import { PriorityClassLister, requireDep } from '../deps';
import { AdmissionAttributes, AdmissionPlugin, handlesOperations } from '../interface';
import type { Plugins } from '../plugin-registry';

export const priorityPluginName = 'Priority';

interface PodSpec {
  priorityClassName?: string | null;
  priority?: number | null;
  preemptionPolicy?: string | null;
}
type Pod = KubeObject & { spec?: PodSpec | null };

/** admission.NewForbidden: named after the request, else the object's name or generateName, else "Unknown". */
function forbidden(a: AdmissionAttributes, message: string): ApiError {
  const meta = a.object?.metadata;
  const name = a.name || meta?.name || meta?.generateName || 'Unknown';
  return errors.forbidden({ group: a.group, resource: a.resource }, name, message);
}

/** A plain Go error returned by admission: answered 500 with the error's text and no reason. */
const plainError = (message: string) => new ApiError(failureStatus(500, '', message));

interface Resolved {
  /** The class the pod ends up naming ("" for none). */
  name: string;
  value: number;
  preemptionPolicy: string | undefined;
}

export function priorityPlugin(classes: PriorityClassLister): AdmissionPlugin {
  /** kube's getDefaultPriority: the global default class, else 0 and PreemptLowerPriority. */
  const defaultPriority = (): Resolved => {
    const dpc = defaultPriorityClass(classes.list());
    if (!dpc) return { name: '', value: DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, preemptionPolicy: 'PreemptLowerPriority' };
    const pc = priorityClassShape(dpc);
    return { name: pc.metadata.name ?? '', value: pc.value ?? 0, preemptionPolicy: pc.preemptionPolicy ?? undefined };
  };

  const resolve = async (a: AdmissionAttributes, name: string): Promise<Resolved> => {
    let found = classes.get(name);
    if (!found && classes.live) {
      try {
        found = await classes.live(name);
      } catch (e) {
        throw plainError(`failed to get PriorityClass with name ${name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (!found) throw forbidden(a, `no PriorityClass with name ${name} was found`);
    const pc = priorityClassShape(found);
    return { name, value: pc.value ?? 0, preemptionPolicy: pc.preemptionPolicy ?? undefined };
  };

  const admitPod = async (a: AdmissionAttributes): Promise<void> => {
    const pod = a.object as Pod;
    const spec = (pod.spec ??= {});
    if (a.operation === 'UPDATE') {
      // Validation keeps both from changing; a client that left them out keeps what create set.
      const old = (a.oldObject as Pod | undefined)?.spec;
      if (spec.priority == null && old?.priority != null) spec.priority = old.priority;
      if (spec.preemptionPolicy == null && old?.preemptionPolicy != null) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    const resolved = spec.priorityClassName ? await resolve(a, spec.priorityClassName) : defaultPriority();
    if (resolved.name) spec.priorityClassName = resolved.name;
    if (spec.priority != null && spec.priority !== resolved.value) {
      throw forbidden(
        a,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${resolved.value} from the given PriorityClass name`,
      );
    }
    spec.priority = resolved.value;
    const policy = resolved.preemptionPolicy;
    if (policy !== undefined) {
      if (spec.preemptionPolicy != null && spec.preemptionPolicy !== policy) {
        throw forbidden(
          a,
          `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
        );
      }
      spec.preemptionPolicy = policy;
    }
  };

  /** kube's validatePriorityClass: at most one global default (a race may still make two). */
  const validatePriorityClass = (a: AdmissionAttributes): void => {
    const pc = priorityClassShape(a.object as KubeObject);
    if (!pc.globalDefault) return;
    const dpc = defaultPriorityClass(classes.list());
    if (!dpc) return;
    const dpcName = dpc.metadata.name ?? '';
    if (a.operation === 'CREATE' || dpcName !== pc.metadata.name) {
      throw forbidden(a, `PriorityClass ${dpcName} is already marked as default. Only one default can exist`);
    }
  };

  return {
    name: priorityPluginName,
    handles: handlesOperations('CREATE', 'UPDATE', 'DELETE'),
    async admit(_ctx, a) {
      if (a.subresource || !a.object) return;
      if (a.group === '' && a.resource === 'pods' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) await admitPod(a);
    },
    async validate(_ctx, a) {
      if (a.subresource || !a.object) return;
      if (a.group === SCHEDULING_GROUP && a.resource === 'priorityclasses' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) validatePriorityClass(a);
    },
  };
}

/** Needs deps.priorityClasses (the server's PriorityClass informer). */
export function registerPriority(plugins: Plugins): void {
  plugins.register(priorityPluginName, (_config, deps) => priorityPlugin(requireDep(deps, 'priorityClasses', priorityPluginName)));
}
