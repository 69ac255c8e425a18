/**
 * The sim's admission chain, in kube-apiserver's order for the plugins it has: NodeRestriction,
 * Priority (one default PriorityClass; with it, the registry's refusal to delete a system class),
 * then ValidatingAdmissionPolicy. (Namespace lifecycle is the store's own check.) RBAC's escalation
 * check belongs to the RBAC registry, not to admission; it runs here first, on the same attributes,
 * which is the one place every write of a Role or binding passes through.
 */
import type { Store } from '../types.js';
import { createAuthorizer } from '../authz/index.js';
import { checkEscalation } from '../authz/escalation.js';
import { createRbacAuthorizer } from '../authz/rbac.js';
import { admitNodeRestriction } from './node-restriction.js';
import { admitPriorityClassRequest } from '../priority.js';
import { createValidatingAdmission, type ValidatingAdmission } from './validating-admission.js';

export function createAdmission(store: Store): ValidatingAdmission {
  const policies = createValidatingAdmission(store);
  const authorizer = createAuthorizer(store);
  const rbac = createRbacAuthorizer(store);
  return {
    admit(attributes) {
      checkEscalation(attributes, store, authorizer, rbac);
      admitNodeRestriction(attributes, store);
      admitPriorityClassRequest(attributes, store);
      return policies.admit(attributes);
    },
  };
}
