/**
 * The executor's RBAC as kube-apiserver judges it (infra/k8s/rbac-executor.yaml): every verb of
 * EXECUTOR_API_VERBS is allowed to its service account, and nothing next to it that it does not use.
 * The unit test (test/unit/infra/k8s-manifests.test.ts) reads the YAML; this asks the apiserver's
 * own authorizer (`kubectl auth can-i --as`, a SubjectAccessReview) after `kubectl apply`.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { EXECUTOR_API_VERBS } from '../../src/adapters/kube/verbs.js';
import { applyAll, manifests } from '../support/apply-infra.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';

const EXECUTOR = 'system:serviceaccount:kubemaint:kubemaint-executor';

describe("the executor's RBAC on the real apiserver", { timeout: 120_000 }, () => {
  let cluster: RealCluster;
  before(async () => {
    cluster = await realCluster();
    await applyAll(cluster.admin, manifests(INFRA_K8S));
  });

  /** `yes`, or the `no` kubectl prints (it exits 1 for no). */
  const canI = (verb: string, resource: string, scope: string[], subresource?: string) => {
    const args = ['auth', 'can-i', verb, resource, ...scope, `--as=${EXECUTOR}`];
    if (subresource) args.push(`--subresource=${subresource}`);
    try {
      return cluster.kubectl(args).trim();
    } catch (error) {
      return String((error as { stdout?: unknown }).stdout ?? error).trim();
    }
  };

  it('allows every verb the executor uses', () => {
    const refused: string[] = [];
    for (const grant of EXECUTOR_API_VERBS) {
      const [resource, subresource] = grant.resource.split('/');
      const qualified = grant.group ? `${resource}.${grant.group}` : resource!;
      const scope = grant.namespace ? ['-n', grant.namespace] : ['--all-namespaces'];
      for (const verb of grant.verbs)
        if (canI(verb, qualified, scope, subresource) !== 'yes')
          refused.push(`${verb} ${grant.resource} (${grant.group || 'core'})`);
    }
    assert.deepEqual(refused, []);
  });

  it('lists PodDisruptionBudgets, and does not watch, get or change them', () => {
    assert.equal(canI('list', 'poddisruptionbudgets.policy', ['--all-namespaces']), 'yes');
    for (const verb of ['watch', 'get', 'create', 'update', 'delete'])
      assert.match(canI(verb, 'poddisruptionbudgets.policy', ['--all-namespaces']), /^no/, verb);
  });
});
