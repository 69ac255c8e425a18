/**
 * The Node authorizer, as far as the sim has it: a node (`system:node:<name>` in `system:nodes`) may
 * do what the `system:node` rules list, and reach a Lease only in kube-node-lease under its own name
 * (a create is let through by name and checked by NodeRestriction, as upstream). The real one also
 * walks a graph so that a node reads only the secrets, configmaps and pods of its own pods; the sim
 * lets it read any (docs/simulator-differences.md).
 */
import { nodeNameOf } from '../api/identity.js';
import type { AuthzAttributes, Decision } from './attributes.js';
import { NODE_RULES } from './bootstrap-policy.js';
import { ruleAllows } from './rbac-rules.js';

const LEASE_VERBS = ['get', 'create', 'update', 'patch', 'delete'];
const NO_OPINION: Decision = { allowed: false, reason: '' };

export function nodeAuthorize(a: AuthzAttributes): Decision {
  const node = nodeNameOf(a.user);
  if (node === undefined) return NO_OPINION;
  if (a.resourceRequest && a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') {
    if (!LEASE_VERBS.includes(a.verb)) {
      return {
        allowed: false,
        reason: 'can only get, create, update, patch, or delete a node lease',
      };
    }
    if (a.namespace !== 'kube-node-lease') {
      return {
        allowed: false,
        reason: 'can only access leases in the "kube-node-lease" system namespace',
      };
    }
    if (a.verb !== 'create' && a.name !== node) {
      return {
        allowed: false,
        reason: 'can only access node lease with the same name as the requesting node',
      };
    }
    return { allowed: true, reason: '' };
  }
  return NODE_RULES.some((rule) => ruleAllows(a, rule))
    ? { allowed: true, reason: '' }
    : NO_OPINION;
}
