import { supportedMediaTypes } from '../../../src/endpoints/negotiation';

test.each([
  [{}, ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']],
  [{ cbor: true }, ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor']],
  [{ protobuf: false }, ['application/json', 'application/yaml']],
  [{ protobuf: false, cbor: true }, ['application/json', 'application/yaml', 'application/cbor']],
])('the media types a 406/415 names for %j', (opts, expected) => {
  expect(supportedMediaTypes(opts)).toEqual(expected);
});
