/**
 * The OpenAPI v3 subset a CRD's structural schema may use, as kube-apiserver reads it
 * (apiextensions-apiserver/pkg/apiserver/schema). Schemas are plain JSON from the CRD; these types
 * only name what the pruner, defaulter and validator read.
 */

export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: CelRule[];
}

export type Json = unknown;
export type JsonObject = Record<string, Json>;

export const isObject = (v: Json): v is JsonObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The schema of a map's values: `additionalProperties` when it is a schema. */
export const valueSchema = (s: Schema): Schema | undefined =>
  isObject(s.additionalProperties) ? s.additionalProperties : undefined;

/** A field path as kube-apiserver prints it: `spec.items[0].name`, `spec.labels[a.b]`. */
export const childPath = (parent: string, key: string): string =>
  parent === '' ? key : `${parent}.${key}`;
export const indexPath = (parent: string, index: number | string): string => `${parent}[${index}]`;
