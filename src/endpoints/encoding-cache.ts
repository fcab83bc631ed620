/**
 * Encodes each watch event's object once per media type, however many watchers receive it: the
 * watch cache hands every watcher the same object, so the encoding is memoised by identity.
 * One instance per server (never module state); entries go when the objects are collected.
 */
import type { CborSerializer, ProtobufSerializer } from './codec';

export class EncodingCache {
  private readonly json = new WeakMap<object, string>();
  private readonly protobuf = new WeakMap<object, Buffer>();
  private readonly cbor = new WeakMap<object, Buffer>();

  jsonOf(obj: object): string {
    let s = this.json.get(obj);
    if (s === undefined) {
      s = JSON.stringify(obj);
      this.json.set(obj, s);
    }
    return s;
  }

  protobufOf(obj: object, codec: ProtobufSerializer): Buffer {
    let b = this.protobuf.get(obj);
    if (b === undefined) {
      b = codec.encode(obj as Record<string, unknown>);
      this.protobuf.set(obj, b);
    }
    return b;
  }

  cborOf(obj: object, codec: CborSerializer): Buffer {
    let b = this.cbor.get(obj);
    if (b === undefined) {
      b = codec.encode(obj as Record<string, unknown>);
      this.cbor.set(obj, b);
    }
    return b;
  }
}
