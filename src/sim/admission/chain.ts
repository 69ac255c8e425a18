/**
 * The sim's admission chain, in kube-apiserver's order for the plugins it has: NodeRestriction,
 * then ValidatingAdmissionPolicy. (Namespace lifecycle is the store's own check.)
 */
import type { Store } from '../types.js';
import { admitNodeRestriction } from './node-restriction.js';
import { createValidatingAdmission, type ValidatingAdmission } from './validating-admission.js';

export function createAdmission(store: Store): ValidatingAdmission {
  const policies = createValidatingAdmission(store);
  return {
    admit(attributes) {
      admitNodeRestriction(attributes, store);
      return policies.admit(attributes);
    },
  };
}
