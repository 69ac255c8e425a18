/**
 * Who is asking. The sim's one bearer token is its administrator (`system:masters`, as the admin
 * kubeconfig of a real cluster is); a token minted by the TokenRequest API is its service account
 * (service-account-tokens.ts); a client certificate signed by the sim's CA is the user of its CN in
 * the groups of its O fields (client-certificates.ts); anything else is 401. Impersonation headers
 * then switch the identity as kube-apiserver's impersonation filter does: `Impersonate-User`,
 * `Impersonate-Uid`, `Impersonate-Group` (repeatable) and `Impersonate-Extra-<key>`, each checked
 * with the `impersonate` verb (users, groups, serviceaccounts; uids and userextras/<key> in
 * authentication.k8s.io), so whoever RBAC allows may do it and the 403 reads as upstream's.
 * Attached kubelets rely on it to act as `system:node:<name>` in `system:nodes` (`kubemaint sim --attach`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { forbiddenError, resourceAttributes, type Authorizer } from '../authz/attributes.js';
import { internalError } from '../status-errors.js';

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

const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The identity a request acts as, after its impersonation headers (if any), each one authorised. */
export function impersonate(
  caller: UserInfo,
  headers: IncomingHttpHeaders,
  authorizer: Authorizer,
): UserInfo {
  const user = values(headers['impersonate-user'])[0];
  const uid = values(headers['impersonate-uid'])[0];
  // Node's parser joins repeated headers with ", " (a group name never holds a comma).
  const groups = values(headers['impersonate-group']).flatMap((g) => g.split(/,\s*/));
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    // The key is percent-encoded (header names cannot hold `/`); values are sent as they are, one per
    // header line, which Node joins with ", ".
    extra[decodeURIComponent(name.slice(EXTRA_PREFIX.length))] = values(value).flatMap((v) =>
      v.split(/,\s*/),
    );
  }
  const asked = groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0;
  if (user === undefined) {
    if (!asked) return caller;
    const what = groups.map((g) => `{Group  ${g}    }`).join(' ') || '{UID or extra}';
    throw internalError(`requested [${what}] without impersonating a user`);
  }
  const check = (target: Parameters<typeof resourceAttributes>[2]) => {
    const attributes = resourceAttributes(caller, 'impersonate', target);
    const decision = authorizer.authorize(attributes);
    if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
  };
  const account = SERVICE_ACCOUNT_USER.exec(user);
  if (account) {
    check({
      apiGroup: '',
      resource: 'serviceaccounts',
      namespace: account[1] ?? '',
      name: account[2] ?? '',
    });
  } else {
    check({ apiGroup: '', resource: 'users', name: user });
  }
  for (const group of groups) check({ apiGroup: '', resource: 'groups', name: group });
  if (uid !== undefined) check({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid });
  for (const [key, list] of Object.entries(extra)) {
    for (const value of list) {
      check({
        apiGroup: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: key,
        name: value,
      });
    }
  }
  // A service account's groups are known; everyone impersonated is authenticated (upstream adds both).
  const acting =
    account && groups.length === 0
      ? ['system:serviceaccounts', `system:serviceaccounts:${account[1] ?? ''}`]
      : groups;
  return {
    username: user,
    ...(uid === undefined ? {} : { uid }),
    groups: acting.includes(AUTHENTICATED) ? acting : [...acting, AUTHENTICATED],
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
