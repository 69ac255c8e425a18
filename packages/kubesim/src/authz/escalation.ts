/**
 * RBAC's privilege-escalation prevention (pkg/registry/rbac/validation), which the RBAC registry
 * applies to every create and update of a Role, ClusterRole or binding: whoever writes one must
 * already hold every permission it grants (in its namespace; cluster-wide for cluster objects),
 * unless they are `system:masters`, may `escalate` that role, or may `bind` the role a binding names.
 * Otherwise the write is refused with the permissions they lack, each broken down to one group,
 * resource, verb (and name), verbs of the same resource merged, sorted: kube-apiserver's words.
 */
import type { AdmissionAttributes } from '../admission/attributes.js';
import { admissionForbidden } from '../admission/forbidden.js';
import { notFound } from '../status-errors.js';
import type { KObject, Store } from '../types.js';
import { resourceAttributes, type Authorizer } from './attributes.js';
import { RBAC, type RbacAuthorizer } from './rbac.js';
import type { PolicyRule } from './rbac-rules.js';

const G = 'rbac.authorization.k8s.io';

/** One permission per rule: a group, resource and verb (and name), or a URL and verb. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0)
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) {
          out.push({
            apiGroups: [group],
            resources: [resource],
            resourceNames: [name],
            verbs: [verb],
          });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const has = (set: string[] | undefined, value: string): boolean => (set ?? []).includes(value);
const hasAll = (set: string[] | undefined, values: string[] | undefined): boolean =>
  (values ?? []).every((v) => has(set, v));

function resourcesCovered(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (has(owner, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owner, `*${path.slice(slash)}`);
  });
}

const urlCovered = (owner: string, wanted: string): boolean =>
  owner === wanted || (owner.endsWith('*') && wanted.startsWith(owner.replace(/\*+$/, '')));

function covers(owner: PolicyRule, wanted: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, wanted.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, wanted.apiGroups);
  const urls = (wanted.nonResourceURLs ?? []).every((u) =>
    (owner.nonResourceURLs ?? []).some((o) => urlCovered(o, u)),
  );
  const ownerNames = owner.resourceNames ?? [];
  const names =
    ownerNames.length === 0 ||
    ((wanted.resourceNames ?? []).length > 0 && hasAll(ownerNames, wanted.resourceNames));
  return verbs && groups && resourcesCovered(owner.resources, wanted.resources) && urls && names;
}

/** Go's %q of a string list: `["a" "b"]`. */
const goList = (values: readonly string[]): string =>
  `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** rbacv1helpers.CompactString. */
function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goList(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${goList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** CompactRules: permissions on one group/resource(/name) merged into one rule with their verbs. */
function compact(missing: PolicyRule[]): PolicyRule[] {
  const merged = new Map<string, PolicyRule>();
  const rest: PolicyRule[] = [];
  for (const rule of missing) {
    if (rule.nonResourceURLs?.length) {
      rest.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? []]);
    const found = merged.get(key);
    if (found) found.verbs = [...(found.verbs ?? []), ...(rule.verbs ?? [])];
    else merged.set(key, { ...rule, verbs: [...(rule.verbs ?? [])] });
  }
  return [...rest, ...merged.values()];
}

const rulesOf = (o: KObject | undefined): PolicyRule[] =>
  Array.isArray(o?.['rules']) ? (o['rules'] as PolicyRule[]) : [];

/** Throws the 403 (or a 404 for a binding's missing role) when the write would escalate. */
export function checkEscalation(
  a: AdmissionAttributes,
  store: Store,
  authorizer: Authorizer,
  rbac: RbacAuthorizer,
): void {
  if (a.resource.group !== G || a.subresource !== '') return;
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
  if (a.user.groups.includes('system:masters')) return;
  const object = a.object;
  if (!object) return;
  const plural = a.resource.resource;
  const namespace = a.namespace;
  const may = (verb: string, resource: string, name: string) =>
    authorizer.authorize(
      resourceAttributes(a.user, verb, { apiGroup: G, resource, namespace, name }),
    ).allowed;
  let rules: PolicyRule[];
  if (plural === 'roles' || plural === 'clusterroles') {
    if (may('escalate', plural, object.metadata.name ?? '')) return;
    rules = rulesOf(object);
  } else if (plural === 'rolebindings' || plural === 'clusterrolebindings') {
    const ref = (object['roleRef'] ?? {}) as { kind?: string; name?: string };
    const roleResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
    if (may('bind', roleResource, ref.name ?? '')) return;
    const role =
      ref.kind === 'Role'
        ? store.get(RBAC.roles, namespace, ref.name ?? '')
        : store.get(RBAC.clusterroles, undefined, ref.name ?? '');
    if (!role) {
      throw notFound(
        { plural: roleResource, group: G, kind: ref.kind ?? 'ClusterRole' },
        ref.name ?? '',
      );
    }
    rules = rulesOf(role);
  } else {
    return;
  }
  const owner = rbac.rulesFor(a.user, namespace);
  const missing = rules
    .flatMap(breakdown)
    .filter((want) => !owner.some((have) => covers(have, want)));
  if (missing.length === 0) return;
  const lines = [...new Set(compact(missing).map(compactString))].sort();
  throw admissionForbidden(
    a,
    `user "${a.user.username}" (groups=${goList(a.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`,
  );
}
