/**
 * A custom resource as the version its request named shows it. kube-apiserver stores an object at
 * the CRD's storage version of the moment it is written, and with conversion strategy None
 * converts on the way in and out by relabelling apiVersion only. So a v1alpha1 read of an object
 * stored as v1beta1 says v1alpha1, while the stored object keeps the version it was written at:
 * what a storage-version migration rewrites, and what `status.storedVersions` must account for.
 */
import { apiVersionOf, type ResourceDef } from '../resources.js';
import type { KObject } from '../types.js';

type Body = KObject & { items?: unknown };

export function asServed<T>(def: ResourceDef, body: T): T {
  if (!def.custom || body === null || typeof body !== 'object') return body;
  const o = body as unknown as Body;
  const apiVersion = apiVersionOf(def);
  if (o.kind === def.kind) return { ...o, apiVersion } as T;
  if (o.kind === `${def.kind}List` && Array.isArray(o.items))
    return { ...o, items: (o.items as KObject[]).map((i) => ({ ...i, apiVersion })) } as T;
  return body;
}
