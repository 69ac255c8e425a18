/**
 * `x-kubernetes-validations` of a CRD schema, evaluated the way apiextensions-apiserver does: each
 * rule runs with `self` bound to the value at its schema node, wherever that value is present;
 * a rule that reads `oldSelf` is a transition rule and runs only on an update whose old object has
 * a value at the same place (object fields by name, map values by key, list-map items by their
 * keys; other list items have no old value). A failed rule answers `<path>: Invalid value:
 * "<type>": <message>`, where the message is its `messageExpression`'s non-empty result, else its
 * `message`, else `failed rule: <rule>`; `reason` picks Forbidden/Required/Duplicate instead of
 * Invalid, `fieldPath` names a field below the node. Programs are compiled once per rule text.
 */
import { compile, CelCompileError, CelEvaluationError, type CelProgram } from '../cel/index.js';
import type { StatusCause } from '../status-errors.js';
import type { KObject } from '../types.js';
import {
  childPath,
  indexPath,
  isObject,
  valueSchema,
  type CelRule,
  type Json,
  type Schema,
} from './structural.js';

const programs = new Map<string, CelProgram | CelCompileError>();

function program(expression: string): CelProgram {
  let p = programs.get(expression);
  if (!p) {
    try {
      p = compile(expression, ['self', 'oldSelf']);
    } catch (error) {
      if (!(error instanceof CelCompileError)) throw error;
      p = error;
    }
    programs.set(expression, p);
  }
  if (p instanceof CelCompileError) throw p;
  return p;
}

/** Compile errors of a schema's rules, for the CRD's own validation (`<path>.x-kubernetes-validations[i].rule`). */
export function ruleCompileErrors(schema: Schema, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    try {
      program(rule.rule);
    } catch (error) {
      if (!(error instanceof CelCompileError)) throw error;
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${path}.x-kubernetes-validations[${i}].rule`,
        message: `Invalid value: ${JSON.stringify(rule.rule)}: compilation failed: ${error.detail}`,
      });
    }
  });
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    causes.push(...ruleCompileErrors(sub, `${path}.properties[${name}]`));
  }
  const additional = valueSchema(schema);
  if (additional) causes.push(...ruleCompileErrors(additional, `${path}.additionalProperties`));
  if (schema.items) causes.push(...ruleCompileErrors(schema.items, `${path}.items`));
  return causes;
}

const isTransition = (rule: CelRule) => program(rule.rule).references.has('oldSelf');

/** The schema type as upstream names it in a rule's error (`"object"`, `"string"` …). */
const typeName = (s: Schema): string =>
  s['x-kubernetes-int-or-string'] ? 'integer-or-string' : (s.type ?? 'object');

function ruleError(rule: CelRule, path: string, s: Schema, message: string): StatusCause {
  const field = rule.fieldPath ? `${path}${rule.fieldPath}` : path;
  const type = JSON.stringify(typeName(s));
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return { reason: rule.reason, field, message: `Forbidden: ${message}` };
    case 'FieldValueRequired':
      return { reason: rule.reason, field, message: `Required value: ${message}` };
    case 'FieldValueDuplicate':
      return { reason: rule.reason, field, message: `Duplicate value: ${type}` };
    case undefined:
    default:
      return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${type}: ${message}` };
  }
}

function messageOf(rule: CelRule, activation: Record<string, unknown>): string {
  if (rule.messageExpression) {
    try {
      const text = program(rule.messageExpression).evaluate(activation);
      if (typeof text === 'string' && text.trim() !== '') return text;
    } catch {
      // An expression that fails or is empty falls back to the message, as upstream (which logs it).
    }
  }
  return rule.message?.trim() || `failed rule: ${rule.rule.trim()}`;
}

interface Walk {
  causes: StatusCause[];
  update: boolean;
}

function checkRules(s: Schema, self: Json, old: Json, path: string, w: Walk) {
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    const transition = isTransition(rule);
    if (transition && (!w.update || old === undefined) && !rule.optionalOldSelf) continue;
    const activation: Record<string, unknown> = { self };
    if (transition) activation['oldSelf'] = old;
    try {
      if (!program(rule.rule).evaluateBool(activation)) {
        w.causes.push(ruleError(rule, path, s, messageOf(rule, activation)));
      }
    } catch (error) {
      if (!(error instanceof CelEvaluationError)) throw error;
      w.causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${JSON.stringify(typeName(s))}: ${error.detail}`,
      });
    }
  }
}

/** The old item a list-map item corresponds to (same key fields), if any. */
function oldListItem(s: Schema, item: Json, old: Json): Json {
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(old) || !isObject(item))
    return undefined;
  return old.find((o) => isObject(o) && keys.every((k) => o[k] === item[k]));
}

function walk(s: Schema, self: Json, old: Json, path: string, w: Walk): void {
  if (self === undefined || self === null) return;
  checkRules(s, self, old, path, w);
  if (Array.isArray(self) && s.items) {
    self.forEach((item, i) =>
      walk(s.items!, item, oldListItem(s, item, old), indexPath(path, i), w),
    );
  } else if (isObject(self)) {
    const oldObject = isObject(old) ? old : undefined;
    const additional = valueSchema(s);
    for (const [key, value] of Object.entries(self)) {
      const sub = s.properties?.[key] ?? additional;
      if (sub) walk(sub, value, oldObject?.[key], childPath(path, key), w);
    }
  }
}

/** Failed rules of `object` (the whole custom resource); `old` is the stored object on updates. */
export function validateRules(schema: Schema, object: KObject, old?: KObject): StatusCause[] {
  const w: Walk = { causes: [], update: old !== undefined };
  const { metadata: _m, ...rest } = object;
  // Rules on the root see the whole object (metadata name and namespace included, as upstream).
  const root: Record<string, Json> = {
    ...rest,
    metadata: { name: object.metadata.name, namespace: object.metadata.namespace },
  };
  checkRules(
    schema,
    root,
    old ? { ...old, metadata: { name: old.metadata.name } } : undefined,
    '',
    w,
  );
  const rootChildren: Schema = { ...schema, 'x-kubernetes-validations': [] };
  for (const [key, value] of Object.entries(rest)) {
    const sub = rootChildren.properties?.[key];
    if (sub) walk(sub, value, old?.[key], key, w);
  }
  return w.causes;
}
