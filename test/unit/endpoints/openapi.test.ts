import { createHash } from 'node:crypto';
import { buildOpenApiV2, buildOpenApiV3, openApiETag } from '../../../src/endpoints/openapi';
import { builtinResources } from '../../../src/registry';
import type { ResourceDefinition } from '../../../src/registry';
import { SchemaRegistry } from '../../../src/registry/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let reg: SchemaRegistry;
let v3: ReturnType<typeof buildOpenApiV3>;
let core: Json;
beforeAll(async () => {
  reg = await SchemaRegistry.load();
  v3 = buildOpenApiV3(builtinResources, reg, { serverVersion: 'v1.32.0' });
  core = JSON.parse((v3.docs.get('api/v1') as { body: Buffer }).body.toString('utf8')) as Json;
});

/** [path, method, operationId, x-kubernetes-action] as kube-apiserver publishes them (api/openapi-spec/v3/api__v1_openapi.json). */
const kubeOperations: [string, string, string, string][] = [
  ['/api/v1/configmaps', 'get', 'listCoreV1ConfigMapForAllNamespaces', 'list'],
  ['/api/v1/events', 'get', 'listCoreV1EventForAllNamespaces', 'list'],
  ['/api/v1/namespaces/{namespace}/events', 'delete', 'deleteCoreV1CollectionNamespacedEvent', 'deletecollection'],
  ['/api/v1/namespaces/{namespace}/events', 'get', 'listCoreV1NamespacedEvent', 'list'],
  ['/api/v1/namespaces/{namespace}/events', 'post', 'createCoreV1NamespacedEvent', 'post'],
  ['/api/v1/namespaces/{namespace}/events/{name}', 'delete', 'deleteCoreV1NamespacedEvent', 'delete'],
  ['/api/v1/namespaces/{namespace}/events/{name}', 'get', 'readCoreV1NamespacedEvent', 'get'],
  ['/api/v1/namespaces/{namespace}/events/{name}', 'patch', 'patchCoreV1NamespacedEvent', 'patch'],
  ['/api/v1/namespaces/{namespace}/events/{name}', 'put', 'replaceCoreV1NamespacedEvent', 'put'],
  ['/api/v1/namespaces', 'get', 'listCoreV1Namespace', 'list'],
  ['/api/v1/namespaces', 'post', 'createCoreV1Namespace', 'post'],
  ['/api/v1/namespaces/{namespace}/configmaps', 'delete', 'deleteCoreV1CollectionNamespacedConfigMap', 'deletecollection'],
  ['/api/v1/namespaces/{namespace}/configmaps', 'get', 'listCoreV1NamespacedConfigMap', 'list'],
  ['/api/v1/namespaces/{namespace}/configmaps', 'post', 'createCoreV1NamespacedConfigMap', 'post'],
  ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'delete', 'deleteCoreV1NamespacedConfigMap', 'delete'],
  ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'get', 'readCoreV1NamespacedConfigMap', 'get'],
  ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch', 'patchCoreV1NamespacedConfigMap', 'patch'],
  ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'put', 'replaceCoreV1NamespacedConfigMap', 'put'],
  ['/api/v1/namespaces/{namespace}/resourcequotas', 'delete', 'deleteCoreV1CollectionNamespacedResourceQuota', 'deletecollection'],
  ['/api/v1/namespaces/{namespace}/resourcequotas', 'get', 'listCoreV1NamespacedResourceQuota', 'list'],
  ['/api/v1/namespaces/{namespace}/resourcequotas', 'post', 'createCoreV1NamespacedResourceQuota', 'post'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}', 'delete', 'deleteCoreV1NamespacedResourceQuota', 'delete'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}', 'get', 'readCoreV1NamespacedResourceQuota', 'get'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}', 'patch', 'patchCoreV1NamespacedResourceQuota', 'patch'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}', 'put', 'replaceCoreV1NamespacedResourceQuota', 'put'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}/status', 'get', 'readCoreV1NamespacedResourceQuotaStatus', 'get'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}/status', 'patch', 'patchCoreV1NamespacedResourceQuotaStatus', 'patch'],
  ['/api/v1/namespaces/{namespace}/resourcequotas/{name}/status', 'put', 'replaceCoreV1NamespacedResourceQuotaStatus', 'put'],
  ['/api/v1/namespaces/{namespace}/secrets', 'delete', 'deleteCoreV1CollectionNamespacedSecret', 'deletecollection'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts', 'delete', 'deleteCoreV1CollectionNamespacedServiceAccount', 'deletecollection'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts', 'get', 'listCoreV1NamespacedServiceAccount', 'list'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts', 'post', 'createCoreV1NamespacedServiceAccount', 'post'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts/{name}', 'delete', 'deleteCoreV1NamespacedServiceAccount', 'delete'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts/{name}', 'get', 'readCoreV1NamespacedServiceAccount', 'get'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts/{name}', 'patch', 'patchCoreV1NamespacedServiceAccount', 'patch'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts/{name}', 'put', 'replaceCoreV1NamespacedServiceAccount', 'put'],
  ['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token', 'post', 'createCoreV1NamespacedServiceAccountToken', 'post'],
  ['/api/v1/serviceaccounts', 'get', 'listCoreV1ServiceAccountForAllNamespaces', 'list'],
  ['/api/v1/watch/namespaces/{namespace}/serviceaccounts', 'get', 'watchCoreV1NamespacedServiceAccountList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/serviceaccounts/{name}', 'get', 'watchCoreV1NamespacedServiceAccount', 'watch'],
  ['/api/v1/watch/serviceaccounts', 'get', 'watchCoreV1ServiceAccountListForAllNamespaces', 'watchlist'],
  ['/api/v1/namespaces/{namespace}/secrets', 'get', 'listCoreV1NamespacedSecret', 'list'],
  ['/api/v1/namespaces/{namespace}/secrets', 'post', 'createCoreV1NamespacedSecret', 'post'],
  ['/api/v1/namespaces/{namespace}/secrets/{name}', 'delete', 'deleteCoreV1NamespacedSecret', 'delete'],
  ['/api/v1/namespaces/{namespace}/secrets/{name}', 'get', 'readCoreV1NamespacedSecret', 'get'],
  ['/api/v1/namespaces/{namespace}/secrets/{name}', 'patch', 'patchCoreV1NamespacedSecret', 'patch'],
  ['/api/v1/namespaces/{namespace}/secrets/{name}', 'put', 'replaceCoreV1NamespacedSecret', 'put'],
  ['/api/v1/namespaces/{name}', 'delete', 'deleteCoreV1Namespace', 'delete'],
  ['/api/v1/namespaces/{name}', 'get', 'readCoreV1Namespace', 'get'],
  ['/api/v1/namespaces/{name}', 'patch', 'patchCoreV1Namespace', 'patch'],
  ['/api/v1/namespaces/{name}', 'put', 'replaceCoreV1Namespace', 'put'],
  ['/api/v1/namespaces/{name}/finalize', 'put', 'replaceCoreV1NamespaceFinalize', 'put'],
  ['/api/v1/namespaces/{name}/status', 'get', 'readCoreV1NamespaceStatus', 'get'],
  ['/api/v1/namespaces/{name}/status', 'patch', 'patchCoreV1NamespaceStatus', 'patch'],
  ['/api/v1/namespaces/{name}/status', 'put', 'replaceCoreV1NamespaceStatus', 'put'],
  ['/api/v1/resourcequotas', 'get', 'listCoreV1ResourceQuotaForAllNamespaces', 'list'],
  ['/api/v1/secrets', 'get', 'listCoreV1SecretForAllNamespaces', 'list'],
  ['/api/v1/watch/configmaps', 'get', 'watchCoreV1ConfigMapListForAllNamespaces', 'watchlist'],
  ['/api/v1/watch/events', 'get', 'watchCoreV1EventListForAllNamespaces', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/events', 'get', 'watchCoreV1NamespacedEventList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/events/{name}', 'get', 'watchCoreV1NamespacedEvent', 'watch'],
  ['/api/v1/watch/namespaces', 'get', 'watchCoreV1NamespaceList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/configmaps', 'get', 'watchCoreV1NamespacedConfigMapList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/configmaps/{name}', 'get', 'watchCoreV1NamespacedConfigMap', 'watch'],
  ['/api/v1/watch/namespaces/{namespace}/resourcequotas', 'get', 'watchCoreV1NamespacedResourceQuotaList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/resourcequotas/{name}', 'get', 'watchCoreV1NamespacedResourceQuota', 'watch'],
  ['/api/v1/watch/namespaces/{namespace}/secrets', 'get', 'watchCoreV1NamespacedSecretList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/secrets/{name}', 'get', 'watchCoreV1NamespacedSecret', 'watch'],
  ['/api/v1/watch/namespaces/{name}', 'get', 'watchCoreV1Namespace', 'watch'],
  ['/api/v1/watch/resourcequotas', 'get', 'watchCoreV1ResourceQuotaListForAllNamespaces', 'watchlist'],
  ['/api/v1/namespaces/{namespace}/pods', 'delete', 'deleteCoreV1CollectionNamespacedPod', 'deletecollection'],
  ['/api/v1/namespaces/{namespace}/pods', 'get', 'listCoreV1NamespacedPod', 'list'],
  ['/api/v1/namespaces/{namespace}/pods', 'post', 'createCoreV1NamespacedPod', 'post'],
  ['/api/v1/namespaces/{namespace}/pods/{name}', 'delete', 'deleteCoreV1NamespacedPod', 'delete'],
  ['/api/v1/namespaces/{namespace}/pods/{name}', 'get', 'readCoreV1NamespacedPod', 'get'],
  ['/api/v1/namespaces/{namespace}/pods/{name}', 'patch', 'patchCoreV1NamespacedPod', 'patch'],
  ['/api/v1/namespaces/{namespace}/pods/{name}', 'put', 'replaceCoreV1NamespacedPod', 'put'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/attach', 'get', 'connectCoreV1GetNamespacedPodAttach', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/attach', 'post', 'connectCoreV1PostNamespacedPodAttach', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/exec', 'get', 'connectCoreV1GetNamespacedPodExec', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/exec', 'post', 'connectCoreV1PostNamespacedPodExec', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/portforward', 'get', 'connectCoreV1GetNamespacedPodPortforward', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/portforward', 'post', 'connectCoreV1PostNamespacedPodPortforward', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/binding', 'post', 'createCoreV1NamespacedPodBinding', 'post'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers', 'get', 'readCoreV1NamespacedPodEphemeralcontainers', 'get'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers', 'patch', 'patchCoreV1NamespacedPodEphemeralcontainers', 'patch'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers', 'put', 'replaceCoreV1NamespacedPodEphemeralcontainers', 'put'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/eviction', 'post', 'createCoreV1NamespacedPodEviction', 'post'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/log', 'get', 'readCoreV1NamespacedPodLog', 'get'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'delete', 'connectCoreV1DeleteNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'get', 'connectCoreV1GetNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'head', 'connectCoreV1HeadNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'options', 'connectCoreV1OptionsNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'patch', 'connectCoreV1PatchNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'post', 'connectCoreV1PostNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy', 'put', 'connectCoreV1PutNamespacedPodProxy', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'delete', 'connectCoreV1DeleteNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'get', 'connectCoreV1GetNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'head', 'connectCoreV1HeadNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'options', 'connectCoreV1OptionsNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'patch', 'connectCoreV1PatchNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'post', 'connectCoreV1PostNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', 'put', 'connectCoreV1PutNamespacedPodProxyWithPath', 'connect'],
  ['/api/v1/namespaces/{namespace}/bindings', 'post', 'createCoreV1NamespacedBinding', 'post'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/status', 'get', 'readCoreV1NamespacedPodStatus', 'get'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/status', 'patch', 'patchCoreV1NamespacedPodStatus', 'patch'],
  ['/api/v1/namespaces/{namespace}/pods/{name}/status', 'put', 'replaceCoreV1NamespacedPodStatus', 'put'],
  ['/api/v1/pods', 'get', 'listCoreV1PodForAllNamespaces', 'list'],
  ['/api/v1/watch/namespaces/{namespace}/pods', 'get', 'watchCoreV1NamespacedPodList', 'watchlist'],
  ['/api/v1/watch/namespaces/{namespace}/pods/{name}', 'get', 'watchCoreV1NamespacedPod', 'watch'],
  ['/api/v1/watch/pods', 'get', 'watchCoreV1PodListForAllNamespaces', 'watchlist'],
  ['/api/v1/watch/secrets', 'get', 'watchCoreV1SecretListForAllNamespaces', 'watchlist'],];

describe('/openapi/v3 api/v1 document', () => {
  test('is an OpenAPI 3.0 document with info', () => {
    expect(core.openapi).toBe('3.0.0');
    expect(core.info).toEqual({ title: 'Kubernetes', version: 'v1.32.0' });
    expect(core.components.securitySchemes.BearerToken).toMatchObject({ type: 'apiKey', name: 'authorization', in: 'header' });
  });

  test.each(kubeOperations)('%s %s is %s (%s)', (path, method, operationId, action) => {
    const op = core.paths[path]?.[method] as Json | undefined;
    expect(op).toBeDefined();
    expect(op?.operationId).toBe(operationId);
    expect(op?.['x-kubernetes-action']).toBe(action);
    expect(op?.tags).toEqual(['core_v1']);
  });

  test('serves no operation kube does not (namespaces have no deletecollection)', () => {
    const ours = Object.entries(core.paths as Json).flatMap(([p, item]) =>
      Object.keys(item as Json).filter((m) => m !== 'parameters').map((m) => `${p} ${m}`),
    );
    const expected = kubeOperations.map(([p, m]) => `${p} ${m}`).concat('/api/v1/ get');
    expect(ours.sort()).toEqual(expected.sort());
  });

  test('pods/exec, log and proxy: kube\'s connect and read operations, their kinds, parameters and string answers', () => {
    const exec = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'];
    expect(names(exec.parameters)).toEqual(['command@query', 'container@query', 'name@path', 'namespace@path', 'stderr@query', 'stdin@query', 'stdout@query', 'tty@query']);
    expect(exec.post['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'PodExecOptions', version: 'v1' });
    expect(exec.post.responses['200'].content).toEqual({ '*/*': { schema: { type: 'string' } } });
    const log = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/log'];
    expect(names(log.parameters)).toEqual([
      'container@query', 'follow@query', 'insecureSkipTLSVerifyBackend@query', 'limitBytes@query', 'name@path', 'namespace@path', 'pretty@query',
      'previous@query', 'sinceSeconds@query', 'stream@query', 'tailLines@query', 'timestamps@query',
    ]);
    expect(log.get['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'Pod', version: 'v1' });
    expect(Object.keys(log.get.responses['200'].content)).toEqual(['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml', 'text/plain']);
    expect(names(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}'].parameters)).toEqual(['name@path', 'namespace@path', 'path@query', 'path@path']);
    expect(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'].post['x-kubernetes-group-version-kind']).toEqual({ group: 'policy', kind: 'Eviction', version: 'v1' });
    expect(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'].post.requestBody.content['*/*'].schema.$ref).toBe('#/components/schemas/io.k8s.api.policy.v1.Eviction');
    expect(core.components.schemas['io.k8s.api.policy.v1.Eviction']).toBeDefined();
    expect(core.components.schemas['io.k8s.api.core.v1.BindingList']).toBeUndefined();
  });

  test('the APIResourceList path', () => {
    expect(core.paths['/api/v1/'].get.operationId).toBe('getCoreV1APIResources');
  });

  test('operations carry x-kubernetes-group-version-kind', () => {
    expect(core.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].patch['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'Secret', version: 'v1' });
    expect(core.paths['/api/v1/namespaces/{name}/finalize'].put['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'Namespace', version: 'v1' });
  });

  const names = (ps: Json[] | undefined) => (ps ?? []).map((p) => `${p.name}@${p.in}`);
  test('list parameters', () => {
    const list = core.paths['/api/v1/namespaces/{namespace}/secrets'].get;
    expect(names(list.parameters)).toEqual([
      'allowWatchBookmarks@query', 'continue@query', 'fieldSelector@query', 'labelSelector@query', 'limit@query',
      'resourceVersion@query', 'resourceVersionMatch@query', 'sendInitialEvents@query', 'timeoutSeconds@query', 'watch@query',
    ]);
    expect(names(core.paths['/api/v1/namespaces/{namespace}/secrets'].parameters)).toEqual(['namespace@path', 'pretty@query']);
    expect(Object.keys(list.responses['200'].content)).toEqual(expect.arrayContaining(['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch']));
    expect(list.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/io.k8s.api.core.v1.SecretList');
  });
  test('write, patch and delete parameters', () => {
    const item = core.paths['/api/v1/namespaces/{namespace}/secrets/{name}'];
    expect(names(item.parameters)).toEqual(['name@path', 'namespace@path', 'pretty@query']);
    expect(names(item.put.parameters)).toEqual(['dryRun@query', 'fieldManager@query', 'fieldValidation@query']);
    expect(names(item.patch.parameters)).toEqual(['dryRun@query', 'fieldManager@query', 'fieldValidation@query', 'force@query']);
    expect(names(item.delete.parameters)).toEqual(expect.arrayContaining(['dryRun@query', 'gracePeriodSeconds@query', 'orphanDependents@query', 'propagationPolicy@query']));
    expect(Object.keys(item.patch.requestBody.content).sort()).toEqual([
      'application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
    ]);
    const dc = core.paths['/api/v1/namespaces/{namespace}/secrets'].delete;
    expect(names(dc.parameters)).toEqual(expect.arrayContaining(['labelSelector@query', 'fieldSelector@query', 'gracePeriodSeconds@query', 'propagationPolicy@query']));
    expect(dc.requestBody.content['*/*'].schema.$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');
  });
  test('every PATCH operation offers fieldValidation inline (kubectl QueryParamVerifierV3)', () => {
    for (const item of Object.values(core.paths as Json)) {
      const patch = (item as Json).patch as Json | undefined;
      // A connect PATCH (pods/proxy) is no write of an object: kube lists no write parameters there.
      if (patch && patch['x-kubernetes-action'] === 'patch') expect(names(patch.parameters)).toContain('fieldValidation@query');
    }
  });
  test('finalize lists its write parameters on the path, as kube does', () => {
    expect(names(core.paths['/api/v1/namespaces/{name}/finalize'].parameters)).toEqual(['dryRun@query', 'fieldManager@query', 'fieldValidation@query', 'name@path', 'pretty@query']);
  });

  test('every $ref resolves inside the document and only reachable schemas are included', () => {
    const schemas = core.components.schemas as Json;
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref') refs.add(String(x));
          else walk(x);
        }
      }
    };
    walk(core);
    for (const r of refs) expect(schemas[r.replace('#/components/schemas/', '')]).toBeDefined();
    expect(schemas['io.k8s.api.core.v1.Secret']).toBeDefined();
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList']).toBeUndefined();
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });

  test('schemas keep kube structure and merge markers', () => {
    const s = core.components.schemas as Json;
    expect(s['io.k8s.api.core.v1.Secret']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Secret', version: 'v1' }]);
    expect(s['io.k8s.api.core.v1.Secret'].properties.data.additionalProperties).toEqual({ type: 'string', format: 'byte' });
    expect(s['io.k8s.api.core.v1.ConfigMap'].properties.binaryData.additionalProperties).toEqual({ type: 'string', format: 'byte' });
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.Time']).toMatchObject({ type: 'string', format: 'date-time' });
    const om = s['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
    expect(om.finalizers).toMatchObject({ 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' });
    expect(om.ownerReferences).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'], 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge' });
    expect(om.managedFields['x-kubernetes-list-type']).toBe('atomic');
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference']['x-kubernetes-map-type']).toBe('atomic');
    expect(s['io.k8s.api.core.v1.NamespaceStatus'].properties.conditions).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-patch-merge-key': 'type' });
    expect(s['io.k8s.api.core.v1.ScopeSelector']['x-kubernetes-map-type']).toBe('atomic');
    expect(s['io.k8s.api.core.v1.ResourceQuotaSpec'].properties.scopeSelector.allOf[0].$ref).toBe('#/components/schemas/io.k8s.api.core.v1.ScopeSelector');
    expect(s['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf).toEqual([{ type: 'string' }, { type: 'number' }]);
  });
});

describe('/openapi/v3 index and ETags', () => {
  test('index lists every document with its hash (kube-openapi handler3)', () => {
    expect(Object.keys(v3.index.paths)).toEqual([
      'api',
      'api/v1',
      'apis',
      'apis/admissionregistration.k8s.io',
      'apis/admissionregistration.k8s.io/v1',
      'apis/authentication.k8s.io',
      'apis/authentication.k8s.io/v1',
      'apis/authorization.k8s.io',
      'apis/authorization.k8s.io/v1',
      'apis/events.k8s.io',
      'apis/events.k8s.io/v1',
      'apis/rbac.authorization.k8s.io',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/scheduling.k8s.io',
      'apis/scheduling.k8s.io/v1',
    ]);
    const doc = v3.docs.get('api/v1') as { body: Buffer; etag: string };
    expect(v3.index.paths['api/v1']).toEqual({ serverRelativeURL: `/openapi/v3/api/v1?hash=${doc.etag}` });
    expect(doc.etag).toBe(createHash('sha512').update(doc.body).digest('hex').toUpperCase());
    expect(doc.etag).toMatch(/^[0-9A-F]{128}$/);
    expect(JSON.parse(v3.indexDocument.body.toString('utf8'))).toEqual(v3.index);
  });
  test('builds are byte-stable', () => {
    const again = buildOpenApiV3(builtinResources, reg, { serverVersion: 'v1.32.0' });
    expect(again.docs.get('api/v1')?.etag).toBe(v3.docs.get('api/v1')?.etag);
    expect(again.indexDocument.etag).toBe(v3.indexDocument.etag);
    const other = buildOpenApiV3(builtinResources, reg, { serverVersion: 'v1.32.1' });
    expect(other.docs.get('api/v1')?.etag).not.toBe(v3.docs.get('api/v1')?.etag);
  });
  test('openApiETag', () => {
    expect(openApiETag(Buffer.from(''))).toBe(createHash('sha512').digest('hex').toUpperCase());
  });
  test('root documents', () => {
    const api = JSON.parse((v3.docs.get('api') as { body: Buffer }).body.toString()) as Json;
    expect(api.paths['/api/'].get.operationId).toBe('getCoreAPIVersions');
    expect(api.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions']).toBeDefined();
  });
  test('a non-core group gets apis/<g>/<v> and apis/<g> documents with kube naming', () => {
    const secrets = builtinResources.find((d) => d.resource === 'secrets') as ResourceDefinition;
    const fake: ResourceDefinition = { ...secrets, group: 'rbac.authorization.k8s.io', version: 'v1beta1' };
    const r = buildOpenApiV3([...builtinResources, fake], reg);
    expect(Object.keys(r.index.paths)).toEqual([
      'api',
      'api/v1',
      'apis',
      'apis/admissionregistration.k8s.io',
      'apis/admissionregistration.k8s.io/v1',
      'apis/authentication.k8s.io',
      'apis/authentication.k8s.io/v1',
      'apis/authorization.k8s.io',
      'apis/authorization.k8s.io/v1',
      'apis/events.k8s.io',
      'apis/events.k8s.io/v1',
      'apis/rbac.authorization.k8s.io',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/rbac.authorization.k8s.io/v1beta1',
      'apis/scheduling.k8s.io',
      'apis/scheduling.k8s.io/v1',
    ]);
    const doc = JSON.parse((r.docs.get('apis/rbac.authorization.k8s.io/v1beta1') as { body: Buffer }).body.toString()) as Json;
    const op = doc.paths['/apis/rbac.authorization.k8s.io/v1beta1/namespaces/{namespace}/secrets'].get;
    expect(op.operationId).toBe('listRbacAuthorizationV1beta1NamespacedSecret');
    expect(op.tags).toEqual(['rbacAuthorization_v1beta1']);
    expect(doc.paths['/apis/rbac.authorization.k8s.io/v1beta1/'].get.operationId).toBe('getRbacAuthorizationV1beta1APIResources');
    const gvks = doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']['x-kubernetes-group-version-kind'];
    expect(gvks).toEqual(expect.arrayContaining([{ group: 'rbac.authorization.k8s.io', kind: 'DeleteOptions', version: 'v1beta1' }]));
  });
  test('a definition whose schema is missing is a programmer error', () => {
    const bad = { ...builtinResources[0], schemaName: 'io.k8s.api.core.v1.Nope' } as ResourceDefinition;
    expect(() => buildOpenApiV3([bad], reg)).toThrow('no schema');
  });
});

describe('/openapi/v2', () => {
  let v2: Json;
  let etag: string;
  beforeAll(() => {
    const d = buildOpenApiV2(builtinResources, reg);
    v2 = JSON.parse(d.body.toString('utf8')) as Json;
    etag = d.etag;
  });
  test('swagger 2.0 with definitions and converted refs', () => {
    expect(v2.swagger).toBe('2.0');
    expect(etag).toMatch(/^[0-9A-F]{128}$/);
    expect(JSON.stringify(v2)).not.toContain('#/components/schemas/');
    expect(v2.definitions['io.k8s.api.core.v1.Secret'].properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(v2.definitions['io.k8s.api.core.v1.Secret'].properties.metadata.allOf).toBeUndefined();
    expect(v2.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'].type).toBe('string');
    expect(v2.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf).toBeUndefined();
  });
  test('operations: body parameter first, consumes/produces, kube operationIds', () => {
    const patch = v2.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].patch;
    expect(patch.operationId).toBe('patchCoreV1NamespacedSecret');
    expect(patch.parameters[0]).toEqual({ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    expect(patch.consumes).toContain('application/strategic-merge-patch+json');
    expect(patch.parameters.map((p: Json) => p.name)).toContain('fieldValidation');
    expect(v2.paths['/api/v1/namespaces'].get.produces).toContain('application/json;stream=watch');
  });
});
