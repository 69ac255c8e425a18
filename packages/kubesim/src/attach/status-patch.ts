/**
 * What an attached kubelet sends when it writes a status, pure: a strategic merge patch from the status
 * the server last showed to the one the kubelet wants. Only changed fields go out, `null` removes a
 * field the kubelet dropped (a started pod loses its `reason`), conditions merge by type (so what the
 * scheduler or the node lifecycle controller wrote stays), and lists the kubelet owns whole but which
 * would merge by key (`podIPs`, `hostIPs`) are replaced with the `$patch: replace` directive.
 */
import { deepEqual } from '../store-meta.js';

type Status = Record<string, unknown>;

const OWNED_LISTS = new Set(['podIPs', 'hostIPs']);

export function statusPatch(before: Status | undefined, after: Status): Status {
  const base = before ?? {};
  const patch: Status = {};
  for (const [key, value] of Object.entries(after)) {
    if (deepEqual(base[key], value)) continue;
    patch[key] =
      OWNED_LISTS.has(key) && Array.isArray(value)
        ? [...(value as unknown[]), { $patch: 'replace' }]
        : key === 'conditions' && Array.isArray(value)
          ? conditionsPatch(base[key], value as Status[])
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
function conditionsPatch(before: unknown, after: Status[]): Status[] {
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
