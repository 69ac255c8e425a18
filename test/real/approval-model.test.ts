/**
 * Groundwork for issue 15 (ADR 0011): requests and approvals as custom resources, as the real apiserver
 * enforces them. `fixtures/approval-model.yaml` holds the two CRDs and the admission policies; each
 * identity here uses its own credentials (client certificates for people, a TokenRequest token for
 * serve), has RBAC for what it tries, and every refusal must come from admission and name why.
 * The application does not use these resources yet.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { INFRA_K8S, realCluster, refusal, type RealCluster } from '../support/real-cluster.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/approval-model.yaml', import.meta.url));
const NS = 'kubemaint';
const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';
const RBAC = 'rbac.authorization.k8s.io';

const approval = (name: string, approver: string, request = 'reboot-node-a') =>
  JSON.stringify({
    apiVersion: 'kubemaint.io/v1alpha1',
    kind: 'MaintenanceApproval',
    metadata: { name, namespace: NS },
    spec: { request, approver, decision: 'approve' },
  });

describe(
  'MaintenanceRequest / MaintenanceApproval on the real apiserver',
  { timeout: 120_000 },
  () => {
    let cluster: RealCluster;
    let alice: string;
    let mallory: string;
    let serve: string;

    const create = (kubeconfig: string, body: string, dryRun = false) =>
      cluster.kubectl(['create', '-f', '-', ...(dryRun ? ['--dry-run=server'] : [])], {
        kubeconfig,
        input: body,
      });
    const patchStatus = (kubeconfig: string, name: string, status: object) =>
      cluster.kubectl(
        [
          'patch',
          'mr',
          name,
          '-n',
          NS,
          '--subresource=status',
          '--type=merge',
          '-p',
          JSON.stringify({ status }),
        ],
        { kubeconfig },
      );

    before(async () => {
      cluster = await realCluster();
      cluster.kubectl(['apply', '--server-side', '-k', INFRA_K8S]);
      cluster.kubectl(['apply', '--server-side', '-f', FIXTURE]);
      cluster.kubectl([
        'wait',
        '--for=condition=Established',
        '--timeout=30s',
        'crd/maintenancerequests.kubemaint.io',
        'crd/maintenanceapprovals.kubemaint.io',
      ]);
      const rule = (resources: string[], verbs: string[], apiGroups = ['kubemaint.io']) => ({
        apiGroups,
        resources,
        verbs,
      });
      const people = rule(
        ['maintenanceapprovals', 'maintenancerequests'],
        ['create', 'get', 'list'],
      );
      const roles = [
        { name: 'kubemaint-test-approver', rules: [people] },
        {
          name: 'kubemaint-test-mallory',
          rules: [
            people,
            rule(['maintenancerequests/status'], ['get', 'patch', 'update']),
            rule(['nodes'], ['get', 'list', 'patch'], ['']),
          ],
        },
        {
          name: 'kubemaint-test-serve-requests',
          rules: [
            people,
            rule(['maintenanceapprovals', 'maintenancerequests'], ['update', 'patch']),
            rule(['maintenancerequests/status'], ['get', 'patch', 'update']),
          ],
        },
      ];
      const bind = (role: string, subjects: object[]) => ({
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
        subjects,
      });
      const user = (name: string) => ({ apiGroup: RBAC, kind: 'User', name });
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            ...roles.map((r) => ({
              apiVersion: `${RBAC}/v1`,
              kind: 'ClusterRole',
              metadata: { name: r.name },
              rules: r.rules,
            })),
            bind('kubemaint-test-approver', [user('alice'), user('bob')]),
            bind('kubemaint-test-mallory', [user('mallory')]),
            bind('kubemaint-test-serve-requests', [
              { kind: 'ServiceAccount', name: 'kubemaint-serve', namespace: NS },
            ]),
          ],
        }),
      });
      alice = cluster.userKubeconfig('alice');
      mallory = cluster.userKubeconfig('mallory');
      serve = cluster.serviceAccountKubeconfig(NS, 'kubemaint-serve');
      // Policies take effect when the apiserver's policy informer has them: probe with a dry run
      // that only the approvals policy refuses, until it does.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          create(mallory, approval('probe', 'alice'), true);
        } catch (error) {
          if (/may only record an approval in their own name/.test(String(error))) break;
        }
        if (Date.now() > deadline) assert.fail('the approvals policy never took effect');
        await sleep(200);
      }
      create(
        alice,
        JSON.stringify({
          apiVersion: 'kubemaint.io/v1alpha1',
          kind: 'MaintenanceRequest',
          metadata: { name: 'reboot-node-a', namespace: NS },
          spec: { node: 'node-a', action: 'reboot', reason: 'kernel update' },
        }),
      );
    });

    it('alice may approve as alice', () => {
      create(alice, approval('by-alice', 'alice'));
      assert.equal(
        cluster.kubectl(['get', 'mra', 'by-alice', '-n', NS, '-o', 'jsonpath={.spec.approver}'], {
          kubeconfig: alice,
        }),
        'alice',
      );
    });

    it('alice may not approve in bob’s name', () => {
      const why = refusal(() => create(alice, approval('alice-as-bob', 'bob')));
      assert.match(
        why,
        /is forbidden: ValidatingAdmissionPolicy 'kubemaint-approvals-name-their-author'/,
      );
      assert.match(why, /alice may only record an approval in their own name, not as bob/);
    });

    it('mallory may approve neither as alice nor as a Slack user', () => {
      assert.match(
        refusal(() => create(mallory, approval('mallory-as-alice', 'alice'))),
        /mallory may only record an approval in their own name, not as alice/,
      );
      assert.match(
        refusal(() => create(mallory, approval('mallory-as-slack', 'slack:T1/U1'))),
        /mallory may not record an approval for a Slack user \(slack:T1\/U1\): only system:serviceaccount:kubemaint:kubemaint-serve may/,
      );
    });

    it('mallory may not write a request’s status (RBAC allows it, admission does not)', () => {
      const why = refusal(() => patchStatus(mallory, 'reboot-node-a', { state: 'approved' }));
      assert.match(
        why,
        /is forbidden: ValidatingAdmissionPolicy 'kubemaint-request-status-by-serve-only'/,
      );
      assert.match(why, /mallory may not write a MaintenanceRequest's status/);
      // A status sent in the object itself is dropped (status subresource), not stored.
      cluster.kubectl(
        [
          'patch',
          'mr',
          'reboot-node-a',
          '-n',
          NS,
          '--type=merge',
          '-p',
          '{"status":{"state":"approved"}}',
        ],
        { kubeconfig: serve },
      );
      assert.equal(
        cluster.kubectl(['get', 'mr', 'reboot-node-a', '-n', NS, '-o', 'jsonpath={.status}']),
        '',
      );
    });

    it('serve may write status and record a Slack approval, but not a person’s', () => {
      patchStatus(serve, 'reboot-node-a', { state: 'approved', approvals: 2 });
      create(serve, approval('by-slack', 'slack:T1/U1'));
      assert.match(
        refusal(() => create(serve, approval('serve-as-alice', 'alice'))),
        new RegExp(`${SERVE} may only record an approval in their own name, not as alice`),
      );
      assert.match(
        refusal(() => create(serve, approval('serve-bad-slack', 'slack:alice'))),
        /a Slack approver must be slack:<team>\/<user>/,
      );
    });

    it('an approval’s spec cannot change after creation', () => {
      const why = refusal(() =>
        cluster.kubectl(
          [
            'patch',
            'mra',
            'by-slack',
            '-n',
            NS,
            '--type=merge',
            '-p',
            '{"spec":{"decision":"reject"}}',
          ],
          { kubeconfig: serve },
        ),
      );
      // The schema's transition rule answers first (422 Invalid): validation runs before admission
      // policies, so the policy's own immutability rule is a backstop for an edited schema.
      assert.match(why, /spec: Invalid value: "object": a MaintenanceApproval's spec is immutable/);
    });

    it('kubectl get mr shows NODE, ACTION, STATE, APPROVALS, AGE', () => {
      const [header = '', row = ''] = cluster
        .kubectl(['get', 'mr', '-n', NS], { kubeconfig: alice })
        .trim()
        .split('\n');
      assert.match(header, /^NAME\s+NODE\s+ACTION\s+STATE\s+APPROVALS\s+AGE$/);
      assert.match(row, /^reboot-node-a\s+node-a\s+reboot\s+approved\s+2\s+\S+$/);
    });
  },
);
