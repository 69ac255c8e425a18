/**
 * PersistentVolumeClaims on create: the defaults (Filesystem volume mode, phase Pending), the
 * StorageObjectInUseProtection admission plugin's `kubernetes.io/pvc-protection` finalizer, and the
 * two fields every claim needs, in the apiserver's words.
 */
import type { StatusCause } from './status-errors.js';
import type { KObject } from './types.js';
import { asObj } from './resource-hooks.js';

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

export function claimDefaults(claim: KObject): void {
  const spec = (claim.spec ??= {});
  spec['volumeMode'] ??= 'Filesystem';
  claim.status = { phase: 'Pending', ...claim.status };
  const finalizers = claim.metadata.finalizers ?? [];
  if (!finalizers.includes(PVC_PROTECTION))
    claim.metadata.finalizers = [...finalizers, PVC_PROTECTION];
}

export function claimValidate(claim: KObject): StatusCause[] {
  const spec = asObj(claim.spec);
  const causes: StatusCause[] = [];
  const modes = spec['accessModes'];
  if (!Array.isArray(modes) || modes.length === 0) {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.accessModes',
      message: 'Required value: at least 1 access mode is required',
    });
  }
  if (asObj(asObj(spec['resources'])['requests'])['storage'] === undefined) {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.resources[storage]',
      message: 'Required value',
    });
  }
  return causes;
}
