/**
 * Per-resource storage kept in key order (`namespace/name`, or `name` for cluster-scoped kinds), so a
 * page of a list starts with a binary search and costs O(log n + page) rather than a sort per page.
 * Keys of one namespace are contiguous, so a namespaced list is a range scan too.
 *
 * Ordering is lazy: creates append and deletes leave tombstones, and the key array is re-sorted (and
 * swept) only when a scan needs it. Creating 100,000 pods therefore costs one sort at the next list
 * instead of 100,000 array splices. Optional field indexes (`spec.nodeName` for pods) answer the
 * selectors controllers and `kubectl drain` use all the time without scanning every object.
 */
import { flat } from './store-meta.js';
import type { KObject } from './types.js';

export const objectKey = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

export type IndexGetter = (object: KObject) => string | undefined;

export class SortedObjects {
  readonly #objects = new Map<string, KObject>();
  #keys: string[] = [];
  #sorted = true;
  /** Keys deleted from #objects but still in #keys. */
  readonly #tombstones = new Set<string>();
  readonly #indexes = new Map<string, { get: IndexGetter; byValue: Map<string, Set<string>> }>();

  constructor(indexes: Readonly<Record<string, IndexGetter>> = {}) {
    for (const [field, get] of Object.entries(indexes))
      this.#indexes.set(field, { get, byValue: new Map() });
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): KObject | undefined {
    return this.#objects.get(key);
  }

  set(key: string, object: KObject): void {
    const previous = this.#objects.get(key);
    if (previous) this.#unindex(key, previous);
    else {
      // A new key is kept from here on (objects, order, indexes): flattened once, in place, here
      // rather than in objectKey, which every lookup calls.
      flat(key);
      if (this.#tombstones.has(key)) this.#tombstones.delete(key);
      else {
        const last = this.#keys.at(-1);
        if (last !== undefined && last > key) this.#sorted = false;
        this.#keys.push(key);
      }
    }
    this.#objects.set(key, object);
    this.#index(key, object);
  }

  delete(key: string): void {
    const previous = this.#objects.get(key);
    if (!previous) return;
    this.#unindex(key, previous);
    this.#objects.delete(key);
    this.#tombstones.add(key);
  }

  hasIndex(field: string): boolean {
    return this.#indexes.has(field);
  }

  /** Keys whose indexed `field` equals `value`, in key order. */
  indexed(field: string, value: string): string[] {
    const keys = this.#indexes.get(field)?.byValue.get(value);
    return keys ? [...keys].sort() : [];
  }

  /**
   * Objects in key order, starting after `afterKey` (exclusive) and staying inside `prefix`.
   * The generator is lazy, so a caller that stops after a page pays only for that page.
   */
  *scan(options: { prefix?: string; afterKey?: string } = {}): Generator<[string, KObject]> {
    this.#settle();
    const prefix = options.prefix ?? '';
    const start =
      options.afterKey !== undefined && options.afterKey >= prefix
        ? upperBound(this.#keys, options.afterKey)
        : lowerBound(this.#keys, prefix);
    for (let i = start; i < this.#keys.length; i++) {
      const key = this.#keys[i] ?? '';
      if (!key.startsWith(prefix)) return;
      const object = this.#objects.get(key);
      if (object) yield [key, object];
    }
  }

  #settle(): void {
    if (this.#tombstones.size > 0) {
      this.#keys = this.#keys.filter((k) => this.#objects.has(k));
      this.#tombstones.clear();
    }
    if (!this.#sorted) {
      this.#keys.sort();
      this.#sorted = true;
    }
  }

  #index(key: string, object: KObject): void {
    for (const { get, byValue } of this.#indexes.values()) {
      const value = get(object) ?? '';
      let set = byValue.get(value);
      if (!set) byValue.set(value, (set = new Set()));
      set.add(key);
    }
  }

  #unindex(key: string, object: KObject): void {
    for (const { get, byValue } of this.#indexes.values()) {
      const value = get(object) ?? '';
      const set = byValue.get(value);
      set?.delete(key);
      if (set?.size === 0) byValue.delete(value);
    }
  }
}

function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? '') <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
