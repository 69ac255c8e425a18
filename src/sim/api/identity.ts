/**
 * Who is asking. The sim's one bearer token is its administrator (`system:masters`, as the admin
 * kubeconfig of a real cluster is); a token minted by the TokenRequest API is its service account
 * (service-account-tokens.ts); anything else is 401. Impersonation headers then switch the identity as
 * kube-apiserver's impersonation filter does: `Impersonate-User`, `Impersonate-Uid`, `Impersonate-Group`
 * (repeatable) and `Impersonate-Extra-<key>`. A real cluster lets whoever RBAC grants the `impersonate`
 * verb do that; the sim has no RBAC, so it is the administrator alone. Attached kubelets rely on it to
 * act as `system:node:<name>` in `system:nodes` (`kubemaint sim --attach`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { forbidden, internalError } from '../status-errors.js';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const AUTHENTICATED = 'system:authenticated';

export const SIM_ADMIN: UserInfo = {
  username: 'kubemaint-sim-admin',
  groups: ['system:masters', AUTHENTICATED],
};

const EXTRA_PREFIX = 'impersonate-extra-';

const values = (header: string | string[] | undefined): string[] =>
  header === undefined ? [] : Array.isArray(header) ? header : [header];

/** The identity a request acts as, after its impersonation headers (if any). */
export function impersonate(caller: UserInfo, headers: IncomingHttpHeaders): UserInfo {
  const user = values(headers['impersonate-user'])[0];
  const uid = values(headers['impersonate-uid'])[0];
  // Node's parser joins repeated headers with ", " (a group name never holds a comma).
  const groups = values(headers['impersonate-group']).flatMap((g) => g.split(/,\s*/));
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    extra[decodeURIComponent(name.slice(EXTRA_PREFIX.length))] = values(value);
  }
  const asked = groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0;
  if (user === undefined) {
    if (!asked) return caller;
    const what = groups.map((g) => `{Group  ${g}    }`).join(' ') || '{UID or extra}';
    throw internalError(`requested [${what}] without impersonating a user`);
  }
  if (!caller.groups.includes('system:masters')) {
    throw forbidden(
      { group: '', plural: 'users', kind: 'User' },
      user,
      `User "${caller.username}" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
  }
  return {
    username: user,
    ...(uid === undefined ? {} : { uid }),
    groups: [...groups.filter((g) => g !== AUTHENTICATED), AUTHENTICATED],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** The audit log's actor: `http:<user-agent>` for the administrator, else who it acted as. */
export const actorOf = (userAgent: string, user: UserInfo): string =>
  user === SIM_ADMIN ? `http:${userAgent}` : `http:${userAgent} as ${user.username}`;

/** `system:node:<name>` in `system:nodes`: the node name, else undefined. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.groups.includes('system:nodes')) return undefined;
  const match = /^system:node:(.+)$/.exec(user.username);
  return match?.[1];
}
