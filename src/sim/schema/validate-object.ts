/**
 * A custom resource's validation, in kube-apiserver's order: the OpenAPI schema first, then the
 * `x-kubernetes-validations` rules, which do not run while the schema reports an error that makes
 * them meaningless (a wrong type, a missing required field, a value too long or not in the enum);
 * one cause then says some rules were not checked. Causes are sorted by field: upstream's order
 * follows Go map iteration, which is random, so no client can rely on it.
 */
import type { StatusCause } from '../status-errors.js';
import type { KObject } from '../types.js';
import { validateRules } from './cel-rules.js';
import type { Schema } from './structural.js';
import { validateAgainstSchema } from './validate-schema.js';

const BLOCKING = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

export function validateCustomResource(
  schema: Schema,
  object: KObject,
  old?: KObject,
): StatusCause[] {
  const causes = validateAgainstSchema(schema, object);
  if (causes.some((c) => BLOCKING.has(c.reason))) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  } else {
    causes.push(...validateRules(schema, object, old));
  }
  return causes.sort((a, b) => (a.field ?? '').localeCompare(b.field ?? ''));
}
