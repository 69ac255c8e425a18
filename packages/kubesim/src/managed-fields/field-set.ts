/**
 * Sets of field paths, as structured-merge-diff keeps them and `metadata.managedFields` writes them
 * (FieldsV1): a trie of path elements, `f:<field>`, `k:<key fields as JSON>` (an item of a keyed
 * list), `v:<value as JSON>` (an item of a set), `i:<index>`; a node that is itself in the set and
 * has children is marked `".": {}`.
 */
type Json = Record<string, unknown>;

/** A path element, in its FieldsV1 spelling. */
export type PathElement = string;
export type Path = readonly PathElement[];

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;
export const indexElement = (index: number): PathElement => `i:${index}`;
/** Key fields sorted by name, as structured-merge-diff sorts a key's field list. */
export function keyElement(fields: Readonly<Record<string, unknown>>): PathElement {
  const sorted = Object.keys(fields).sort();
  return `k:${JSON.stringify(Object.fromEntries(sorted.map((k) => [k, fields[k]])))}`;
}

/** fieldpath.Path.String(): `.spec.containers[name="web"].image`, `[="a"]`, `[0]`. */
export function pathText(path: Path): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      if (pe.startsWith('f:')) return `.${body}`;
      if (pe.startsWith('i:')) return `[${body}]`;
      if (pe.startsWith('v:')) return `[=${body}]`;
      const key = JSON.parse(body) as Json;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  insert(path: Path): void {
    const [head, ...rest] = path;
    if (head === undefined) return;
    if (rest.length === 0) {
      this.members.add(head);
      return;
    }
    let child = this.children.get(head);
    if (!child) {
      child = new FieldSet();
      this.children.set(head, child);
    }
    child.insert(rest);
  }

  empty(): boolean {
    return this.members.size === 0 && [...this.children.values()].every((c) => c.empty());
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    for (const m of other.members) out.members.add(m);
    for (const [pe, child] of other.children) {
      const mine = out.children.get(pe);
      out.children.set(pe, mine ? mine.union(child) : child.copy());
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, child] of this.children) {
      const theirs = other.children.get(pe);
      const rest = theirs ? child.difference(theirs) : child.copy();
      if (!rest.empty()) out.children.set(pe, rest);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, child] of this.children) {
      const theirs = other.children.get(pe);
      if (!theirs) continue;
      const both = child.intersection(theirs);
      if (!both.empty()) out.children.set(pe, both);
    }
    return out;
  }

  /** Without the subtrees rooted at `paths` (structured-merge-diff's exclude filter). */
  without(paths: readonly Path[]): FieldSet {
    const out = this.copy();
    for (const path of paths) out.drop(path);
    return out;
  }

  private drop(path: Path): void {
    const [head, ...rest] = path;
    if (head === undefined) return;
    if (rest.length === 0) {
      this.members.delete(head);
      this.children.delete(head);
      return;
    }
    const child = this.children.get(head);
    child?.drop(rest);
    if (child?.empty()) this.children.delete(head);
  }

  /** Every member path, in a stable order. */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [];
    const elements = [...new Set([...this.members, ...this.children.keys()])].sort();
    for (const pe of elements) {
      if (this.members.has(pe)) out.push([...prefix, pe]);
      const child = this.children.get(pe);
      if (child) out.push(...child.paths([...prefix, pe]));
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, child] of this.children) out.children.set(pe, child.copy());
    return out;
  }

  toFieldsV1(): Json {
    const out: Json = {};
    const elements = [...new Set([...this.members, ...this.children.keys()])].sort();
    for (const pe of elements) {
      const child = this.children.get(pe);
      const inner = child && !child.empty() ? child.toFieldsV1() : {};
      out[pe] =
        this.members.has(pe) && Object.keys(inner).length > 0 ? { '.': {}, ...inner } : inner;
    }
    return out;
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    if (fields === null || typeof fields !== 'object') return set;
    for (const [pe, value] of Object.entries(fields as Json)) {
      if (pe === '.') continue;
      const inner = (value ?? {}) as Json;
      const keys = Object.keys(inner);
      if (keys.length === 0 || '.' in inner) set.members.add(pe);
      if (keys.some((k) => k !== '.')) set.children.set(pe, FieldSet.fromFieldsV1(inner));
    }
    return set;
  }
}
