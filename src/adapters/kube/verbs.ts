/**
 * The API verbs the kube adapter uses, per resource (`<plural>` or `<plural>/<sub>` plus its group),
 * written next to the code that uses them so RBAC cannot drift: test/unit/executor/rbac.test.ts reads
 * infra/k8s/rbac-executor.yaml and checks it grants exactly EXECUTOR_API_VERBS.
 */
/** The namespace the infra/ manifests install kubemaint into; the executor's default. */
export const KUBEMAINT_NAMESPACE = 'kubemaint';

export interface ResourceVerbs {
  /** API group; '' is the core group. */
  group: string;
  resource: string;
  verbs: readonly string[];
  /**
   * Where the grant applies: a namespace (a Role there, the least privilege) or, when absent, the
   * whole cluster (a ClusterRole: nodes are cluster-scoped, and a node's pods live in any namespace).
   */
  namespace?: string;
}

/**
 * What the executor Job does: read and patch its Node (cordon and uncordon) and its status (the
 * maintenance conditions), list and watch the node's
 * pods in every namespace, evict them (or delete them for disable-eviction / force; one at a time
 * under each PodDisruptionBudget, which it lists), hold a Lease slot
 * in the kubemaint namespace, read its MaintenanceRequest by name and replace its status there
 * (progress, verifying or failed: admission-requests.yaml narrows what it may write; ADR 0012), and
 * record Events on the Node (namespace `default`).
 */
export const EXECUTOR_API_VERBS: readonly ResourceVerbs[] = [
  { group: '', resource: 'nodes', verbs: ['get', 'patch'] },
  // The node's maintenance conditions (node-conditions.ts), a strategic-merge patch of its status.
  { group: '', resource: 'nodes/status', verbs: ['patch'] },
  { group: '', resource: 'pods', verbs: ['delete', 'list', 'watch'] },
  { group: '', resource: 'pods/eviction', verbs: ['create'] },
  // Which pods one PDB guards: their evictions go one at a time (core/eviction-lanes.ts).
  { group: 'policy', resource: 'poddisruptionbudgets', verbs: ['list'] },
  // Events on cluster-scoped objects live in `default`, as the kubelet's do.
  { group: '', resource: 'events', verbs: ['create'], namespace: 'default' },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['create', 'get', 'update'],
    namespace: KUBEMAINT_NAMESPACE,
  },
  // requestStore(): get reads the request, replaceNamespacedCustomObjectStatus is a PUT (update).
  {
    group: 'kubemaint.io',
    resource: 'maintenancerequests',
    verbs: ['get'],
    namespace: KUBEMAINT_NAMESPACE,
  },
  {
    group: 'kubemaint.io',
    resource: 'maintenancerequests/status',
    verbs: ['update'],
    namespace: KUBEMAINT_NAMESPACE,
  },
];
