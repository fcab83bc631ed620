/**
 * What the server hands the webhook plugins for matchPolicy Equivalent (server/admission-webhooks.ts):
 * the resources holding a request's objects elsewhere, worked out once per resource and again after
 * the registry changes.
 */
import type { KubeObject } from '../../../src/api';
import { equivalentResourceMapper } from '../../../src/server/admission-webhooks';
import type { RegistryChange } from '../../../src/registry';

type FakeStore = { def: Record<string, unknown>; stored: boolean };
const def = (group: string, version: string, over: Record<string, unknown> = {}) => ({ group, version, resource: 'events', kind: 'Event', subresources: [], schemaName: `${group}.Event`, ...over });
const core: FakeStore = { def: def('', 'v1'), stored: true };
const newer: FakeStore = {
  def: def('events.k8s.io', 'v1', { storedAs: { group: '', version: 'v1', resource: 'events', toStored: (o: KubeObject) => ({ ...o, stored: true }), fromStored: (o: KubeObject) => o } }),
  stored: true,
};

test('events.k8s.io events beside core events, found once until the registry changes', () => {
  let stores = [core, newer];
  const listeners: Array<(c: RegistryChange) => void> = [];
  let scans = 0;
  const registry = {
    get: (g: string, v: string, r: string) => stores.find((s) => s.def.group === g && s.def.version === v && s.def.resource === r),
    all: () => (scans++, stores),
    onChange: (l: (c: RegistryChange) => void) => void listeners.push(l),
  };
  const mapper = equivalentResourceMapper(registry as never, { decode: () => undefined } as never);
  const first = mapper('', 'v1', 'events', '');
  expect(first.map((e) => `${e.group}/${e.version}`)).toEqual(['events.k8s.io/v1']);
  expect(mapper('', 'v1', 'events', '')).toBe(first);
  expect(scans).toBe(1);
  // A subresource neither declares: no equivalent.
  expect(mapper('', 'v1', 'events', 'status')).toEqual([]);

  stores = [core];
  for (const l of listeners) l({ removed: newer.def } as never);
  expect(mapper('', 'v1', 'events', '')).toEqual([]);
});
