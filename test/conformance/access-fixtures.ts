/**
 * Identities and RBAC objects for the access-control cases: a fresh user per case (a client
 * certificate, the same on both backends), Roles and bindings created by the admin and deleted by the
 * case's cleanup, and waiting for a grant to take effect (kube-apiserver's RBAC reads informers, so a
 * new binding counts a moment after it is written; the sim's at once).
 */
import assert from 'node:assert/strict';
import { eventually, type Backend, type Reply } from './backend.js';

type Obj = Record<string, unknown>;
export const RBAC = 'rbac.authorization.k8s.io';
const RBAC_API = `/apis/${RBAC}/v1`;

export interface Someone {
  name: string;
  as: Backend;
}

/** A user of the case's own (`conf-<prefix>-xxxxx`) in `groups`, through a client certificate. */
export function user(b: Backend, prefix: string, groups: string[] = []): Someone {
  const name = b.unique(prefix);
  return { name, as: b.as(b.identities.userKubeconfig(name, groups)) };
}

/** Creates an object as the admin and deletes it in the case's cleanup. */
export async function created(b: Backend, collection: string, body: Obj): Promise<Obj> {
  const reply = await b.request('POST', collection, { body });
  assert.equal(reply.code, 201, reply.text);
  const name = (body['metadata'] as Obj)['name'] as string;
  b.defer(() => b.request('DELETE', `${collection}/${name}`));
  return reply.json;
}

export const clusterRole = (b: Backend, name: string, rules: Obj[]) =>
  created(b, `${RBAC_API}/clusterroles`, { metadata: { name }, rules });

export const role = (b: Backend, ns: string, name: string, rules: Obj[]) =>
  created(b, `${RBAC_API}/namespaces/${ns}/roles`, { metadata: { name }, rules });

export function clusterRoleBinding(b: Backend, name: string, roleName: string, subjects: Obj[]) {
  return created(b, `${RBAC_API}/clusterrolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName },
    subjects,
  });
}

export function roleBinding(
  b: Backend,
  ns: string,
  name: string,
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string },
  subjects: Obj[],
) {
  return created(b, `${RBAC_API}/namespaces/${ns}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: RBAC, ...roleRef },
    subjects,
  });
}

export const userSubject = (name: string): Obj => ({ apiGroup: RBAC, kind: 'User', name });

/** Repeats `attempt` until its answer has `code` (a new grant or policy takes a moment upstream). */
export function until(code: number, what: string, attempt: () => Promise<Reply>): Promise<Reply> {
  return eventually(what, async () => {
    const reply = await attempt();
    return reply.code === code ? reply : undefined;
  });
}

/** `status.userInfo` of a SelfSubjectReview made by `who`, with extra headers (impersonation). */
export async function whoami(who: Backend, headers: Record<string, string> = {}): Promise<Reply> {
  return who.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    headers,
  });
}

/** A SelfSubjectAccessReview's status. */
export async function canI(who: Backend, attributes: Obj): Promise<Obj> {
  const reply = await who.request(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: attributes },
      },
    },
  );
  assert.equal(reply.code, 201, reply.text);
  return reply.json['status'] as Obj;
}
