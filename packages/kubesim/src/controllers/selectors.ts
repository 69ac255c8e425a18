/**
 * Label selector objects (`matchLabels` + `matchExpressions`, as in Deployments, ReplicaSets and PDBs)
 * matched in memory, and rendered as the string syntax the store's `list` takes.
 */
import { fromSelectorObject, matchesLabels } from '../selectors.js';
import type { LabelSelector, NodeSelectorTerm, Taint, Toleration } from './shapes.js';

/**
 * policy/v1 semantics: a missing selector matches nothing, an empty one matches everything. The
 * store's own selector code does the matching (one implementation in the sim, selectors.ts).
 */
export function matchesSelectorObject(
  selector: LabelSelector | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  const requirements = fromSelectorObject(selector);
  return requirements !== undefined && matchesLabels(requirements, labels);
}

/** `{matchLabels:{app:web}}` → `app=web`, for `store.list({ labelSelector })`. */
export function selectorToString(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const req of selector.matchExpressions ?? []) {
    const values = (req.values ?? []).join(',');
    switch (req.operator) {
      case 'In':
        parts.push(`${req.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${req.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(req.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${req.key}`);
        break;
    }
  }
  return parts.join(',');
}

/** core/v1 toleration matching (`Toleration.ToleratesTaint`): empty key + Exists tolerates all. */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (!toleration.key && toleration.operator !== 'Exists') return false;
  if ((toleration.operator ?? 'Equal') === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

export const isTolerated = (tolerations: Toleration[] | undefined, taint: Taint): boolean =>
  (tolerations ?? []).some((toleration) => tolerates(toleration, taint));

/** Required node affinity: any term matches (OR); inside a term every requirement must (AND). */
export function matchesNodeSelectorTerms(
  terms: NodeSelectorTerm[],
  node: { name: string; labels: Record<string, string> },
): boolean {
  return terms.some(
    (term) =>
      (term.matchExpressions ?? []).every((req) => matchesRequirement(req, node.labels[req.key])) &&
      (term.matchFields ?? []).every((req) =>
        matchesRequirement(req, req.key === 'metadata.name' ? node.name : undefined),
      ),
  );
}

function matchesRequirement(
  req: { operator: string; values?: string[] },
  value: string | undefined,
): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}
