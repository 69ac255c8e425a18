/**
 * Which requests a policy (`spec.matchConstraints`) and a binding (`spec.matchResources`) apply to,
 * by kube-apiserver's rules: operations, API groups and versions, resources (`x` the resource only,
 * `x/status` that subresource, `x/*` every subresource, `*` every resource without subresources,
 * `*` + `/*` everything), resourceNames, scope, excludeResourceRules, and the namespace and object
 * label selectors (an object matches if its new or its old labels do; cluster-scoped objects pass
 * the namespace selector).
 */
import { fromSelectorObject, matchesLabels, type LabelSelectorObject } from '../selectors.js';
import type { KObject } from '../types.js';
import type { AdmissionAttributes } from './attributes.js';

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: string[];
  resources?: string[];
  resourceNames?: string[];
  scope?: string;
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  resourceRules?: Rule[];
  excludeResourceRules?: Rule[];
}

const has = (list: string[] | undefined, value: string): boolean =>
  (list ?? []).some((v) => v === '*' || v === value);

function ruleMatches(rule: Rule, a: AdmissionAttributes): boolean {
  if (!has(rule.operations, a.operation)) return false;
  if (!has(rule.apiGroups, a.resource.group)) return false;
  if (!has(rule.apiVersions, a.resource.version)) return false;
  const resourceOk = (rule.resources ?? []).some((r) => {
    const [res = '', sub = ''] = r.split('/', 2);
    return (res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource);
  });
  if (!resourceOk) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0 && !rule.resourceNames.includes(a.name))
    return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && a.namespace !== '') return false;
  if (scope === 'Namespaced' && a.namespace === '') return false;
  return true;
}

function selects(
  selector: LabelSelectorObject | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (selector === undefined) return true;
  const parsed = fromSelectorObject(selector);
  return parsed !== undefined && matchesLabels(parsed, labels);
}

/** @param namespaceObject the request's Namespace (undefined for cluster-scoped requests). */
export function matchesResources(
  match: MatchResources | undefined,
  a: AdmissionAttributes,
  namespaceObject: KObject | undefined,
  requireRules: boolean,
): boolean {
  if (!match) return !requireRules;
  if (requireRules || match.resourceRules !== undefined) {
    if (!(match.resourceRules ?? []).some((r) => ruleMatches(r, a))) return false;
  }
  if ((match.excludeResourceRules ?? []).some((r) => ruleMatches(r, a))) return false;
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  const nsLabels = isNamespace
    ? (a.object ?? a.oldObject)?.metadata.labels
    : namespaceObject?.metadata.labels;
  if ((a.namespace !== '' || isNamespace) && !selects(match.namespaceSelector, nsLabels))
    return false;
  const objectSelected =
    selects(match.objectSelector, a.object?.metadata.labels) ||
    (a.oldObject !== undefined && selects(match.objectSelector, a.oldObject.metadata.labels));
  return objectSelected;
}
