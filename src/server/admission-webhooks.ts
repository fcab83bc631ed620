/**
 * What the admission webhook plugins read of the server (AdmissionDeps): the stored webhook
 * configurations, through the server's shared informers (started and synced before the server
 * listens, so no request lists them), and which served resources hold the same objects as a
 * request's (matchPolicy Equivalent), with the conversions between their forms.
 */
import type { KubeObject } from '../api';
import type { EquivalentResource, WebhookConfigurationLister } from '../admission';
import type { SharedInformers } from '../controllers/informer';
import { decodeForAdmission, type Registry, type ResourceDefinition } from '../registry';
import type { SchemaRegistry } from '../registry/schema';

const ADMISSIONREGISTRATION = 'admissionregistration.k8s.io';

/** The configurations' informers; none when admissionregistration.k8s.io/v1 is not served (--runtime-config). */
export function webhookConfigurationLister(registry: Pick<Registry, 'get'>, informers: SharedInformers): WebhookConfigurationLister {
  const lister = (resource: string) => (registry.get(ADMISSIONREGISTRATION, 'v1', resource) ? informers.forResource(ADMISSIONREGISTRATION, 'v1', resource).indexer : undefined);
  const mutating = lister('mutatingwebhookconfigurations');
  const validating = lister('validatingwebhookconfigurations');
  return { mutating: () => mutating?.list() ?? [], validating: () => validating?.list() ?? [] };
}

/** The objects a declaration serves are kept as this group/resource (kube keys equivalence on storage). */
const storageIdentity = (d: ResourceDefinition): string => (d.storedAs ? `${d.storedAs.group}/${d.storedAs.resource}` : `${d.group}/${d.resource}`);

const toStored = (d: ResourceDefinition, obj: KubeObject): KubeObject => (d.storedAs ? d.storedAs.toStored(obj) : obj);
const fromStored = (d: ResourceDefinition, obj: KubeObject): KubeObject => (d.storedAs ? d.storedAs.fromStored(obj) : obj);

/**
 * kube's EquivalentResourceMapper over the registry: the other served resources whose objects are
 * kept where the request's are (events.k8s.io/v1 events and core/v1 events), with the subresource
 * asked for; each converts through the stored form.
 */
export function equivalentResources(
  registry: Pick<Registry, 'get' | 'all'>,
  schemas: Pick<SchemaRegistry, 'decode'>,
  group: string,
  version: string,
  resource: string,
  subresource: string,
): EquivalentResource[] {
  const own = registry.get(group, version, resource);
  if (!own?.stored) return [];
  const id = storageIdentity(own.def);
  const out: EquivalentResource[] = [];
  for (const store of registry.all()) {
    const d = store.def;
    if (store === own || !store.stored || storageIdentity(d) !== id) continue;
    if (subresource && !d.subresources.some((sub) => sub.name === subresource)) continue;
    out.push({
      group: d.group,
      version: d.version,
      resource: d.resource,
      kind: d.kind,
      fromRequest: (obj) => fromStored(d, toStored(own.def, obj)),
      toRequest: (obj) => fromStored(own.def, toStored(d, obj)),
      decode: (raw) => decodeForAdmission(schemas, d.schemaName, raw),
    });
  }
  return out;
}
