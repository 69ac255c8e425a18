/**
 * structured-merge-diff's walks over a value and its type (schema.ts), ported to what kubesim's
 * objects are (plain JSON): the field set a value sets, the comparison of two values (what was
 * added, removed, modified), the merge of an applied configuration into a live object, and the
 * removal of fields. The rules are upstream's (typed/tofieldset.go, compare.go, merge.go,
 * remove.go): scalars and atomic lists and maps are leaves, keyed lists match items by their key
 * fields, sets by value, and the applied value wins a leaf.
 */
import {
  FieldSet,
  fieldElement,
  indexElement,
  keyElement,
  valueElement,
  type Path,
  type PathElement,
} from './field-set.js';
import { schemaNode, typeOf, type SchemaRef, type TypeNode } from './schema.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const DEDUCED: TypeNode = { kind: 'deduced' };
const resolveType = (ref: SchemaRef | undefined): TypeNode => (ref ? typeOf(ref) : DEDUCED);

/** A deduced value's type: a map of deduced values, an atomic list, or a scalar. */
function deduce(t: TypeNode, v: unknown): TypeNode {
  if (t.kind !== 'deduced') return t;
  if (isObj(v)) return { kind: 'map', atomic: false, fields: {}, element: undefined };
  if (Array.isArray(v))
    return {
      kind: 'list',
      atomic: true,
      keys: undefined,
      item: { node: {}, resolve: () => undefined },
    };
  return { kind: 'scalar' };
}

function fieldType(t: Extract<TypeNode, { kind: 'map' }>, key: string): TypeNode {
  return resolveType(t.fields[key] ?? t.element);
}

const itemType = (t: Extract<TypeNode, { kind: 'list' }>): TypeNode => typeOf(t.item);

/** The path element of a list item: its key fields, its value (sets), or its index. */
export function itemElement(
  t: Extract<TypeNode, { kind: 'list' }>,
  item: unknown,
  index: number,
): PathElement {
  if (t.atomic) return indexElement(index);
  if (t.keys === undefined) return valueElement(item);
  const properties = (schemaNode(t.item)['properties'] ?? {}) as Json;
  const key: Json = {};
  for (const k of t.keys) {
    const value = isObj(item) ? item[k] : undefined;
    const fallback = (properties[k] as Json | undefined)?.['default'];
    if (value !== undefined) key[k] = value;
    else if (fallback !== undefined) key[k] = fallback;
  }
  return keyElement(key);
}

/** typed.TypedValue.ToFieldSet: the fields a value sets. */
export function toFieldSet(value: unknown, type: TypeNode): FieldSet {
  const set = new FieldSet();
  const walk = (path: Path, v: unknown, declared: TypeNode): void => {
    const t = deduce(declared, v);
    if (t.kind === 'scalar' || t.kind === 'deduced') return set.insert(path);
    if (t.atomic) return set.insert(path);
    if (t.kind === 'list') {
      if (!Array.isArray(v)) return;
      const seen = new Set<PathElement>();
      v.forEach((item, i) => {
        const pe = itemElement(t, item, i);
        if (seen.has(pe)) return;
        seen.add(pe);
        walk([...path, pe], item, itemType(t));
        set.insert([...path, pe]);
      });
      return;
    }
    if (!isObj(v)) return;
    for (const [key, child] of Object.entries(v)) {
      const pe = fieldElement(key);
      walk([...path, pe], child, fieldType(t, key));
      if (child === null || (isObj(child) && Object.keys(child).length === 0) || !(key in t.fields))
        set.insert([...path, pe]);
    }
  };
  walk([], value, type);
  return set;
}

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** typed.TypedValue.Compare: what changed from `lhs` (live) to `rhs` (new). */
export function compare(lhs: unknown, rhs: unknown, type: TypeNode): Comparison {
  const cmp: Comparison = {
    added: new FieldSet(),
    removed: new FieldSet(),
    modified: new FieldSet(),
  };
  const leaf = (path: Path, l: unknown, r: unknown) => {
    if (l === undefined) cmp.added.insert(path);
    else if (r === undefined) cmp.removed.insert(path);
    else if (!equal(l, r)) cmp.modified.insert(path);
  };
  const walk = (path: Path, l: unknown, r: unknown, declared: TypeNode): void => {
    const lt = deduce(declared, l);
    const rt = deduce(declared, r);
    const t = r === undefined ? lt : rt;
    if (l !== undefined && r !== undefined && lt.kind !== rt.kind) return leaf(path, l, r);
    if (t.kind === 'scalar' || t.kind === 'deduced') return leaf(path, l, r);
    const emptyish = (v: unknown) =>
      v === undefined ||
      v === null ||
      (Array.isArray(v) ? v.length === 0 : isObj(v) && Object.keys(v).length === 0);
    if (t.atomic || (emptyish(l) && emptyish(r))) return leaf(path, l, r);
    if (t.kind === 'list') {
      const index = (v: unknown) => {
        const out = new Map<PathElement, unknown>();
        if (Array.isArray(v)) v.forEach((item, i) => out.set(itemElement(t, item, i), item));
        return out;
      };
      const li = index(l);
      const ri = index(r);
      for (const pe of new Set([...li.keys(), ...ri.keys()]))
        walk([...path, pe], li.get(pe), ri.get(pe), itemType(t));
    } else {
      const lo = isObj(l) ? l : {};
      const ro = isObj(r) ? r : {};
      for (const key of new Set([...Object.keys(lo), ...Object.keys(ro)]))
        walk([...path, fieldElement(key)], lo[key], ro[key], fieldType(t, key));
    }
    if (l === undefined) cmp.added.insert(path);
    else if (r === undefined) cmp.removed.insert(path);
  };
  walk([], lhs, rhs, type);
  return cmp;
}

/** typed.TypedValue.Merge: `rhs` (the applied configuration) into `lhs` (the live object). */
export function merge(lhs: unknown, rhs: unknown, declared: TypeNode): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined || lhs === null || rhs === null) return rhs;
  const lt = deduce(declared, lhs);
  const t = deduce(declared, rhs);
  if (lt.kind !== t.kind || t.kind === 'scalar' || t.kind === 'deduced' || t.atomic) return rhs;
  if (t.kind === 'map') {
    if (!isObj(lhs) || !isObj(rhs)) return rhs;
    const out: Json = {};
    for (const [key, value] of Object.entries(lhs))
      out[key] = key in rhs ? merge(value, rhs[key], fieldType(t, key)) : value;
    for (const [key, value] of Object.entries(rhs)) if (!(key in lhs)) out[key] = value;
    return out;
  }
  if (!Array.isArray(lhs) || !Array.isArray(rhs)) return rhs;
  return mergeList(t, lhs, rhs);
}

/**
 * Keyed lists and sets keep the live order, with the applied items in their own order: an item only
 * the configuration has goes where the configuration puts it (merge.go's visitListItems).
 */
function mergeList(
  t: Extract<TypeNode, { kind: 'list' }>,
  lhs: unknown[],
  rhs: unknown[],
): unknown[] {
  const lPE = lhs.map((item, i) => itemElement(t, item, i));
  const rPE = rhs.map((item, i) => itemElement(t, item, i));
  const lByPE = new Map(lPE.map((pe, i) => [pe, lhs[i]]));
  const rByPE = new Map(rPE.map((pe, i) => [pe, rhs[i]]));
  const shared = rPE.filter((pe) => lByPE.has(pe));
  let next = shared.shift();
  const merged = new Set<PathElement>();
  const out: unknown[] = [];
  const both = (pe: PathElement) => {
    merged.add(pe);
    out.push(merge(lByPE.get(pe), rByPE.get(pe), itemType(t)));
  };
  for (let l = 0, r = 0; l < lPE.length || r < rPE.length;) {
    const lpe = lPE[l];
    if (lpe !== undefined && r < rPE.length) {
      if (lpe === rPE[r]) {
        both(lpe);
        l++;
        r++;
        next = shared.shift();
        continue;
      }
      if (rByPE.has(lpe) && next !== undefined && next !== lpe) {
        l++;
        continue;
      }
    }
    if (lpe !== undefined) {
      if (!rByPE.has(lpe)) {
        out.push(lhs[l]);
        l++;
        continue;
      }
      if (merged.has(lpe)) l++;
    }
    const rpe = rPE[r];
    if (rpe !== undefined) {
      both(rpe);
      r++;
    }
  }
  return out;
}

/** typed.TypedValue.RemoveItems: the value without the fields of `set`. */
export function removeFields(value: unknown, set: FieldSet, declared: TypeNode): unknown {
  const t = deduce(declared, value);
  if (t.kind === 'scalar' || t.kind === 'deduced' || t.atomic) return value;
  if (t.kind === 'list') {
    if (!Array.isArray(value)) return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = itemElement(t, item, i);
      if (set.members.has(pe)) return;
      const child = set.children.get(pe);
      out.push(child ? removeFields(item, child, itemType(t)) : item);
    });
    return out;
  }
  if (!isObj(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const pe = fieldElement(key);
    if (set.members.has(pe)) continue;
    const sub = set.children.get(pe);
    if (!sub) {
      out[key] = child;
      continue;
    }
    // A list or map emptied by the removal goes too, as Go's omitempty drops it upstream.
    const rest = removeFields(child, sub, fieldType(t, key));
    if (!isEmptyContainer(rest) || isEmptyContainer(child)) out[key] = rest;
  }
  return out;
}

const isEmptyContainer = (v: unknown) =>
  Array.isArray(v) ? v.length === 0 : isObj(v) && Object.keys(v).length === 0;
