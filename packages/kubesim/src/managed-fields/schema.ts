/**
 * The types server-side apply merges and tracks by, read from OpenAPI as kube-openapi's schemaconv
 * reads them for structured-merge-diff: objects are granular maps (atomic with
 * `x-kubernetes-map-type: atomic`), lists are atomic unless `x-kubernetes-list-type` (or the older
 * `x-kubernetes-patch-strategy: merge` with its merge key) makes them sets or keyed maps, and what
 * has no type (`x-kubernetes-preserve-unknown-fields`, embedded JSON) is deduced from its value.
 */
type Json = Record<string, unknown>;

export type TypeNode =
  | { kind: 'scalar' }
  | { kind: 'deduced' }
  | {
      kind: 'list';
      atomic: boolean;
      /** Keyed list (`x-kubernetes-list-type: map`); a non-atomic list without keys is a set. */
      keys: readonly string[] | undefined;
      item: SchemaRef;
    }
  | {
      kind: 'map';
      atomic: boolean;
      fields: Readonly<Record<string, SchemaRef>>;
      /** additionalProperties: the type of keys that are not fields. */
      element: SchemaRef | undefined;
    };

/** A schema node and how its `$ref`s resolve (the document it came from). */
export interface SchemaRef {
  node: Json;
  resolve: (ref: string) => Json | undefined;
}

const DEDUCED: TypeNode = { kind: 'deduced' };
const SCALAR: TypeNode = { kind: 'scalar' };
const cache = new WeakMap<Json, TypeNode>();

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The node a `$ref` (or kube's `allOf: [{$ref}]` wrapper) stands for. */
function deref(s: SchemaRef): SchemaRef {
  let node = s.node;
  for (let hops = 0; hops < 16; hops++) {
    const allOf = node['allOf'];
    const ref =
      typeof node['$ref'] === 'string'
        ? node['$ref']
        : Array.isArray(allOf) && allOf.length === 1 && isObj(allOf[0])
          ? (allOf[0]['$ref'] as string | undefined)
          : undefined;
    if (!ref) break;
    const target = s.resolve(ref);
    if (!target) return { node: {}, resolve: s.resolve };
    node = target;
  }
  return { node, resolve: s.resolve };
}

function listType(node: Json): { atomic: boolean; keys: string[] | undefined } {
  const type = node['x-kubernetes-list-type'];
  if (type === 'atomic') return { atomic: true, keys: undefined };
  if (type === 'set') return { atomic: false, keys: undefined };
  if (type === 'map') {
    const keys = node['x-kubernetes-list-map-keys'];
    return { atomic: false, keys: Array.isArray(keys) ? keys.map(String) : [] };
  }
  const strategy = node['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = node['x-kubernetes-patch-merge-key'];
    return { atomic: false, keys: typeof key === 'string' ? [key] : undefined };
  }
  return { atomic: true, keys: undefined };
}

export function typeOf(ref: SchemaRef): TypeNode {
  const s = deref(ref);
  const cached = cache.get(s.node);
  if (cached) return cached;
  const node = s.node;
  const child = (n: unknown): SchemaRef => ({ node: isObj(n) ? n : {}, resolve: s.resolve });
  let type: TypeNode;
  if (node['x-kubernetes-int-or-string'] === true) type = SCALAR;
  else if (node['type'] === 'array') {
    type = { kind: 'list', ...listType(node), item: child(node['items']) };
  } else if (
    node['type'] === 'object' ||
    isObj(node['properties']) ||
    node['additionalProperties'] !== undefined
  ) {
    const properties = isObj(node['properties']) ? node['properties'] : {};
    const extra = node['additionalProperties'];
    const fields = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, child(v)]));
    const untyped =
      Object.keys(fields).length === 0 &&
      (extra === undefined ||
        extra === true ||
        node['x-kubernetes-preserve-unknown-fields'] === true);
    type = untyped
      ? DEDUCED
      : {
          kind: 'map',
          atomic: node['x-kubernetes-map-type'] === 'atomic',
          fields,
          element: isObj(extra)
            ? child(extra)
            : extra === true
              ? { node: {}, resolve: s.resolve }
              : undefined,
        };
  } else if (['string', 'integer', 'number', 'boolean'].includes(String(node['type'])))
    type = SCALAR;
  else type = DEDUCED;
  cache.set(s.node, type);
  return type;
}

/** The raw schema a ref stands for (a key field's `default`). */
export const schemaNode = (ref: SchemaRef): Json => deref(ref).node;
