/**
 * RBAC's rule matching (k8s.io/kubernetes pkg/apis/rbac/v1 evaluation helpers): verbs and API groups
 * match exactly or by `*`; resources exactly (`nodes/status` for a subresource), by `*` (every
 * resource and subresource) or by `*` + `/<subresource>`; resourceNames, when given, must name the object
 * (so they never allow list/create without a name); nonResourceURLs exactly or by a trailing `*`.
 */
import type { AuthzAttributes } from './attributes.js';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const matchesOrStar = (values: string[] | undefined, value: string): boolean =>
  (values ?? []).some((v) => v === '*' || v === value);

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`),
  );
}

export function ruleAllows(a: AuthzAttributes, rule: PolicyRule): boolean {
  if (!matchesOrStar(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) {
    return (rule.nonResourceURLs ?? []).some(
      (u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))),
    );
  }
  if (!matchesOrStar(rule.apiGroups, a.apiGroup)) return false;
  if (!resourceMatches(rule, a.resource, a.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}
