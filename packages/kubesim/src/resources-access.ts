/**
 * The kinds that decide who may do what: RBAC (rbac.authorization.k8s.io/v1 Roles, ClusterRoles and
 * their bindings, read by authz/rbac.ts) and ValidatingAdmissionPolicies with their bindings
 * (admissionregistration.k8s.io/v1, read by admission/). Kept apart from resources.ts so that the
 * access-control code owns its registry entries; resources.ts lists them with the other kinds.
 */
import type { ResourceDef } from './resources.js';
import type { StatusCause } from './status-errors.js';
import type { KObject } from './types.js';
import { validatePolicy, validatePolicyBinding } from './admission/policy-validation.js';

const RBAC = 'rbac.authorization.k8s.io';

type Input = Pick<ResourceDef, 'group' | 'plural' | 'kind' | 'namespaced'> & Partial<ResourceDef>;

const entry = (input: Input): ResourceDef => ({
  ...(input.group === RBAC ? { validateName: pathSegmentName } : {}),
  key: `${input.plural}.${input.group}`,
  version: 'v1',
  singular: input.kind.toLowerCase(),
  shortNames: [],
  categories: [],
  subresources: [],
  fields: {},
  indexedFields: [],
  unconditionalUpdate: true,
  createOnUpdate: false,
  defaultPropagation: 'Background',
  ...input,
});

/** RBAC names are path segments (`system:basic-user`): anything but `.`, `..`, `/` and `%`. */
function pathSegmentName(name: string): StatusCause[] {
  const problem =
    name === ''
      ? 'Required value: name or generateName is required'
      : name === '.' || name === '..'
        ? `Invalid value: ${JSON.stringify(name)}: may not be '${name}'`
        : /[/%]/.test(name)
          ? `Invalid value: ${JSON.stringify(name)}: may not contain '${name.includes('/') ? '/' : '%'}'`
          : undefined;
  return problem
    ? [
        {
          reason: problem.startsWith('Required') ? 'FieldValueRequired' : 'FieldValueInvalid',
          field: 'metadata.name',
          message: problem,
        },
      ]
    : [];
}

/** A binding's roleRef is required and (as upstream) cannot change: delete and recreate instead. */
function bindingValidate(object: KObject, old?: KObject): StatusCause[] {
  const ref = object['roleRef'] as { apiGroup?: string; kind?: string; name?: string } | undefined;
  const causes: StatusCause[] = [];
  if (!ref?.name)
    causes.push({ reason: 'FieldValueRequired', field: 'roleRef.name', message: 'Required value' });
  if (ref && ref.apiGroup !== RBAC) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'roleRef.apiGroup',
      message: `Unsupported value: ${JSON.stringify(ref.apiGroup ?? '')}: supported values: "${RBAC}"`,
    });
  }
  if (old && JSON.stringify(old['roleRef']) !== JSON.stringify(object['roleRef'])) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'roleRef',
      message: `Invalid value: ${JSON.stringify(ref)}: cannot change roleRef`,
    });
  }
  return causes;
}

export const ACCESS_RESOURCES: readonly ResourceDef[] = [
  entry({ group: RBAC, plural: 'clusterroles', kind: 'ClusterRole', namespaced: false }),
  entry({
    group: RBAC,
    plural: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    validate: bindingValidate,
  }),
  entry({ group: RBAC, plural: 'roles', kind: 'Role', namespaced: true }),
  entry({
    group: RBAC,
    plural: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    validate: bindingValidate,
  }),
  entry({
    group: 'admissionregistration.k8s.io',
    plural: 'validatingadmissionpolicies',
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    subresources: ['status'],
    categories: ['api-extensions'],
    validate: validatePolicy,
  }),
  entry({
    group: 'admissionregistration.k8s.io',
    plural: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
    categories: ['api-extensions'],
    validate: validatePolicyBinding,
  }),
];
