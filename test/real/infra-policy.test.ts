/**
 * `infra/k8s` as the real apiserver evaluates it: the RBAC each kubemaint identity is granted and the
 * ValidatingAdmissionPolicies that narrow it, tried by each identity with its own token (the agent's
 * bound to a pod on its node, as its DaemonSet pod holds it). Every refusal must come from the
 * apiserver and name why; every allowed write is the one the component needs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { INFRA_K8S, realCluster, refusal, type RealCluster } from '../support/real-cluster.js';

const NODE_A = 'policy-node-a';
const NODE_B = 'policy-node-b';

describe(
  'infra/k8s RBAC and admission policies on the real apiserver',
  { timeout: 120_000 },
  () => {
    let cluster: RealCluster;
    let agentA: string;
    let unboundAgent: string;
    let serve: string;
    let executor: string;

    before(async () => {
      cluster = await realCluster();
      cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-k', INFRA_K8S]);
      for (const name of [NODE_A, NODE_B]) {
        cluster.kubectl(['apply', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name, labels: { team: 'infra' } },
          }),
        });
      }
      // The agent's pod on node A (no kubelet runs it: the token only needs it bound to the node).
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'agent-on-a', namespace: 'kubemaint' },
          spec: {
            nodeName: NODE_A,
            serviceAccountName: 'kubemaint-agent',
            containers: [{ name: 'agent', image: 'kubemaint-agent:0.1.0' }],
          },
        }),
      });
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'policy-apps' },
        }),
      });
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'app', namespace: 'policy-apps' },
          spec: {
            nodeName: NODE_B,
            containers: [{ name: 'app', image: 'registry.example/app:1' }],
          },
        }),
      });
      agentA = cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-agent', 'agent-on-a');
      unboundAgent = cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-agent');
      serve = cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve');
      executor = cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-executor');
    });
    // Its nodes have no kubelet, so they are never Ready: left behind, they would hold every later
    // suite's approved request back (blockers.maxUnhealthyNodes is 0 by default).
    after(async () => {
      cluster.kubectl(['delete', 'namespace', 'policy-apps', '--ignore-not-found', '--wait=false']);
      await cleanKubemaint(cluster.admin, { nodes: [NODE_A, NODE_B], pods: ['agent-on-a'] });
    });

    describe('the reporter agent', () => {
      it('marks its own node with kubemaint.io/ labels and annotations', () => {
        cluster.kubectl(
          ['label', 'node', NODE_A, 'kubemaint.io/reboot-required=true', '--overwrite'],
          { kubeconfig: agentA },
        );
        cluster.kubectl(
          [
            'annotate',
            'node',
            NODE_A,
            'kubemaint.io/reboot-required-reporter=agent',
            '--overwrite',
          ],
          {
            kubeconfig: agentA,
          },
        );
        const labels = JSON.parse(
          cluster.kubectl(['get', 'node', NODE_A, '-o', 'jsonpath={.metadata.labels}']),
        ) as Record<string, string>;
        assert.equal(labels['kubemaint.io/reboot-required'], 'true');
      });

      it('may not mark another node', () => {
        const why = refusal(() =>
          cluster.kubectl(['label', 'node', NODE_B, 'kubemaint.io/reboot-required=true'], {
            kubeconfig: agentA,
          }),
        );
        assert.match(
          why,
          new RegExp(`the kubemaint agent on ${NODE_A} may not change node ${NODE_B}`),
        );
      });

      it('may not change a label but its own on its own node, kubemaint.io/ ones included', () => {
        for (const label of ['team=attacker', 'kubemaint.io/state=approved']) {
          const why = refusal(() =>
            cluster.kubectl(['label', 'node', NODE_A, label, '--overwrite'], {
              kubeconfig: agentA,
            }),
          );
          assert.match(why, /may only change the kubemaint\.io\/reboot-required label/, label);
        }
        const request = refusal(() =>
          cluster.kubectl(['annotate', 'node', NODE_A, 'kubemaint.io/request={}', '--overwrite'], {
            kubeconfig: agentA,
          }),
        );
        assert.match(request, /may only change its own annotations/);
      });

      it('may not cordon its node (spec) or write its status', () => {
        // A patch, not `kubectl cordon`: kubectl 1.33's cordon prints the refusal but exits 0.
        const cordon = ['patch', 'node', NODE_A, '-p', '{"spec":{"unschedulable":true}}'];
        assert.match(
          refusal(() => cluster.kubectl(cordon, { kubeconfig: agentA })),
          /may not change a Node's spec/,
        );
        const why = refusal(() =>
          cluster.kubectl(
            [
              'patch',
              'node',
              NODE_A,
              '--subresource=status',
              '--type=merge',
              '-p',
              '{"status":{"phase":"Running"}}',
            ],
            { kubeconfig: agentA },
          ),
        );
        assert.match(why, /forbidden/);
      });

      it('is refused with a token not bound to a pod on a node', () => {
        const why = refusal(() =>
          cluster.kubectl(['label', 'node', NODE_A, 'kubemaint.io/reboot-required=true'], {
            kubeconfig: unboundAgent,
          }),
        );
        assert.match(why, /has no authentication\.kubernetes\.io\/node-name claim/);
      });

      it('may not list pods or read secrets (RBAC)', () => {
        assert.match(
          refusal(() => cluster.kubectl(['get', 'pods', '-A'], { kubeconfig: agentA })),
          /cannot list resource "pods"/,
        );
        assert.match(
          refusal(() =>
            cluster.kubectl(['get', 'secrets', '-n', 'kubemaint'], { kubeconfig: agentA }),
          ),
          /cannot list resource "secrets"/,
        );
      });
    });

    describe('serve (the control plane)', () => {
      const evict = (dryRun: boolean) =>
        JSON.stringify({
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: 'app', namespace: 'policy-apps' },
          ...(dryRun ? { deleteOptions: { dryRun: ['All'] } } : {}),
        });

      it('may send a dry-run eviction (the PDB preflight) but not a real one', () => {
        const path = '/api/v1/namespaces/policy-apps/pods/app/eviction';
        const raw = (body: string, query = '') =>
          cluster.kubectl(['create', '--raw', `${path}${query}`, '-f', '-'], {
            kubeconfig: serve,
            input: body,
          });
        assert.match(raw(evict(false), '?dryRun=All'), /"kind":"Status"|Success/);
        const why = refusal(() => raw(evict(false)));
        assert.match(why, /kubemaint's control plane may only send dry-run evictions/);
        assert.equal(
          cluster.kubectl(['get', 'pod', 'app', '-n', 'policy-apps', '-o', 'name']).trim(),
          'pod/app',
        );
      });

      it('may not delete nodes, create pods or read secrets (RBAC)', () => {
        assert.match(
          refusal(() => cluster.kubectl(['delete', 'node', NODE_B], { kubeconfig: serve })),
          /cannot delete resource "nodes"/,
        );
        assert.match(
          refusal(() =>
            cluster.kubectl(['run', 'x', '-n', 'kubemaint', '--image=evil:1'], {
              kubeconfig: serve,
            }),
          ),
          /cannot create resource "pods"/,
        );
        assert.match(
          refusal(() =>
            cluster.kubectl(['get', 'secrets', '-n', 'kubemaint'], { kubeconfig: serve }),
          ),
          /cannot list resource "secrets"/,
        );
      });
    });

    describe('serve watching the pause switch', () => {
      it('may list and watch the kubemaint-pause ConfigMap by name, and no other ConfigMap', () => {
        const get = (...args: string[]) =>
          cluster.kubectl(['get', 'configmaps', '-n', 'kubemaint', ...args], { kubeconfig: serve });
        // What serve's watch sends: a list and a watch with the field selector naming the switch.
        assert.doesNotThrow(() => get('--field-selector', 'metadata.name=kubemaint-pause'));
        assert.match(
          refusal(() => get()),
          /cannot list resource "configmaps"/,
        );
        assert.match(
          refusal(() => get('--field-selector', 'metadata.name=kubemaint-config')),
          /"kubemaint-config" is forbidden: .* cannot list resource "configmaps"/,
        );
      });
    });

    describe('the executor', () => {
      it('may cordon a node and evict its pods, but not create Jobs or delete nodes (RBAC)', () => {
        cluster.kubectl(['cordon', NODE_B], { kubeconfig: executor });
        cluster.kubectl(['uncordon', NODE_B], { kubeconfig: executor });
        assert.match(
          refusal(() =>
            cluster.kubectl(['create', 'job', 'x', '-n', 'kubemaint', '--image=evil:1'], {
              kubeconfig: executor,
            }),
          ),
          /cannot create resource "jobs"/,
        );
        assert.match(
          refusal(() => cluster.kubectl(['delete', 'node', NODE_B], { kubeconfig: executor })),
          /cannot delete resource "nodes"/,
        );
      });
    });
  },
);
