/**
 * The NodeRestriction admission plugin (plugin/pkg/admission/noderestriction), for requests made as a
 * node (`system:node:<name>` in `system:nodes`): a node changes only its own Node (not its taints, nor
 * labels outside the kubelet's set), creates only mirror pods, deletes and evicts only pods bound to
 * it, writes only those pods' status (not their labels), and touches only its own Lease in
 * kube-node-lease. Together with the `system:node` rules (authz/) this is what stops one node's
 * credentials from acting for another. The TokenRequest rule lives in service-account-tokens.ts; the
 * checks a real mirror pod needs beyond its annotation (owner, referenced objects) are not made.
 */
import { nodeNameOf } from '../api/identity.js';
import { R, type KObject, type Store } from '../types.js';
import type { AdmissionAttributes } from './attributes.js';
import { admissionForbidden } from './forbidden.js';

const MIRROR = 'kubernetes.io/config.mirror';
const NODE_LEASES = 'kube-node-lease';

/** Labels a kubelet may set on its Node (k8s.io/kubelet/pkg/apis IsKubeletLabel). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
]);
const KUBELET_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const under = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

function forbiddenLabel(key: string): boolean {
  const ns = key.includes('/') ? (key.split('/')[0] ?? '') : '';
  if (under(ns, 'node-restriction.kubernetes.io')) return true;
  const kubernetes = under(ns, 'kubernetes.io') || under(ns, 'k8s.io');
  const kubelet = KUBELET_LABELS.has(key) || KUBELET_NAMESPACES.some((d) => under(ns, d));
  return kubernetes && !kubelet;
}

function changedLabels(
  now: Record<string, string> = {},
  before: Record<string, string> = {},
): string[] {
  const keys = new Set([...Object.keys(now), ...Object.keys(before)]);
  return [...keys].filter((k) => now[k] !== before[k] && forbiddenLabel(k)).sort();
}

const specOf = (o: KObject | undefined): Record<string, unknown> => o?.spec ?? {};
const boundTo = (pod: KObject | undefined): unknown => specOf(pod)['nodeName'];

/** Throws the plugin's 403 when a node's request goes beyond what NodeRestriction allows. */
export function admitNodeRestriction(a: AdmissionAttributes, store: Store): void {
  const node = nodeNameOf(a.user);
  if (node === undefined) return;
  const deny = (why: string) => {
    throw admissionForbidden(a, why);
  };
  const key =
    a.resource.group === '' ? a.resource.resource : `${a.resource.resource}.${a.resource.group}`;
  if (key === R.nodes) {
    const name = a.name || (a.object?.metadata.name ?? '');
    if (name !== node) deny(`node "${node}" is not allowed to modify node "${name}"`);
    if (a.operation === 'CREATE') {
      const labels = changedLabels(a.object?.metadata.labels);
      if (labels.length > 0)
        deny(`node "${node}" is not allowed to set the following labels: ${labels.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const taints = (o: KObject | undefined) => JSON.stringify(specOf(o)['taints'] ?? []);
      if (taints(a.object) !== taints(a.oldObject))
        deny(`node "${node}" is not allowed to modify taints`);
      const labels = changedLabels(a.object?.metadata.labels, a.oldObject?.metadata.labels);
      if (labels.length > 0) deny(`is not allowed to modify labels: ${labels.join(', ')}`);
    }
    return;
  }
  if (key === R.pods) {
    const current = a.oldObject ?? store.get(R.pods, a.namespace, a.name);
    if (a.subresource === 'status') {
      if (a.operation !== 'UPDATE') deny(`unexpected operation "${a.operation}"`);
      if (boundTo(a.oldObject) !== node) {
        deny(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
      }
      if (
        JSON.stringify(a.object?.metadata.labels ?? {}) !==
        JSON.stringify(a.oldObject?.metadata.labels ?? {})
      ) {
        deny(`node "${node}" cannot update labels through pod status`);
      }
      return;
    }
    if (a.subresource === 'eviction') {
      if (boundTo(current) !== node)
        deny(`node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    if (a.subresource !== '') return;
    if (a.operation === 'CREATE') {
      if (a.object?.metadata.annotations?.[MIRROR] === undefined) {
        deny(
          `pod does not have "${MIRROR}" annotation, node "${node}" can only create mirror pods`,
        );
      }
      if (boundTo(a.object) !== node)
        deny(`node "${node}" can only create pods with spec.nodeName set to itself`);
      return;
    }
    if (a.operation === 'DELETE') {
      if (boundTo(current) !== node)
        deny(`node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    deny(
      `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`,
    );
  }
  if (key === R.leases) {
    if (a.namespace !== NODE_LEASES)
      deny(`can only access leases in the "${NODE_LEASES}" system namespace`);
    const name = a.name || (a.object?.metadata.name ?? '');
    if (name !== node) deny('can only access node lease with the same name as the requesting node');
  }
}
