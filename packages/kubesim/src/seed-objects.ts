/**
 * Objects a program embedding the sim wants there from the start (its RBAC, its admission policies),
 * created before the API serves, as `kubectl create` would: an object that already exists is left as
 * it is. The kind is looked up as the API would route it, so only what the sim serves can be seeded.
 */
import { SimError } from './errors.js';
import type { KObject, Store } from './types.js';

export function seedObjects(store: Store, objects: readonly KObject[], actor: string): void {
  for (const object of objects) {
    const [group, version] = (object.apiVersion ?? '').includes('/')
      ? (object.apiVersion ?? '').split('/')
      : ['', object.apiVersion ?? ''];
    const def = store.resources
      .all()
      .find((d) => d.group === group && d.version === version && d.kind === object.kind);
    if (!def) {
      throw new SimError(
        'usage',
        `the sim does not serve ${String(object.apiVersion)} ${String(object.kind)} (object ${object.metadata.name ?? '?'})`,
        { hint: 'seed only kinds the sim serves (kubectl api-resources against it lists them)' },
      );
    }
    const namespace = def.namespaced ? (object.metadata.namespace ?? 'default') : undefined;
    if (store.get(def.key, namespace, object.metadata.name ?? '')) continue;
    store.create(def.key, object, { actor });
  }
}
