/**
 * AdmissionReview: the request as kube encodes it (Go's field order and omitempty, nulls for an
 * absent object), the answer decoded as client-go decodes it (Go's error texts) and checked as
 * kube's VerifyAdmissionResponse checks it, in v1 and v1beta1.
 */
import {
  admissionRequest,
  decodeGoStdBase64,
  decodeReview,
  encodeReview,
  reviewVersionFor,
  verifyReview,
  type RequestBase,
  type RequestView,
  type ReviewVersion,
} from '../../../src/admission/plugins/webhook/review';
import { caBundleError } from '../../../src/admission/plugins/webhook/clients';

const base: RequestBase = {
  requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
  requestResource: { group: '', version: 'v1', resource: 'configmaps' },
  requestSubResource: '',
  name: 'cm',
  namespace: 'ns',
  operation: 'CREATE',
  user: { name: 'alice', uid: 'u-1', groups: ['staff', 'system:authenticated'], extra: { zeta: ['z'], alpha: ['a', 'b'] } },
  dryRun: false,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
};
const view: RequestView = {
  kind: base.requestKind,
  resource: base.requestResource,
  subResource: '',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } },
  oldObject: undefined,
};

const decodeError = (body: string, sent: ReviewVersion = 'v1'): string => {
  try {
    decodeReview(body, sent);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('decoded');
};
const verifyError = (body: unknown, o: { uid?: string; mutating?: boolean; sent?: ReviewVersion } = {}): string => {
  try {
    verifyReview(o.uid ?? 'u1', o.mutating ?? true, o.sent ?? 'v1', decodeReview(JSON.stringify(body), o.sent ?? 'v1'));
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('verified');
};
const v1 = (response: Record<string, unknown>) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });

describe('the request', () => {
  test('every field in Go’s order, omitempty as Go, object/oldObject null when absent', () => {
    const r = admissionRequest('uid-1', base, view);
    expect(Object.keys(r)).toEqual(['uid', 'kind', 'resource', 'requestKind', 'requestResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options']);
    expect(r.userInfo).toEqual({ username: 'alice', uid: 'u-1', groups: ['staff', 'system:authenticated'], extra: { alpha: ['a', 'b'], zeta: ['z'] } });
    expect(Object.keys(r.userInfo as object)).toEqual(['username', 'uid', 'groups', 'extra']);
    expect(Object.keys((r.userInfo as { extra: object }).extra)).toEqual(['alpha', 'zeta']);
    expect(r.oldObject).toBeNull();
    expect(r.dryRun).toBe(false);
  });

  test('subresources, a generated name and a DELETE without options', () => {
    const r = admissionRequest('u', { ...base, requestSubResource: 'status', name: '', namespace: '', operation: 'CONNECT', options: undefined, user: undefined }, { ...view, subResource: 'status', object: undefined });
    expect(Object.keys(r)).toEqual(['uid', 'kind', 'resource', 'subResource', 'requestKind', 'requestResource', 'requestSubResource', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options']);
    expect(r).toMatchObject({ userInfo: {}, object: null, options: null, subResource: 'status', requestSubResource: 'status' });
  });

  test('the review body, in either version', () => {
    const body = encodeReview('v1beta1', { uid: 'x' });
    expect(body).toBe('{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","request":{"uid":"x"}}\n');
  });

  test('the first version this server speaks', () => {
    expect(reviewVersionFor(['v2', 'v1beta1', 'v1'])).toBe('v1beta1');
    expect(reviewVersionFor(['v1', 'v1beta1'])).toBe('v1');
    expect(reviewVersionFor(['v2'])).toBeUndefined();
  });
});

describe('decoding the answer (client-go’s errors)', () => {
  const findKind = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  test.each([
    ['plain text (read as a YAML string)', 'error response', `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ${findKind}`],
    ['a JSON list', '[1]', `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${findKind}`],
    ['broken JSON', '{bad', "couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of object key string"],
    ['a kind of the wrong type', '{"kind":5}', "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"],
    ['another kind', '{"kind":"Pod","apiVersion":"v1"}', 'no kind "Pod" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/util/webhook/client.go:71"'],
    ['a Status with a 200', '{"kind":"Status","apiVersion":"v1","status":"Failure"}', 'converting (v1.Status) to (v1.AdmissionReview): unknown conversion'],
    ['the other version', '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","response":{}}', 'converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion'],
    ['a bad GroupVersion', '{"kind":"AdmissionReview","apiVersion":"a/b/c"}', 'unexpected GroupVersion string: a/b/c'],
    ['allowed as a string', '{"response":{"allowed":"yes"}}', 'json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool'],
    ['a status code as a string', '{"response":{"status":{"code":"403"}}}', 'json: cannot unmarshal string into Go struct field Status.response.status.code of type int32'],
    ['a patch that is not base64', '{"response":{"patch":"!!!!"}}', 'illegal base64 data at input byte 0'],
    ['a patch that is a number', '{"response":{"patch":5}}', 'json: cannot unmarshal number into Go struct field AdmissionResponse.response.patch of type []uint8'],
    ['warnings not a list', '{"response":{"warnings":"w"}}', 'json: cannot unmarshal string into Go struct field AdmissionResponse.response.warnings of type []string'],
  ])('%s', (_name, body, message) => {
    expect(decodeError(body)).toBe(message);
  });

  test('unknown fields are ignored, a missing apiVersion/kind is filled in for decoding only, YAML decodes', () => {
    expect(decodeReview('{"response":{"uid":"u","allowed":true,"extra":1},"other":2}', 'v1')).toMatchObject({ apiVersion: '', kind: '', response: { uid: 'u', allowed: true } });
    expect(decodeReview('apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nresponse:\n  uid: u\n  allowed: true\n', 'v1').response).toMatchObject({ uid: 'u', allowed: true });
  });

  test('YAML that does not parse: go-yaml’s error as the serializer returns it, not wrapped', () => {
    const message = decodeError('response:\n  allowed: true\n bad: 1');
    expect(message).toMatch(/^yaml: line 3: /);
    expect(message).not.toContain('converting YAML');
  });

  test('Go’s base64 for []byte', () => {
    expect(decodeGoStdBase64('W10=').toString()).toBe('[]');
    expect(decodeGoStdBase64('W1\n0=').toString()).toBe('[]');
    expect(() => decodeGoStdBase64('W10')).toThrow('illegal base64 data at input byte 0');
    expect(() => decodeGoStdBase64('W1=')).toThrow('illegal base64 data at input byte 3');
    expect(() => decodeGoStdBase64('W10=x')).toThrow('illegal base64 data at input byte 4');
    expect(() => decodeGoStdBase64('W===')).toThrow('illegal base64 data at input byte 1');
  });
});

describe('checking the answer (kube’s VerifyAdmissionResponse)', () => {
  test.each([
    ['no response', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, {}, 'webhook response was absent'],
    ['another uid', v1({ uid: 'u2', allowed: true }), {}, 'expected response.uid="u1", got "u2"'],
    ['no apiVersion and kind', { response: { uid: 'u1', allowed: true } }, {}, 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind='],
    ['a patch without its type', v1({ uid: 'u1', allowed: true, patch: 'W10=' }), {}, 'webhook returned response.patch but not response.patchType'],
    ['a type without a patch', v1({ uid: 'u1', allowed: true, patchType: 'JSONPatch' }), {}, 'webhook returned response.patchType but not response.patch'],
    ['an empty patch type', v1({ uid: 'u1', allowed: true, patch: 'W10=', patchType: '' }), {}, 'webhook returned invalid response.patchType of ""'],
    ['a validating webhook’s patch', v1({ uid: 'u1', allowed: true, patch: 'W10=' }), { mutating: false }, 'validating webhook may not return response.patch'],
    ['a validating webhook’s patch type', v1({ uid: 'u1', allowed: true, patchType: 'JSONPatch' }), { mutating: false }, 'validating webhook may not return response.patchType'],
  ])('%s', (_name, body, o, message) => {
    expect(verifyError(body, o)).toBe(message);
  });

  test('a good v1 answer', () => {
    const r = verifyReview(
      'u1',
      true,
      'v1',
      decodeReview(JSON.stringify(v1({ uid: 'u1', allowed: false, patch: 'W10=', patchType: 'JSONMergePatch', auditAnnotations: { a: 'b' }, warnings: ['w'], status: { code: 403, message: 'no', reason: 'Forbidden' } })), 'v1'),
    );
    expect(r).toMatchObject({ allowed: false, patchType: 'JSONMergePatch', auditAnnotations: { a: 'b' }, warnings: ['w'], status: { code: 403, message: 'no', reason: 'Forbidden' } });
    expect(r.patch?.toString()).toBe('[]');
  });

  test('a denial’s causes keep only the fields they have (Go’s omitempty)', () => {
    const status = { code: 422, message: 'no', details: { name: 'cm', causes: [{ message: 'bad value' }, { field: 'data.a', reason: 'FieldValueInvalid' }] } };
    const r = verifyReview('u1', true, 'v1', decodeReview(JSON.stringify(v1({ uid: 'u1', allowed: false, status })), 'v1'));
    expect(r.status?.details?.causes).toEqual([{ message: 'bad value' }, { reason: 'FieldValueInvalid', field: 'data.a' }]);
    expect(Object.keys(r.status?.details?.causes?.[1] ?? {})).toEqual(['reason', 'field']);
  });

  test('v1beta1: neither uid nor kind checked, a patch is a JSON patch', () => {
    const r = verifyReview('u1', true, 'v1beta1', decodeReview('{"response":{"uid":"other","allowed":true,"patch":"W10="}}', 'v1beta1'));
    expect(r).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    expect(verifyReview('u1', false, 'v1beta1', decodeReview('{"response":{"allowed":true,"patch":"W10="}}', 'v1beta1')).patch).toBeUndefined();
  });
});

describe('CA bundles (client-go’s rootCertPool)', () => {
  test.each([
    ['text', 'not a certificate', 'unable to parse bytes as PEM block'],
    ['a key only', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', 'no valid certificate authority data seen'],
    ['a broken certificate', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'failed to parse certificate: x509: malformed certificate'],
  ])('%s', (_name, pem, message) => {
    expect(caBundleError(pem)).toBe(message);
  });
});
