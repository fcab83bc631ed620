/**
 * The storage codec with kube's recognising decoder: kube-apiserver reads back every serialization
 * it knows, whatever its --storage-media-type writes (protobuf by default). So a value a
 * kube-apiserver stored (`k8s\0` + runtime.Unknown) reads here as well as this server's JSON, for
 * the kinds this server has a protobuf form of; anything else stays unreadable (a CorruptValue).
 * Writes stay JSON, which kube-apiserver reads in turn.
 */
import type { KubeObject } from '../../api';
import { type StorageCodec, jsonCodec, stampRevision } from './json-codec';
import { PROTOBUF_MAGIC, type ProtobufCodec } from './protobuf-codec';

function isProtobuf(data: Buffer): boolean {
  return data.length >= PROTOBUF_MAGIC.length && data.subarray(0, PROTOBUF_MAGIC.length).equals(PROTOBUF_MAGIC);
}

export function recognizingCodec(protobuf: ProtobufCodec): StorageCodec {
  return {
    encode: (obj) => jsonCodec.encode(obj),
    decode(data, revision) {
      if (!isProtobuf(data)) return jsonCodec.decode(data, revision);
      const obj = protobuf.decode(data) as unknown as KubeObject;
      obj.metadata ??= {};
      return stampRevision(obj, revision);
    },
    decodeErrorText(data, err) {
      if (isProtobuf(data)) return (err as Error).message;
      return jsonCodec.decodeErrorText?.(data, err) ?? (err as Error).message;
    },
  };
}
