/**
 * OpenAPI v3 validation of a custom resource against its structural schema, in kube-apiserver's
 * words (kube-openapi's validators as apiextensions-apiserver reports them: `spec.s: Invalid value:
 * "integer": spec.s in body must be of type string: "integer"`, `Too long: may not be more than 4
 * bytes`, `Unsupported value: "c": supported values: "a", "b"`). A value of the wrong type gets
 * that one error and nothing below it is checked, as upstream.
 */
import type { StatusCause } from '../status-errors.js';
import {
  childPath,
  indexPath,
  isObject,
  valueSchema,
  type Json,
  type Schema,
} from './structural.js';

/** Go's `%v`/`%q` of a field error's value, as the apiserver prints it. */
export function goValue(v: Json): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  hostname: (s) =>
    s.length <= 255 &&
    /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$/.test(s),
};

class Collector {
  readonly causes: StatusCause[] = [];
  add(reason: string, field: string, message: string) {
    this.causes.push({ reason, field, message });
  }
  invalid(field: string, value: Json, detail: string) {
    this.add('FieldValueInvalid', field, `Invalid value: ${goValue(value)}: ${detail}`);
  }
}

function typeMatches(s: Schema, v: Json): boolean {
  const actual = typeOf(v);
  if (s['x-kubernetes-int-or-string']) return actual === 'integer' || actual === 'string';
  if (!s.type) return true;
  if (s.type === 'number') return actual === 'number' || actual === 'integer';
  return s.type === actual;
}

function checkString(s: Schema, v: string, path: string, c: Collector) {
  const length = [...v].length;
  if (s.maxLength !== undefined && length > s.maxLength) {
    c.add(
      'FieldValueTooLong',
      path,
      `Too long: may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}`,
    );
  }
  if (s.minLength !== undefined && length < s.minLength) {
    c.invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`);
  }
  if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) {
    c.invalid(path, v, `${path} in body should match '${s.pattern}'`);
  }
  const format = s.format ? FORMATS[s.format] : undefined;
  if (format && !format(v)) {
    c.invalid(path, v, `${path} in body must be of type ${s.format}: ${goValue(v)}`);
  }
}

function checkNumber(s: Schema, v: number, path: string, c: Collector) {
  if (s.multipleOf !== undefined && !Number.isInteger(v / s.multipleOf)) {
    c.invalid(path, v, `${path} in body should be a multiple of ${s.multipleOf}`);
  }
  if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
    const how = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
    c.invalid(path, v, `${path} in body should be ${how} ${s.minimum}`);
  }
  if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
    const how = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
    c.invalid(path, v, `${path} in body should be ${how} ${s.maximum}`);
  }
}

const tooMany = (n: number, max: number) =>
  `Too many: ${n}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`;

function checkArray(s: Schema, v: Json[], path: string, c: Collector) {
  if (s.items) v.forEach((item, i) => checkValue(s.items!, item, indexPath(path, i), c));
  if (s.minItems !== undefined && v.length < s.minItems) {
    c.invalid(path, v.length, `${path} in body should have at least ${s.minItems} items`);
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    c.add('FieldValueTooMany', path, tooMany(v.length, s.maxItems));
  }
  if (s['x-kubernetes-list-type'] === 'set' || s.uniqueItems) {
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const key = JSON.stringify(item);
      if (seen.has(key))
        c.add('FieldValueDuplicate', indexPath(path, i), `Duplicate value: ${goValue(item)}`);
      seen.add(key);
    });
  }
  const mapKeys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] === 'map' && mapKeys) {
    const seen = new Set<string>();
    v.forEach((item, i) => {
      if (!isObject(item)) return;
      const keyObject = Object.fromEntries(mapKeys.map((k) => [k, item[k]]));
      const key = JSON.stringify(keyObject);
      if (seen.has(key))
        c.add('FieldValueDuplicate', indexPath(path, i), `Duplicate value: ${goValue(keyObject)}`);
      seen.add(key);
    });
  }
}

function checkObject(s: Schema, v: Record<string, Json>, path: string, c: Collector) {
  for (const name of s.required ?? []) {
    if (v[name] === undefined) c.add('FieldValueRequired', childPath(path, name), 'Required value');
  }
  const count = Object.keys(v).length;
  if (s.maxProperties !== undefined && count > s.maxProperties) {
    c.add('FieldValueTooMany', path, tooMany(count, s.maxProperties));
  }
  if (s.minProperties !== undefined && count < s.minProperties) {
    c.invalid(path, count, `${path} in body should have at least ${s.minProperties} properties`);
  }
  const additional = valueSchema(s);
  for (const [key, value] of Object.entries(v)) {
    const sub = s.properties?.[key] ?? additional;
    if (sub && value !== undefined) checkValue(sub, value, childPath(path, key), c);
  }
}

function checkValue(s: Schema, v: Json, path: string, c: Collector): void {
  if (v === null && s.nullable) return;
  if (!typeMatches(s, v)) {
    const wanted = s['x-kubernetes-int-or-string'] ? 'integer,string' : (s.type ?? '');
    c.add(
      'FieldValueTypeInvalid',
      path,
      `Invalid value: ${goValue(typeOf(v))}: ${path} in body must be of type ${wanted}: ${goValue(typeOf(v))}`,
    );
    return;
  }
  if (typeof v === 'string') checkString(s, v, path, c);
  else if (typeof v === 'number') checkNumber(s, v, path, c);
  else if (Array.isArray(v)) checkArray(s, v, path, c);
  else if (isObject(v)) checkObject(s, v, path, c);
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    c.add(
      'FieldValueNotSupported',
      path,
      `Unsupported value: ${goValue(v)}: supported values: ${s.enum.map(goValue).join(', ')}`,
    );
  }
}

/** Every schema violation of `object` (the whole custom resource; its metadata is not the schema's). */
export function validateAgainstSchema(schema: Schema, object: Record<string, Json>): StatusCause[] {
  const c = new Collector();
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = object;
  const root: Schema = { ...schema, properties: { ...schema.properties } };
  for (const key of ['metadata', 'apiVersion', 'kind']) delete root.properties![key];
  checkValue(root, rest, '', c);
  return c.causes;
}
