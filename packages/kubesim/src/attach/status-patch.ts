/**
 * What an attached kubelet sends when it writes a status, pure: a strategic merge patch from the status
 * the server last showed to the one the kubelet wants. Only changed fields go out, `null` removes a
 * field the kubelet dropped (a started pod loses its `reason`), conditions merge by type and only the
 * changed ones go out, as the real kubelet's two-way merge patch does (so what the scheduler, the node
 * lifecycle controller or an admin tool wrote stays, and one the tool removed meanwhile is not put back
 * from the kubelet's older copy), and lists the kubelet owns whole but which
 * would merge by key (`podIPs`, `hostIPs`) are replaced with the `$patch: replace` directive.
 */
import { deepEqual } from '../store-meta.js';

type Status = Record<string, unknown>;

const OWNED_LISTS = new Set(['podIPs', 'hostIPs']);

type Condition = { type?: unknown };

/** The conditions of `after` (of the writer's own types, when given) that differ from `before`'s. */
function changedConditions(
  before: unknown,
  after: Condition[],
  own: ReadonlySet<string> | undefined,
): Condition[] {
  const old = new Map(
    (Array.isArray(before) ? (before as Condition[]) : []).map((c) => [c.type, c]),
  );
  return after.filter((c) => (!own || own.has(String(c.type))) && !deepEqual(old.get(c.type), c));
}

/**
 * `ownConditions`: the condition types the writer owns (a kubelet's on its Node); others in `after`
 * are its copy of someone else's, never sent.
 */
export function statusPatch(
  before: Status | undefined,
  after: Status,
  ownConditions?: ReadonlySet<string>,
): Status {
  const base = before ?? {};
  const patch: Status = {};
  for (const [key, value] of Object.entries(after)) {
    if (deepEqual(base[key], value)) continue;
    if (key === 'conditions' && Array.isArray(value)) {
      const changed = changedConditions(base[key], value as Condition[], ownConditions);
      if (changed.length > 0) patch[key] = withDroppedFields(base[key], changed);
      continue;
    }
    patch[key] =
      OWNED_LISTS.has(key) && Array.isArray(value)
        ? [...(value as unknown[]), { $patch: 'replace' }]
        : value;
  }
  for (const key of Object.keys(base)) {
    if (!(key in after)) patch[key] = null;
  }
  return patch;
}

/**
 * Conditions merge by type, so a field the kubelet dropped from one (a `reason` once Ready is True)
 * would stay on the server: it goes out as `null`, as Kubernetes' two-way merge patch sends it.
 */
function withDroppedFields(before: unknown, after: Status[]): Status[] {
  const old = Array.isArray(before) ? (before as Status[]) : [];
  return after.map((condition) => {
    const previous = old.find((c) => c['type'] === condition['type']);
    if (!previous) return condition;
    const dropped = Object.keys(previous).filter((k) => !(k in condition));
    return { ...condition, ...Object.fromEntries(dropped.map((k) => [k, null])) };
  });
}

/**
 * Whether `candidate` is at least as new as `known`. resourceVersions are opaque to clients, but
 * etcd's (and the sim's) are integers in commit order; with anything else every candidate counts
 * as new, which is what an informer does.
 */
export function isNotOlder(candidate: string | undefined, known: string | undefined): boolean {
  if (!candidate || !known || !/^\d+$/.test(candidate) || !/^\d+$/.test(known)) return true;
  return BigInt(candidate) >= BigInt(known);
}
