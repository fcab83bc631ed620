/**
 * Property: every parser a client's text reaches in-process (label and field selectors, continue
 * tokens, quantities, request bodies of each media type, the three patch types) either succeeds or
 * fails with the API error type (or the parser's own documented error) — never a TypeError,
 * RangeError or anything else that would become a 500.
 */
import fc from 'fast-check';
import { ApiError, decodeContinueToken, parseFieldSelector, parseLabelSelector, parseQuantity, QuantityParseError } from '../../src/api';
import { decodeBody } from '../../src/endpoints/codec';
import { applyJsonPatch, applyMergePatch } from '../../src/patch';
import { CborCodec } from '../../src/storage/codec/cbor-codec';
import { ProtobufCodec } from '../../src/storage/codec/protobuf-codec';
import { builtinResources, protobufKindsOf } from '../../src/registry';
import { fuzzParams, hostileString, jsonish } from './fuzz-config';

/** Runs f; an ApiError (or one of `also`) is a fine answer, anything else fails the property. */
function onlyApiErrors(f: () => unknown, ...also: Array<new (...a: never[]) => Error>): void {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) {
      expect(e.code).toBeGreaterThanOrEqual(400);
      expect(e.code).toBeLessThan(500);
      return;
    }
    if (also.some((c) => e instanceof c)) return;
    throw e;
  }
}

const selectorText = fc.oneof(
  hostileString(60),
  fc.array(fc.constantFrom('a', 'b', '=', '==', '!=', ',', ' in ', ' notin ', '(', ')', '!', 'x/y', '.', '-', '>', '<', '1', ' '), { maxLength: 30 }).map((p) => p.join('')),
);

test('label selectors', () => {
  fc.assert(fc.property(selectorText, (s) => onlyApiErrors(() => parseLabelSelector(s))), fuzzParams(2000));
});

test('field selectors', () => {
  fc.assert(fc.property(selectorText, (s) => onlyApiErrors(() => parseFieldSelector(s))), fuzzParams(2000));
});

test('continue tokens', () => {
  const token = fc.oneof(
    hostileString(80),
    jsonish(3).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
    fc.record({ v: fc.oneof(fc.constant('meta.k8s.io/v1'), hostileString(10)), rv: fc.oneof(fc.integer(), hostileString(10), fc.constant(null)), start: fc.oneof(hostileString(20), fc.integer()) }).map((o) =>
      Buffer.from(JSON.stringify(o)).toString('base64'),
    ),
  );
  fc.assert(fc.property(token, (t) => onlyApiErrors(() => decodeContinueToken(t, '/registry/configmaps/'))), fuzzParams(2000));
});

test('quantities', () => {
  const q = fc.oneof(
    hostileString(30),
    fc.tuple(fc.constantFrom('', '-', '+'), fc.stringMatching(/^[0-9.]{0,40}$/), fc.constantFrom('', 'm', 'k', 'Ki', 'Mi', 'E', 'Ei', 'e3', 'e-999999', 'E+9', 'n', 'u')).map((p) => p.join('')),
  );
  fc.assert(fc.property(q, (s) => onlyApiErrors(() => parseQuantity(s), QuantityParseError)), fuzzParams(2000));
});

describe('request bodies', () => {
  let protobuf: ProtobufCodec;
  const cbor = new CborCodec({ byteFields: () => [] });
  beforeAll(async () => {
    protobuf = await ProtobufCodec.load(undefined, builtinResources.flatMap(protobufKindsOf));
  });

  const bodyBytes = fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    hostileString(200).map((s) => Buffer.from(s)),
    jsonish(6).map((v) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: v }))),
  );

  test.each(['json', 'yaml', 'protobuf', 'cbor'] as const)('%s', async (format) => {
    await fc.assert(
      // decodeBody is async (large YAML is decoded in a worker): its rejection is the error to judge.
      fc.asyncProperty(bodyBytes, async (body) => {
        const r = await decodeBody(body, format, 'ConfigMap', protobuf, 'v1', cbor).then(
          () => undefined,
          (e: unknown) => e,
        );
        onlyApiErrors(() => {
          if (r !== undefined) throw r;
        });
      }),
      fuzzParams(1000),
    );
  });
});

describe('patches', () => {
  const doc = jsonish(4);
  test('JSON merge patch', () => {
    fc.assert(fc.property(doc, doc, (original, patch) => onlyApiErrors(() => applyMergePatch(original, patch))), fuzzParams(1000));
  });
  test('JSON patch', () => {
    const op = fc.record(
      {
        op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), hostileString(8)),
        path: fc.oneof(fc.constantFrom('', '/', '/a', '/a/0', '/a/-', '/~1', '/~2', '/a/99999999999'), hostileString(12)),
        from: fc.oneof(fc.constantFrom('/a', '/b', ''), hostileString(8)),
        value: jsonish(3),
      },
      { requiredKeys: [] },
    );
    const ops = fc.oneof(fc.array(op, { maxLength: 6 }), jsonish(3));
    fc.assert(
      fc.property(doc, ops, (original, patch) => onlyApiErrors(() => applyJsonPatch(original, patch))),
      fuzzParams(1000),
    );
  });
});
