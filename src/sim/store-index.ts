/**
 * Per-resource storage kept sorted by key (`namespace/name`, or `name` for cluster-scoped kinds), so a
 * page of a list starts with a binary search and costs O(log n + page) rather than a sort per page.
 * Keys of one namespace are contiguous, so a namespaced list is a range scan too.
 */
import type { KObject } from './types.js';

export const objectKey = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

export class SortedObjects {
  readonly #objects = new Map<string, KObject>();
  readonly #keys: string[] = [];

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): KObject | undefined {
    return this.#objects.get(key);
  }

  set(key: string, object: KObject): void {
    if (!this.#objects.has(key)) this.#keys.splice(this.#lowerBound(key), 0, key);
    this.#objects.set(key, object);
  }

  delete(key: string): void {
    if (!this.#objects.delete(key)) return;
    const at = this.#lowerBound(key);
    if (this.#keys[at] === key) this.#keys.splice(at, 1);
  }

  /**
   * Objects in key order, starting after `afterKey` (exclusive) and staying inside `prefix`.
   * The generator is lazy, so a caller that stops after a page pays only for that page.
   */
  *scan(options: { prefix?: string; afterKey?: string } = {}): Generator<[string, KObject]> {
    const prefix = options.prefix ?? '';
    const start =
      options.afterKey !== undefined && options.afterKey >= prefix
        ? this.#upperBound(options.afterKey)
        : this.#lowerBound(prefix);
    for (let i = start; i < this.#keys.length; i++) {
      const key = this.#keys[i] ?? '';
      if (!key.startsWith(prefix)) return;
      const object = this.#objects.get(key);
      if (object) yield [key, object];
    }
  }

  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#keys[mid] ?? '') < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #upperBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#keys[mid] ?? '') <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
