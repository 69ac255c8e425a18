/**
 * The sim's authorizer chain, in kube-apiserver's order for `--authorization-mode=Node,RBAC`: the
 * `system:masters` group may do anything (the privileged-group authorizer that runs first), a node
 * (`system:node:<name>` in `system:nodes`) gets the `system:node` rules, then RBAC decides.
 */
import type { Store } from '../types.js';
import type { Authorizer } from './attributes.js';
import { NODE_RULES } from './bootstrap-policy.js';
import { createRbacAuthorizer } from './rbac.js';
import { ruleAllows } from './rbac-rules.js';

export * from './attributes.js';
export { ensureBootstrapPolicy } from './bootstrap-policy.js';
export { RBAC } from './rbac.js';

export const MASTERS = 'system:masters';

export function createAuthorizer(store: Store): Authorizer {
  const rbac = createRbacAuthorizer(store);
  return {
    authorize(a) {
      if (a.user.groups.includes(MASTERS)) return { allowed: true, reason: '' };
      const isNode =
        a.user.groups.includes('system:nodes') && a.user.username.startsWith('system:node:');
      if (isNode && NODE_RULES.some((rule) => ruleAllows(a, rule)))
        return { allowed: true, reason: '' };
      return rbac.authorize(a);
    },
  };
}
