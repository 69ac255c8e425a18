/**
 * One request as admission sees it (kube-apiserver's `admission.Attributes`), and the `request`
 * value a policy's CEL reads (admission/v1 AdmissionRequest as JSON: empty optional fields absent,
 * so `request.subResource` of a main-resource write is a missing key, as on kube-apiserver 1.34).
 */
import type { UserInfo } from '../api/identity.js';
import type { KObject } from '../types.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  /** The resource addressed (the parent's for a subresource: `pods` for `pods/eviction`). */
  resource: { group: string; version: string; resource: string };
  subresource: string;
  /** Kind of the object in the request: Eviction for `pods/eviction`, the resource's kind otherwise. */
  kind: { group: string; version: string; kind: string };
  namespaced: boolean;
  name: string;
  namespace: string;
  object: KObject | undefined;
  oldObject: KObject | undefined;
  user: UserInfo;
  dryRun: boolean;
  /** The options object of the verb (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown>;
}

const OPTIONS_KIND: Record<Operation, string> = {
  CREATE: 'CreateOptions',
  UPDATE: 'UpdateOptions',
  DELETE: 'DeleteOptions',
  CONNECT: '',
};

export function requestValue(a: AdmissionAttributes, uid: string): Record<string, unknown> {
  const user = a.user;
  return {
    uid,
    kind: a.kind,
    resource: a.resource,
    ...(a.subresource ? { subResource: a.subresource } : {}),
    requestKind: a.kind,
    requestResource: a.resource,
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: {
      username: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups.length > 0 ? { groups: user.groups } : {}),
      ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
    },
    dryRun: a.dryRun,
    ...(OPTIONS_KIND[a.operation]
      ? { options: { kind: OPTIONS_KIND[a.operation], apiVersion: 'meta.k8s.io/v1', ...a.options } }
      : {}),
  };
}
