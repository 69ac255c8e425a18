/**
 * An admission plugin's refusal (`admission.NewForbidden`): 403 Forbidden naming the resource (the
 * parent's for a subresource: `pods "p" is forbidden: …` for pods/eviction) and the object.
 */
import { qualifiedResource } from '../status-errors.js';
import { StatusError } from '../types.js';
import type { AdmissionAttributes } from './attributes.js';

export function admissionForbidden(a: AdmissionAttributes, why: string): StatusError {
  const resource = { plural: a.resource.resource, group: a.resource.group, kind: a.kind.kind };
  const name = a.name || (a.object?.metadata.name ?? '');
  const named =
    name === '' ? qualifiedResource(resource) : `${qualifiedResource(resource)} "${name}"`;
  return new StatusError(403, 'Forbidden', `${named} is forbidden: ${why}`, {
    details: {
      name,
      ...(a.resource.group === '' ? {} : { group: a.resource.group }),
      kind: a.resource.resource,
    },
  });
}
