/** kube's RequestInfoFactory cases: verbs, groups, namespaces, names and subresources from paths. */
import { requestInfoFor } from '../../../src/endpoints/request-info';

type Case = [method: string, path: string, watch: boolean, expected: Partial<ReturnType<typeof requestInfoFor>>];

const cases: Case[] = [
  ['GET', '/api/v1/namespaces', false, { isResourceRequest: true, verb: 'list', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', resource: 'namespaces', namespace: '', name: '' }],
  ['GET', '/api/v1/namespaces/other', false, { verb: 'get', resource: 'namespaces', namespace: 'other', name: 'other' }],
  ['GET', '/api/v1/namespaces/other/status', false, { verb: 'get', resource: 'namespaces', name: 'other', subresource: 'status' }],
  ['PUT', '/api/v1/namespaces/other/finalize', false, { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'finalize' }],
  ['GET', '/api/v1/namespaces/other/secrets', false, { verb: 'list', resource: 'secrets', namespace: 'other', name: '' }],
  ['GET', '/api/v1/namespaces/other/secrets', true, { verb: 'watch', resource: 'secrets', namespace: 'other' }],
  ['GET', '/api/v1/namespaces/other/secrets/foo', false, { verb: 'get', resource: 'secrets', namespace: 'other', name: 'foo' }],
  ['GET', '/api/v1/namespaces/other/resourcequotas/q/status', false, { verb: 'get', resource: 'resourcequotas', name: 'q', subresource: 'status' }],
  ['POST', '/api/v1/namespaces/other/secrets', false, { verb: 'create', resource: 'secrets', namespace: 'other' }],
  ['PUT', '/api/v1/namespaces/other/secrets/foo', false, { verb: 'update', name: 'foo' }],
  ['PATCH', '/api/v1/namespaces/other/secrets/foo', false, { verb: 'patch', name: 'foo' }],
  ['DELETE', '/api/v1/namespaces/other/secrets/foo', false, { verb: 'delete', name: 'foo' }],
  ['DELETE', '/api/v1/namespaces/other/secrets', false, { verb: 'deletecollection', name: '' }],
  ['GET', '/api/v1/secrets', false, { verb: 'list', resource: 'secrets', namespace: '' }],
  ['GET', '/apis/apps/v1/namespaces/other/deployments/d/scale', false, { apiPrefix: 'apis', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', name: 'd', subresource: 'scale' }],
  ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', false, { apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', verb: 'list' }],
  // kube's deprecated /watch/ prefix
  ['GET', '/api/v1/watch/namespaces/other/secrets', false, { verb: 'watch', resource: 'secrets', namespace: 'other', name: '' }],
  ['GET', '/api/v1/watch/namespaces/other/secrets/foo', false, { verb: 'watch', resource: 'secrets', name: 'foo' }],
  ['GET', '/api/v1/watch/secrets', false, { verb: 'watch', resource: 'secrets', namespace: '' }],
  // a namespace whose name collides with a namespace subresource word stays a namespace
  ['GET', '/api/v1/namespaces/status', false, { verb: 'get', resource: 'namespaces', name: 'status' }],
  // percent-encoded segments are decoded
  ['GET', '/api/v1/namespaces/other/configmaps/a%2Eb', false, { name: 'a.b' }],
];

test.each(cases)('%s %s (watch=%s)', (method, path, watch, expected) => {
  expect(requestInfoFor(method, path, watch)).toMatchObject(expected);
});

test.each([['/'], ['/api'], ['/apis'], ['/apis/apps'], ['/api/v1'], ['/apis/apps/v1'], ['/healthz'], ['/version'], ['/openapi/v3']])(
  '%s is not a resource request',
  (path) => {
    expect(requestInfoFor('GET', path, false).isResourceRequest).toBe(false);
  },
);

test('extra path segments are kept for the router to reject', () => {
  expect(requestInfoFor('GET', '/api/v1/namespaces/n/secrets/s/status/extra', false).parts).toEqual(['secrets', 's', 'status', 'extra']);
});
