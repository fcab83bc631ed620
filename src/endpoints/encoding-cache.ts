/**
 * Encodes shared objects once per media type, however many readers receive them: the watch cache
 * hands every watcher and every list the same immutable object, so encodings are memoised by
 * identity. One instance per server (never module state); entries go when the objects are collected.
 *
 * Watch event frames live as long as their object. List item encodings (JSON) are kept within a
 * byte budget, in two generations: when the current one fills half the budget it becomes the
 * previous one (whose entries are promoted back on use) and the older generation is dropped, so at
 * most `listItemBudgetBytes` are held however many objects are listed.
 */
import type { KubeObject } from '../api';

export interface EncodingCacheOptions {
  /** Upper bound of the memoised list item encodings, in bytes (default 64 MiB; 0 = none kept). */
  listItemBudgetBytes?: number;
}

const defaultListItemBudgetBytes = 64 * 1024 * 1024;

export class EncodingCache {
  /** Whole watch event frames per object, by `<format> <type>` (one object can be ADDED to some watchers and MODIFIED to others). */
  private readonly eventFrames = new WeakMap<object, Map<string, Buffer>>();
  private readonly generationBytes: number;
  private listItems = new WeakMap<object, Buffer>();
  private previousListItems = new WeakMap<object, Buffer>();
  private listItemBytes = 0;
  /** Bytes and count of every list item encoded so far: their mean sizes the next list. */
  private encodedItemBytes = 0;
  private encodedItems = 0;

  constructor(opts: EncodingCacheOptions = {}) {
    this.generationBytes = Math.floor((opts.listItemBudgetBytes ?? defaultListItemBudgetBytes) / 2);
  }

  /**
   * Whether a list of `count` items is expected to fit one generation of the list item memo (at the
   * mean size of the items encoded so far). Larger lists would only churn it: a cold per-item
   * encoding costs more than encoding the whole list at once, so callers should do that instead.
   */
  fitsListItemMemo(count: number): boolean {
    if (this.encodedItems === 0) return this.generationBytes > 0;
    return count * (this.encodedItemBytes / this.encodedItems) <= this.generationBytes;
  }

  /**
   * The UTF-8 JSON of `obj` as an item of a JSON list: without kind and apiVersion (kube's list
   * encoding, as GenericStore.stripItemTypes). `obj` must be a shared value never mutated after.
   */
  listItemJsonOf(obj: KubeObject): Buffer {
    const current = this.listItems.get(obj);
    if (current !== undefined) return current;
    let b = this.previousListItems.get(obj);
    if (b === undefined) {
      b = Buffer.from(listItemJson(obj));
      this.encodedItemBytes += b.length;
      this.encodedItems++;
    }
    if (b.length > this.generationBytes) return b;
    if (this.listItemBytes + b.length > this.generationBytes) {
      this.previousListItems = this.listItems;
      this.listItems = new WeakMap();
      this.listItemBytes = 0;
    }
    this.listItems.set(obj, b);
    this.listItemBytes += b.length;
    return b;
  }

  /**
   * One watch event's complete frame (as `build` makes it from `obj`) for a shared object: built for
   * the first watcher, the same bytes for every other. `key` names the format, event type and
   * framing.
   */
  eventFrameOf(obj: object, key: string, build: (obj: object) => Buffer): Buffer {
    let frames = this.eventFrames.get(obj);
    if (frames === undefined) {
      frames = new Map();
      this.eventFrames.set(obj, frames);
    }
    let b = frames.get(key);
    if (b === undefined) {
      b = build(obj);
      frames.set(key, b);
    }
    return b;
  }
}

/** JSON of a list item: the object less its kind and apiVersion, other keys in their order. */
function listItemJson(obj: KubeObject): string {
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return JSON.stringify(rest);
}
