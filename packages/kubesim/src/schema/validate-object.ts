/**
 * A custom resource's validation, in kube-apiserver's order: the OpenAPI schema first, then the
 * `x-kubernetes-validations` rules, which do not run while the schema reports an error that makes
 * them meaningless (a wrong type, a missing required field, a value too long or not in the enum);
 * one cause, last, then says some rules were not checked (only when the schema has rules). Causes
 * are sorted by field: upstream's order follows Go map iteration, which is random, so no client can
 * rely on it.
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

/** Whether any node of the schema carries `x-kubernetes-validations` (upstream has no CEL validator otherwise). */
function hasRules(s: Schema | undefined): boolean {
  if (!s) return false;
  if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
  const additional =
    typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  return (
    Object.values(s.properties ?? {}).some(hasRules) || hasRules(s.items) || hasRules(additional)
  );
}

export function validateCustomResource(
  schema: Schema,
  object: KObject,
  old?: KObject,
): StatusCause[] {
  const causes = validateAgainstSchema(schema, object);
  const blocked = causes.some((c) => BLOCKING.has(c.reason));
  if (!blocked && hasRules(schema)) causes.push(...validateRules(schema, object, old));
  causes.sort((a, b) => (a.field ?? '').localeCompare(b.field ?? ''));
  if (blocked && hasRules(schema)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message:
        'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  }
  return causes;
}
