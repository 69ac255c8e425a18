/**
 * What an authorizer decides on (kube-apiserver's `authorizer.Attributes`) and how a refusal reads.
 * The 403 wording is kube-apiserver's (`responsewriters.Forbidden` + `apierrors.NewForbidden`),
 * which clients and people match on: `nodes "n1" is forbidden: User "mallory" cannot patch
 * resource "nodes" in API group "" at the cluster scope`, `… in the namespace "kubemaint"`,
 * subresources spelled `nodes/status`, and `forbidden: User "x" cannot get path "/apis"`.
 */
import { StatusError } from '../types.js';
import type { UserInfo } from '../api/identity.js';

export interface AuthzAttributes {
  user: UserInfo;
  verb: string;
  /** False for non-resource paths (`/api`, `/version`, `/healthz`). */
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The request path, for non-resource requests. */
  path: string;
}

export interface Decision {
  allowed: boolean;
  /** Why, when the authorizer says (RBAC names a missing role; allowed decisions name the binding). */
  reason: string;
}

export interface Authorizer {
  authorize(attributes: AuthzAttributes): Decision;
}

export const resourceAttributes = (
  user: UserInfo,
  verb: string,
  target: {
    apiGroup: string;
    resource: string;
    subresource?: string;
    namespace?: string;
    name?: string;
  },
): AuthzAttributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup: target.apiGroup,
  resource: target.resource,
  subresource: target.subresource ?? '',
  namespace: target.namespace ?? '',
  name: target.name ?? '',
  path: '',
});

export function forbiddenMessage(a: AuthzAttributes): string {
  const user = a.user.username;
  if (!a.resourceRequest) return `User "${user}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${where}`;
}

/** The 403 for a refused request; `reason` (if any) follows the message after ": ". */
export function forbiddenError(a: AuthzAttributes, reason: string): StatusError {
  const why = `${forbiddenMessage(a)}${reason ? `: ${reason}` : ''}`;
  if (!a.resourceRequest) {
    return new StatusError(403, 'Forbidden', `forbidden: ${why}`, { details: {} });
  }
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const message = a.name
    ? `${qualified} "${a.name}" is forbidden: ${why}`
    : `${qualified} is forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, {
    details: {
      ...(a.name ? { name: a.name } : {}),
      ...(a.apiGroup ? { group: a.apiGroup } : {}),
      kind: a.resource,
    },
  });
}
