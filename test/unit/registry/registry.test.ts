/** A resource declaration carries its store variant and its TTL; Registry.add installs both. */
import { AdmissionChain } from '../../../src/admission';
import { Registry } from '../../../src/registry/registry';
import { NamespaceStore } from '../../../src/registry/namespace-store';
import { GenericStore } from '../../../src/registry/generic-store';
import { builtinResources } from '../../../src/registry/resources';
import type { Storage } from '../../../src/storage';

const storage = {} as Storage;
const registry = (settings?: { eventTtlSeconds: number }) => new Registry({ storage, prefix: '/r', admission: new AdmissionChain([]), settings });
const def = (resource: string) => builtinResources.find((d) => d.resource === resource)!;

test('namespaces declare the namespace store; the rest get the generic one', () => {
  const r = registry();
  expect(r.add(def('namespaces'))).toBeInstanceOf(NamespaceStore);
  const secrets = r.add(def('secrets'));
  expect(secrets).toBeInstanceOf(GenericStore);
  expect(secrets).not.toBeInstanceOf(NamespaceStore);
});

test("events read their TTL from the server's settings when installed (--event-ttl); others have none", () => {
  expect(registry({ eventTtlSeconds: 120 }).add(def('events')).ttlSeconds).toBe(120);
  expect(registry().add(def('events')).ttlSeconds).toBe(3600);
  expect(registry().add(def('configmaps')).ttlSeconds).toBeUndefined();
  expect(registry().add({ ...def('configmaps'), ttlSeconds: 5 }).ttlSeconds).toBe(5);
});
