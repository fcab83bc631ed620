import type { ResourceDefinition } from '../resource';
import { configmaps } from './core/configmaps';
import { events } from './core/events';
import { namespaces } from './core/namespaces';
import { resourcequotas } from './core/resourcequotas';
import { secrets } from './core/secrets';
import { serviceaccounts } from './core/serviceaccounts';
import { selfsubjectreviews } from './authentication/selfsubjectreviews';
import { tokenreviews } from './authentication/tokenreviews';

/** The built-in resources, in discovery order. */
export const builtinResources: ResourceDefinition[] = [configmaps, events, namespaces, resourcequotas, secrets, serviceaccounts, selfsubjectreviews, tokenreviews];
