/**
 * The ground truth itself: the control plane `npm run real-cluster -- up` starts is the version it was
 * built at, authenticates client certificates and service-account tokens, authorises with RBAC and the
 * Node authorizer (NodeRestriction on), and serves what kubemaint relies on (OpenAPI v3, SelfSubjectReview,
 * ValidatingAdmissionPolicy, the controllers' default service accounts).
 */
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';
import { realCluster, refusal, type RealCluster } from '../support/real-cluster.js';

describe('real control plane', () => {
  let cluster: RealCluster;
  before(async () => {
    cluster = await realCluster();
  });

  it('reports the version it was built at and serves OpenAPI v3', () => {
    const version = JSON.parse(cluster.kubectl(['version', '-o', 'json'])) as {
      serverVersion: { gitVersion: string };
    };
    assert.equal(version.serverVersion.gitVersion, cluster.version);
    const openapi = JSON.parse(cluster.kubectl(['get', '--raw', '/openapi/v3'])) as {
      paths: Record<string, unknown>;
    };
    assert.ok('api/v1' in openapi.paths, 'core/v1 is in the OpenAPI v3 index');
    assert.ok('apis/admissionregistration.k8s.io/v1' in openapi.paths);
  });

  it('authenticates a client certificate as its CN and O (kubectl auth whoami)', () => {
    const kubeconfig = cluster.userKubeconfig('carol', ['sre']);
    const review = JSON.parse(
      cluster.kubectl(['auth', 'whoami', '-o', 'json'], { kubeconfig }),
    ) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    assert.equal(review.status.userInfo.username, 'carol');
    assert.deepEqual(review.status.userInfo.groups, ['sre', 'system:authenticated']);
  });

  it('authorises with RBAC: a user with no binding may not list nodes', () => {
    const kubeconfig = cluster.userKubeconfig('nobody');
    assert.match(
      refusal(() => cluster.kubectl(['get', 'nodes'], { kubeconfig })),
      /forbidden.*"nobody" cannot list resource "nodes"/,
    );
  });

  it('authenticates a service account token from the TokenRequest API', () => {
    cluster.kubectl(['create', 'namespace', 'cp-test'], {});
    cluster.kubectl(['create', 'serviceaccount', 'reader', '-n', 'cp-test']);
    const kubeconfig = cluster.serviceAccountKubeconfig('cp-test', 'reader');
    const who = cluster.kubectl(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], {
      kubeconfig,
    });
    assert.equal(who, 'system:serviceaccount:cp-test:reader');
  });

  it('runs NodeRestriction: a node may not label another node', () => {
    const node = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    });
    const a = cluster.userKubeconfig('system:node:cp-node-a', ['system:nodes']);
    cluster.kubectl(['create', '-f', '-'], {
      kubeconfig: a,
      input: JSON.stringify(node('cp-node-a')),
    });
    cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(node('cp-node-b')) });
    cluster.kubectl(['label', 'node', 'cp-node-a', 'own=yes'], { kubeconfig: a });
    assert.match(
      refusal(() =>
        cluster.kubectl(['label', 'node', 'cp-node-b', 'other=yes'], { kubeconfig: a }),
      ),
      /forbidden/,
    );
    cluster.kubectl(['delete', 'node', 'cp-node-a', 'cp-node-b']);
  });

  it('serves ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) and runs the controllers', async () => {
    const resources = cluster.kubectl([
      'api-resources',
      '--api-group=admissionregistration.k8s.io',
      '-o',
      'name',
    ]);
    assert.match(resources, /^validatingadmissionpolicies\.admissionregistration\.k8s\.io$/m);
    // The service-account controller (kube-controller-manager) gives every namespace its default account.
    for (let i = 0; i < 100; i++) {
      try {
        cluster.kubectl(['get', 'serviceaccount', 'default', '-n', 'cp-test']);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.equal(
      cluster.kubectl(['get', 'serviceaccount', 'default', '-n', 'cp-test', '-o', 'name']).trim(),
      'serviceaccount/default',
    );
    cluster.kubectl(['delete', 'namespace', 'cp-test', '--wait=false']);
  });
});
