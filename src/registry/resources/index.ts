import type { ResourceDefinition } from '../resource';
import { configmaps } from './core/configmaps';
import { events } from './core/events';
import { namespaces } from './core/namespaces';
import { resourcequotas } from './core/resourcequotas';
import { secrets } from './core/secrets';

/** The built-in resources, in discovery order. */
export const builtinResources: ResourceDefinition[] = [configmaps, events, namespaces, resourcequotas, secrets];
