/**
 * The RBAC objects every kube-apiserver creates at start (plugin/pkg/auth/authorizer/rbac/bootstrappolicy),
 * the ones kubectl and kubemaint's tests rely on: `cluster-admin` (bound to `system:masters`),
 * `system:basic-user` (whoami and can-i for everyone authenticated), `system:discovery` and
 * `system:public-info-viewer`. Written into the store when the API server starts, if missing, with
 * the `kubernetes.io/bootstrapping: rbac-defaults` label upstream puts on them.
 *
 * `system:node` is the rule set kube-apiserver's Node authorizer and NodeRestriction narrow down per
 * node; the sim grants it to the `system:nodes` group (node-authorizer.ts) without the narrowing.
 */
import type { Store } from '../types.js';
import type { PolicyRule } from './rbac-rules.js';
import { RBAC } from './rbac.js';

const G = 'rbac.authorization.k8s.io';
const LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const ANNOTATIONS = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});
const READ = ['get', 'list', 'watch'];

export const NODE_RULES: readonly PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch'], [''], ['nodes']),
  rule(['create', 'update', 'patch'], [''], ['events']),
  rule(['create', 'update', 'patch'], ['events.k8s.io'], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['secrets', 'configmaps']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes', 'endpoints']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
];

const CLUSTER_ROLES: Record<string, PolicyRule[]> = {
  'cluster-admin': [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ],
  'system:basic-user': [
    rule(
      ['create'],
      ['authorization.k8s.io'],
      ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    ),
    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ],
  'system:discovery': [
    {
      verbs: ['get'],
      nonResourceURLs: [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/healthz',
        '/livez',
        '/openapi',
        '/openapi/*',
        '/readyz',
        '/version',
        '/version/',
      ],
    },
  ],
  'system:public-info-viewer': [
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
  ],
  'system:node': [...NODE_RULES],
};

const CLUSTER_ROLE_BINDINGS: Record<string, string[]> = {
  'cluster-admin': ['system:masters'],
  'system:basic-user': ['system:authenticated'],
  'system:discovery': ['system:authenticated'],
  'system:public-info-viewer': ['system:authenticated', 'system:unauthenticated'],
};

/** Creates the bootstrap roles and bindings that are missing; changes nothing that exists. */
export function ensureBootstrapPolicy(store: Store): void {
  const opts = { actor: 'controller/rbac-bootstrap' };
  const metadata = (name: string) => ({ name, labels: LABELS, annotations: ANNOTATIONS });
  for (const [name, rules] of Object.entries(CLUSTER_ROLES)) {
    if (store.get(RBAC.clusterroles, undefined, name)) continue;
    store.create(RBAC.clusterroles, { metadata: metadata(name), rules }, opts);
  }
  for (const [name, groups] of Object.entries(CLUSTER_ROLE_BINDINGS)) {
    if (store.get(RBAC.clusterrolebindings, undefined, name)) continue;
    store.create(
      RBAC.clusterrolebindings,
      {
        metadata: metadata(name),
        roleRef: { apiGroup: G, kind: 'ClusterRole', name },
        subjects: groups.map((group) => ({ apiGroup: G, kind: 'Group', name: group })),
      },
      opts,
    );
  }
}
