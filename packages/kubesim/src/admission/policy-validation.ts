/**
 * What kube-apiserver checks when a ValidatingAdmissionPolicy or its binding is written: every CEL
 * expression must compile (a syntax error or an undeclared name is a 422 naming the field), and a
 * binding needs a policy name and a valid set of validationActions. The sim does not support
 * parameter resources: a policy with `paramKind` is refused here, so it never half-works.
 */
import { compile, CelCompileError } from '../cel/index.js';
import type { StatusCause } from '../status-errors.js';
import type { KObject } from '../types.js';

/** The names a policy's expressions may read (kube-apiserver 1.34, without params/authorizer). */
export const POLICY_VARIABLES = [
  'object',
  'oldObject',
  'request',
  'variables',
  'namespaceObject',
  'params',
];

interface NamedExpression {
  name?: string;
  expression?: string;
  messageExpression?: string;
}

const listOf = (value: unknown): NamedExpression[] =>
  Array.isArray(value) ? (value as NamedExpression[]) : [];

function compiles(field: string, expression: unknown, causes: StatusCause[]): void {
  if (typeof expression !== 'string' || expression.trim() === '') {
    causes.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
    return;
  }
  try {
    compile(expression, POLICY_VARIABLES);
  } catch (error) {
    if (!(error instanceof CelCompileError)) throw error;
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${error.detail}`,
    });
  }
}

export function validatePolicy(object: KObject): StatusCause[] {
  const spec = object.spec ?? {};
  const causes: StatusCause[] = [];
  if (spec['paramKind'] !== undefined) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'spec.paramKind',
      message:
        'Forbidden: the kubemaint sim does not support parameter resources (paramKind); bind the policy without params',
    });
  }
  const policy = spec['failurePolicy'];
  if (policy !== undefined && policy !== 'Fail' && policy !== 'Ignore') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.failurePolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Fail", "Ignore"`,
    });
  }
  listOf(spec['matchConditions']).forEach((c, i) =>
    compiles(`spec.matchConditions[${i}].expression`, c.expression, causes),
  );
  listOf(spec['variables']).forEach((v, i) =>
    compiles(`spec.variables[${i}].expression`, v.expression, causes),
  );
  const validations = listOf(spec['validations']);
  validations.forEach((v, i) => {
    compiles(`spec.validations[${i}].expression`, v.expression, causes);
    if (v.messageExpression !== undefined) {
      compiles(`spec.validations[${i}].messageExpression`, v.messageExpression, causes);
    }
  });
  if (validations.length === 0 && spec['auditAnnotations'] === undefined) {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.validations',
      message: 'Required value: validations or auditAnnotations must contain at least one item',
    });
  }
  return causes;
}

const ACTIONS = ['Deny', 'Warn', 'Audit'];

export function validatePolicyBinding(object: KObject): StatusCause[] {
  const spec = object.spec ?? {};
  const causes: StatusCause[] = [];
  if (typeof spec['policyName'] !== 'string' || spec['policyName'] === '') {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.policyName',
      message: 'Required value',
    });
  }
  if (spec['paramRef'] !== undefined) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'spec.paramRef',
      message: 'Forbidden: the kubemaint sim does not support parameter resources (paramRef)',
    });
  }
  const actions = Array.isArray(spec['validationActions'])
    ? (spec['validationActions'] as unknown[])
    : [];
  if (actions.length === 0) {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.validationActions',
      message: 'Required value: at least one validation action is required',
    });
  }
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a as string)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: `spec.validationActions[${i}]`,
        message: `Unsupported value: ${JSON.stringify(a)}: supported values: "Audit", "Deny", "Warn"`,
      });
    }
  });
  if (actions.includes('Deny') && actions.includes('Warn')) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.validationActions',
      message: `Invalid value: ${JSON.stringify(actions)}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
    });
  }
  return causes;
}
