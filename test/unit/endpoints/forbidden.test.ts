/** The authorizer-refusal 403 (kube's responsewriters.ForbiddenStatusError over apimachinery's NewForbidden). */
import { forbiddenError } from '../../../src/endpoints/forbidden';

const user = { name: 'alice', uid: '', groups: [] };
const base = { user, apiVersion: '', namespace: '', subresource: '', name: '' };

describe('forbiddenError', () => {
  test('a non-resource request: "forbidden: …" (no group or resource to name)', () => {
    const e = forbiddenError({ ...base, verb: 'get', isResourceRequest: false, path: '/metrics', apiGroup: '', resource: '' });
    expect(e.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'forbidden: User "alice" cannot get path "/metrics"',
      reason: 'Forbidden',
      // NewForbidden always sets Details; every field empty, Go writes `{}`.
      details: {},
      code: 403,
    });
  });

  test('a resource request names the resource, the object and the reason', () => {
    const e = forbiddenError(
      { ...base, verb: 'delete', isResourceRequest: true, path: '/apis/apps/v1/namespaces/ns/deployments/web', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns', resource: 'deployments', name: 'web' },
      'no <rule>',
    );
    expect(e.status.message).toBe('deployments.apps "web" is forbidden: User "alice" cannot delete resource "deployments" in API group "apps" in the namespace "ns": no <rule>');
    expect(e.status.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
  });
});
