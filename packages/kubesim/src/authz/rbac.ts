/**
 * The RBAC authorizer over the store's Roles, ClusterRoles and their bindings, as kube-apiserver's:
 * ClusterRoleBindings grant their ClusterRole everywhere (non-resource URLs only through them);
 * RoleBindings grant their Role or ClusterRole in their own namespace. A subject matches by user
 * name, group, or ServiceAccount (`system:serviceaccount:<ns>:<name>`, the namespace defaulting to
 * the binding's). A binding whose role is missing cannot allow anything and, when nothing else
 * allows the request, is named in the reason (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not
 * found`), as upstream. Aggregated ClusterRoles (aggregationRule) are not computed.
 */
import type { UserInfo } from '../api/identity.js';
import type { KObject, Store } from '../types.js';
import type { Authorizer, AuthzAttributes } from './attributes.js';
import { ruleAllows, type PolicyRule } from './rbac-rules.js';

const G = 'rbac.authorization.k8s.io';
export const RBAC = {
  roles: `roles.${G}`,
  clusterroles: `clusterroles.${G}`,
  rolebindings: `rolebindings.${G}`,
  clusterrolebindings: `clusterrolebindings.${G}`,
} as const;

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface RoleRef {
  kind?: string;
  name?: string;
}

function appliesTo(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name ?? '');
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.username === `system:serviceaccount:${ns}:${subject.name ?? ''}`;
    }
    case undefined:
    default:
      return false;
  }
}

const rulesOf = (role: KObject | undefined): PolicyRule[] =>
  Array.isArray(role?.['rules']) ? (role['rules'] as PolicyRule[]) : [];

export interface RbacAuthorizer extends Authorizer {
  /** Every rule the user holds in `namespace` ('' for cluster-wide only), as RBAC's rule resolver. */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[];
}

export function createRbacAuthorizer(store: Store): RbacAuthorizer {
  const all = (key: string, namespace?: string): KObject[] =>
    store.listPage(key, namespace ? { namespace } : {}, { shared: true }).items;

  return {
    rulesFor(user, namespace) {
      const rules: PolicyRule[] = [];
      for (const binding of all(RBAC.clusterrolebindings)) {
        if (!((binding['subjects'] ?? []) as Subject[]).some((s) => appliesTo(s, user, '')))
          continue;
        const ref = (binding['roleRef'] ?? {}) as RoleRef;
        rules.push(...rulesOf(store.get(RBAC.clusterroles, undefined, ref.name ?? '')));
      }
      if (namespace === '') return rules;
      for (const binding of all(RBAC.rolebindings, namespace)) {
        const subjects = (binding['subjects'] ?? []) as Subject[];
        if (!subjects.some((s) => appliesTo(s, user, namespace))) continue;
        const ref = (binding['roleRef'] ?? {}) as RoleRef;
        const role =
          ref.kind === 'Role'
            ? store.get(RBAC.roles, namespace, ref.name ?? '')
            : store.get(RBAC.clusterroles, undefined, ref.name ?? '');
        rules.push(...rulesOf(role));
      }
      return rules;
    },

    authorize(a: AuthzAttributes) {
      const errors: string[] = [];
      const grants = (
        role: KObject | undefined,
        ref: RoleRef,
        describe: () => string,
      ): string | undefined => {
        if (!role) {
          const kind = ref.kind === 'Role' ? 'role' : 'clusterrole';
          errors.push(`${kind}.${G} "${ref.name ?? ''}" not found`);
          return undefined;
        }
        return rulesOf(role).some((rule) => ruleAllows(a, rule)) ? describe() : undefined;
      };
      for (const binding of all(RBAC.clusterrolebindings)) {
        const subjects = (binding['subjects'] ?? []) as Subject[];
        const match = subjects.find((s) => appliesTo(s, a.user, ''));
        if (!match) continue;
        const ref = (binding['roleRef'] ?? {}) as RoleRef;
        const allowed = grants(
          store.get(RBAC.clusterroles, undefined, ref.name ?? ''),
          ref,
          () =>
            `RBAC: allowed by ClusterRoleBinding "${binding.metadata.name ?? ''}" of ClusterRole "${ref.name ?? ''}" to ${match.kind ?? ''} "${match.name ?? ''}"`,
        );
        if (allowed) return { allowed: true, reason: allowed };
      }
      if (a.resourceRequest && a.namespace !== '') {
        for (const binding of all(RBAC.rolebindings, a.namespace)) {
          const subjects = (binding['subjects'] ?? []) as Subject[];
          const match = subjects.find((s) => appliesTo(s, a.user, a.namespace));
          if (!match) continue;
          const ref = (binding['roleRef'] ?? {}) as RoleRef;
          const role =
            ref.kind === 'Role'
              ? store.get(RBAC.roles, a.namespace, ref.name ?? '')
              : store.get(RBAC.clusterroles, undefined, ref.name ?? '');
          const allowed = grants(
            role,
            ref,
            () =>
              `RBAC: allowed by RoleBinding "${binding.metadata.name ?? ''}/${a.namespace}" of ${ref.kind ?? ''} "${ref.name ?? ''}" to ${match.kind ?? ''} "${match.name ?? ''}"`,
          );
          if (allowed) return { allowed: true, reason: allowed };
        }
      }
      const reason =
        errors.length === 0
          ? ''
          : errors.length === 1
            ? `RBAC: ${errors[0]}`
            : `RBAC: [${errors.join(', ')}]`;
      return { allowed: false, reason };
    },
  };
}
