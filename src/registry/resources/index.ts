import type { ResourceDefinition } from '../resource';
import { bindings } from './core/bindings';
import { configmaps } from './core/configmaps';
import { events } from './core/events';
import { namespaces } from './core/namespaces';
import { pods } from './core/pods';
import { resourcequotas } from './core/resourcequotas';
import { secrets } from './core/secrets';
import { serviceaccounts } from './core/serviceaccounts';
import { eventsV1 } from './events/events';
import { selfsubjectreviews } from './authentication/selfsubjectreviews';
import { tokenreviews } from './authentication/tokenreviews';
import { localsubjectaccessreviews } from './authorization/localsubjectaccessreviews';
import { selfsubjectaccessreviews } from './authorization/selfsubjectaccessreviews';
import { selfsubjectrulesreviews } from './authorization/selfsubjectrulesreviews';
import { subjectaccessreviews } from './authorization/subjectaccessreviews';
import { clusterrolebindings } from './rbac/clusterrolebindings';
import { clusterroles } from './rbac/clusterroles';
import { rolebindings } from './rbac/rolebindings';
import { roles } from './rbac/roles';
import { mutatingwebhookconfigurations } from './admissionregistration/mutatingwebhookconfigurations';
import { validatingwebhookconfigurations } from './admissionregistration/validatingwebhookconfigurations';
import { priorityclasses } from './scheduling/priorityclasses';

/** The built-in resources, in discovery order. */
export const builtinResources: ResourceDefinition[] = [bindings, configmaps, events, namespaces, pods, resourcequotas, secrets, serviceaccounts, eventsV1, selfsubjectreviews, tokenreviews, localsubjectaccessreviews, selfsubjectaccessreviews, selfsubjectrulesreviews, subjectaccessreviews, clusterrolebindings, clusterroles, rolebindings, roles, mutatingwebhookconfigurations, validatingwebhookconfigurations, priorityclasses];
