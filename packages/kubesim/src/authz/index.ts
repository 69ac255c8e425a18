/**
 * The sim's authorizer chain, in kube-apiserver's order for `--authorization-mode=Node,RBAC`: the
 * `system:masters` group may do anything (the privileged-group authorizer that runs first), a node
 * (`system:node:<name>` in `system:nodes`) gets the `system:node` rules (node-authorizer.ts), then
 * RBAC decides. Refusal reasons of the authorizers that had none to allow are joined by a newline,
 * as upstream's union authorizer joins them.
 */
import type { Store } from '../types.js';
import type { Authorizer, AuthzAttributes } from './attributes.js';
import { nodeAuthorize } from './node-authorizer.js';
import { createRbacAuthorizer } from './rbac.js';

export * from './attributes.js';
export { ensureBootstrapPolicy } from './bootstrap-policy.js';
export { RBAC } from './rbac.js';

export const MASTERS = 'system:masters';

export function createAuthorizer(store: Store): Authorizer {
  const rbac = createRbacAuthorizer(store);
  return {
    authorize(a) {
      if (a.user.groups.includes(MASTERS)) return { allowed: true, reason: '' };
      const reasons: string[] = [];
      for (const decide of [nodeAuthorize, (x: AuthzAttributes) => rbac.authorize(x)]) {
        const decision = decide(a);
        if (decision.allowed) return decision;
        if (decision.reason) reasons.push(decision.reason);
      }
      return { allowed: false, reason: reasons.join('\n') };
    },
  };
}
