/**
 * The storage codec with kube's recognising decoder: kube-apiserver reads back every serialization
 * it knows, whatever its --storage-media-type writes (protobuf by default). So a value a
 * kube-apiserver stored (`k8s\0` + runtime.Unknown) reads here as well as this server's JSON, for
 * the kinds this server has a protobuf form of; anything else stays unreadable (a CorruptValue).
 * Writes stay JSON, which kube-apiserver reads in turn.
 */
import type { KubeObject } from '../../api';
import { type StorageCodec, encodeJsonWithSlot, jsonCodec, stampRevision } from './json-codec';
import { hasProtobufMagic, type ProtobufCodec } from './protobuf-codec';

export function recognizingCodec(protobuf: ProtobufCodec): StorageCodec {
  return {
    encode: (obj) => jsonCodec.encode(obj),
    encodeWithSlot: (obj) => encodeJsonWithSlot(obj),
    decode(data, revision) {
      if (!hasProtobufMagic(data)) return jsonCodec.decode(data, revision);
      return stampRevision(protobuf.decode(data) as unknown as KubeObject, revision);
    },
    decodeErrorText(data, err) {
      if (hasProtobufMagic(data)) return (err as Error).message;
      return jsonCodec.decodeErrorText?.(data, err) ?? (err as Error).message;
    },
  };
}
