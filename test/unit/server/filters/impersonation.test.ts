/**
 * Header parsing and the impersonated user's identity, case by case after kube's own filter tests
 * (apiserver pkg/endpoints/filters/impersonation_test.go).
 */
import { isApiError } from '../../../../src/api';
import type { Request, Response } from 'express';
import { alwaysAllow } from '../../../../src/auth';
import { splitServiceAccountUsername } from '../../../../src/auth/authn/service-account';
import { beginRequest } from '../../../../src/endpoints/request-state';
import { requestInfoFor } from '../../../../src/endpoints/request-info';
import {
  extraKey,
  headerValues,
  impersonatedUser,
  impersonationRequests,
  withImpersonation,
} from '../../../../src/server/filters/impersonation';

/** Node's rawHeaders for a list of [name, value] pairs. */
function raw(...pairs: Array<[string, string]>): string[] {
  return pairs.flat();
}

function userOf(...pairs: Array<[string, string]>) {
  const headers = headerValues(raw(...pairs));
  return impersonatedUser(impersonationRequests(headers), headers.has('impersonate-group'));
}

function badRequest(...pairs: Array<[string, string]>): string {
  try {
    impersonationRequests(headerValues(raw(...pairs)));
  } catch (e) {
    if (!isApiError(e)) throw e;
    expect(e.code).toBe(400);
    expect(e.status.reason).toBe('BadRequest');
    return e.status.message ?? '';
  }
  throw new Error('expected a 400');
}

describe('headerValues', () => {
  it('keeps every value of a repeated header apart, whatever the case of its name, and nothing else', () => {
    const h = headerValues(raw(['Impersonate-Group', 'a, b'], ['impersonate-group', 'c'], ['IMPERSONATE-GROUP', ''], ['Authorization', 'x']));
    expect([...h]).toEqual([['impersonate-group', ['a, b', 'c', '']]]);
  });
});

describe('impersonationRequests', () => {
  it('asks for nothing without impersonation headers (an empty Impersonate-User asks nothing either)', () => {
    expect(impersonationRequests(headerValues(raw(['Accept', 'x'])))).toEqual([]);
    expect(impersonationRequests(headerValues(raw(['Impersonate-User', ''])))).toEqual([]);
  });

  it("orders user, groups, extras, uid; the first Impersonate-User and Impersonate-Uid count", () => {
    const r = impersonationRequests(
      headerValues(
        raw(
          ['Impersonate-Uid', 'u-1'],
          ['Impersonate-Extra-Scopes', 'a'],
          ['Impersonate-Group', 'g1'],
          ['Impersonate-User', 'bob'],
          ['Impersonate-User', 'carol'],
          ['Impersonate-Group', 'g2'],
          ['impersonate-extra-scopes', 'b'],
          ['Impersonate-Uid', 'u-2'],
        ),
      ),
    );
    expect(r.map((x) => [x.kind, x.name, x.fieldPath])).toEqual([
      ['User', 'bob', ''],
      ['Group', 'g1', ''],
      ['Group', 'g2', ''],
      ['UserExtra', 'a', 'scopes'],
      ['UserExtra', 'b', 'scopes'],
      ['UID', 'u-1', ''],
    ]);
  });

  it('recognises service-account user names as kube splits them', () => {
    expect(impersonationRequests(headerValues(raw(['Impersonate-User', 'system:serviceaccount:foo:default'])))).toEqual([
      { kind: 'ServiceAccount', namespace: 'foo', name: 'default', apiVersion: '', fieldPath: '' },
    ]);
    expect(splitServiceAccountUsername('system:serviceaccount:ns:my.sa')).toEqual({ namespace: 'ns', name: 'my.sa' });
    // Not a service account: too many parts, bad namespace (a label), bad name (a subdomain), empty parts.
    for (const u of ['system:serviceaccount:a:b:c', 'system:serviceaccount:my.ns:sa', 'system:serviceaccount:ns:Bad', 'system:serviceaccount::sa', 'system:serviceaccount:ns:']) {
      expect({ u, sa: splitServiceAccountUsername(u) }).toEqual({ u, sa: undefined });
    }
    expect(impersonationRequests(headerValues(raw(['Impersonate-User', 'system:serviceaccount:a:b:c'])))[0]?.kind).toBe('User');
  });

  it("refuses groups, extras or a uid without a user: 400 with kube's text (Go's %v of the references)", () => {
    expect(badRequest(['Impersonate-Group', 'some-group'])).toBe('requested [{Group  some-group    }] without impersonating a user');
    expect(badRequest(['Impersonate-Extra-Scopes', 'scope-a'])).toBe(
      'requested [{UserExtra  scope-a  authentication.k8s.io/v1  scopes}] without impersonating a user',
    );
    expect(badRequest(['Impersonate-Uid', '1234'])).toBe('requested [{UID  1234  authentication.k8s.io/v1  }] without impersonating a user');
    expect(badRequest(['Impersonate-User', ''], ['Impersonate-Group', 'a'], ['Impersonate-Group', 'b'])).toBe(
      'requested [{Group  a    } {Group  b    }] without impersonating a user',
    );
  });
});

describe('extraKey', () => {
  it('lower-cases, then %-decodes (UTF-8); a key that does not decode stays as it is', () => {
    expect(extraKey('Scopes')).toBe('scopes');
    expect(extraKey('example.com%2fescaped%e1%9b%84scopes')).toBe('example.com/escapedᛄscopes');
    expect(extraKey('Example.com%2FA')).toBe('example.com/a');
    expect(extraKey('%41')).toBe('A'); // decoded after lower-casing, as kube does
    expect(extraKey('almost%zzpercent%xxencoded')).toBe('almost%zzpercent%xxencoded');
    expect(extraKey('trailing%2')).toBe('trailing%2');
    expect(extraKey('a+b')).toBe('a+b');
  });
});

describe('impersonatedUser (kube filter test cases)', () => {
  it('allowed-group / allowed-users-impersonation: system:authenticated is added', () => {
    expect(userOf(['Impersonate-User', 'system:admin'], ['Impersonate-Group', 'some-group'])).toEqual({
      name: 'system:admin',
      uid: '',
      groups: ['some-group', 'system:authenticated'],
    });
    expect(userOf(['Impersonate-User', 'tester'])).toEqual({ name: 'tester', uid: '', groups: ['system:authenticated'] });
  });

  it('allowed-userextras and percent-escaped keys', () => {
    expect(userOf(['Impersonate-User', 'system:admin'], ['Impersonate-Extra-scopes', 'scope-a'], ['Impersonate-Extra-scopes', 'scope-b'])).toEqual({
      name: 'system:admin',
      uid: '',
      groups: ['system:authenticated'],
      extra: { scopes: ['scope-a', 'scope-b'] },
    });
    expect(userOf(['Impersonate-User', 'system:admin'], ['Impersonate-Extra-example.com%2fescaped%e1%9b%84scopes', 'scope-a']).extra).toEqual({
      'example.com/escapedᛄscopes': ['scope-a'],
    });
  });

  it('allowed-sa-impersonating: the service-account groups, unless groups are given', () => {
    expect(userOf(['Impersonate-User', 'system:serviceaccount:foo:default'])).toEqual({
      name: 'system:serviceaccount:foo:default',
      uid: '',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:foo', 'system:authenticated'],
    });
    expect(userOf(['Impersonate-User', 'system:serviceaccount:foo:default'], ['Impersonate-Group', 'g']).groups).toEqual(['g', 'system:authenticated']);
  });

  it('system:anonymous gets system:unauthenticated (once), never system:authenticated', () => {
    expect(userOf(['Impersonate-User', 'system:anonymous']).groups).toEqual(['system:unauthenticated']);
    expect(userOf(['Impersonate-User', 'system:anonymous'], ['Impersonate-Group', 'system:unauthenticated']).groups).toEqual(['system:unauthenticated']);
  });

  it('a given system:unauthenticated or system:authenticated group keeps system:authenticated from being added (again)', () => {
    expect(userOf(['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:unauthenticated']).groups).toEqual(['system:unauthenticated']);
    expect(userOf(['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:authenticated']).groups).toEqual(['system:authenticated']);
    expect(userOf(['Impersonate-User', 'bob'], ['Impersonate-Group', 'some-group'], ['Impersonate-Group', 'system:authenticated']).groups).toEqual([
      'some-group',
      'system:authenticated',
    ]);
  });

  it('allowed-impersonation-with-all-headers: uid and extras carried', () => {
    expect(
      userOf(
        ['Impersonate-User', 'tester'],
        ['Impersonate-Uid', 'some-uid'],
        ['Impersonate-Group', 'system:authenticated'],
        ['Impersonate-Extra-scopes', 'scope-a'],
      ),
    ).toEqual({ name: 'tester', uid: 'some-uid', groups: ['system:authenticated'], extra: { scopes: ['scope-a'] } });
  });
});

describe('withImpersonation', () => {
  it('replaces the user, keeps the authenticated one for audit, and strips only the impersonation headers', async () => {
    const rawHeaders = raw(
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'devs'],
      ['Impersonate-Uid', 'u'],
      ['Impersonate-Extra-Scopes', 'a'],
      ['Impersonate-Something', 'kept'],
      ['Accept', 'application/json'],
    );
    const headers: Record<string, string> = {};
    for (let i = 0; i < rawHeaders.length; i += 2) headers[rawHeaders[i]!.toLowerCase()] = rawHeaders[i + 1]!;
    const req = { rawHeaders, headers } as unknown as Request;
    const res = {} as Response;
    const state = beginRequest(res, { auditId: 'a', info: requestInfoFor('GET', '/api/v1/namespaces', false) });
    const alice = { name: 'alice', uid: 'alice-uid', groups: ['system:authenticated'] };
    state.user = alice;
    const next = jest.fn();
    await withImpersonation(alwaysAllow)(req, res, next);
    expect(next).toHaveBeenCalledWith();
    expect(state.user).toEqual({ name: 'bob', uid: 'u', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } });
    expect(state.impersonator).toBe(alice);
    expect(req.headers).toEqual({ 'impersonate-something': 'kept', accept: 'application/json' });
  });

  it('leaves a request without impersonation headers alone', async () => {
    const req = { rawHeaders: raw(['Accept', 'x']), headers: { accept: 'x' } } as unknown as Request;
    const res = {} as Response;
    const state = beginRequest(res, { auditId: 'a', info: requestInfoFor('GET', '/api', false) });
    state.user = { name: 'alice', uid: '', groups: [] };
    const next = jest.fn();
    await withImpersonation(alwaysAllow)(req, res, next);
    expect(next).toHaveBeenCalledWith();
    expect(state.user.name).toBe('alice');
    expect(state.impersonator).toBeUndefined();
  });
});
