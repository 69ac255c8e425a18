/**
 * What decoding does to a custom resource before anything else sees it (kube-apiserver's
 * structural pruning, null pruning and defaulting): fields the schema does not name are dropped
 * unless `x-kubernetes-preserve-unknown-fields` keeps them, a null in a field that is not
 * `nullable` is dropped, and missing fields with a `default` get it. The dropped paths come back
 * so `fieldValidation=Strict` can refuse them and `Warn` can name them.
 */
import {
  childPath,
  indexPath,
  isObject,
  valueSchema,
  type Json,
  type Schema,
} from './structural.js';

/** `apiVersion`, `kind` and `metadata` of the object itself are never pruned. */
const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function pruneValue(
  value: Json,
  schema: Schema,
  path: string,
  dropped: string[],
  root = false,
): Json {
  if (Array.isArray(value)) {
    if (schema.items)
      value.forEach(
        (v, i) => (value[i] = pruneValue(v, schema.items!, indexPath(path, i), dropped)),
      );
    return value;
  }
  if (!isObject(value)) return value;
  const props = schema.properties;
  const additional = valueSchema(schema);
  const preserve =
    schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  for (const key of Object.keys(value)) {
    const fieldPath = childPath(path, key);
    const sub = props?.[key] ?? additional;
    if (root && ROOT_FIELDS.has(key)) continue;
    if (!sub) {
      if (!preserve) {
        dropped.push(fieldPath);
        delete value[key];
      }
      continue;
    }
    if (value[key] === null && sub.nullable !== true) {
      // A null where the schema allows none is dropped; a default (below) may take its place.
      delete value[key];
      continue;
    }
    value[key] = pruneValue(value[key], sub, fieldPath, dropped);
  }
  for (const [key, sub] of Object.entries(props ?? {})) {
    if (value[key] === undefined && sub.default !== undefined) {
      value[key] = pruneValue(structuredClone(sub.default), sub, childPath(path, key), []);
    }
  }
  return value;
}

/** Prunes and defaults `object` in place against its version's schema; answers the dropped paths. */
export function pruneAndDefault(object: Record<string, Json>, schema: Schema): string[] {
  const dropped: string[] = [];
  pruneValue(object, schema, '', dropped, true);
  return dropped.sort();
}
