/**
 * Undrainable nodes on the sim (issue 18; AKS undrainableNodeBehavior, kured --force-reboot): the
 * real tick and the real executor (in process) against a PDB that never allows a disruption.
 * `drain.onTimeout: uncordon` gives the node back schedulable and ends the request `skipped` with the
 * pod that refused; `force` keeps the node cordoned with a request that says until when, tells
 * people once, and deletes the pod at the second deadline, then reboots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import type { ExecutorSettings } from '../../../src/app/executor/settings.js';
import { R, type KObject } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import {
  executorSettings,
  realJobFor,
  requestOn,
  runJobsInProcess,
  type InProcessJobs,
} from '../../support/in-process-executor.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const MIN = 60_000;

describe('drain.onTimeout on the sim', () => {
  let sim: TestSim;
  let jobs: InProcessJobs | undefined;
  before(async () => {
    sim = await startTestSim({
      scenario: 'fleet',
      nodes: 3,
      podsPerNode: 3,
      scale: 100,
      delays: { jobPodRunMs: 24 * 3_600_000, rebootIssueDelayMs: 60_000 },
    });
    for (const n of sim.store.list(R.nodes))
      sim.store.mutate(R.nodes, undefined, n.metadata.name ?? '', (o) => {
        delete o.metadata.labels?.['kubemaint.io/reboot-required'];
      });
  });
  after(async () => {
    await jobs?.stop();
    await sim.close();
  });

  /** An app pod on `node` whose PDB never allows a disruption. */
  const guard = (node: string): KObject => {
    const pod = sim.store
      .list(R.pods)
      .find(
        (p) =>
          p.spec?.['nodeName'] === node && p.metadata.labels?.['app']?.startsWith('app-') === true,
      )!;
    const app = pod.metadata.labels!['app']!;
    sim.store.mutate(R.pdbs, pod.metadata.namespace, app, (pdb) => {
      pdb.spec = { selector: { matchLabels: { app } }, minAvailable: 100 };
    });
    return pod;
  };

  /** The PDB of `pod`'s app as the fleet made it: one disruption at a time. */
  const unguard = (pod: KObject): void => {
    const app = pod.metadata.labels!['app']!;
    sim.store.mutate(R.pdbs, pod.metadata.namespace, app, (pdb) => {
      pdb.spec = { selector: { matchLabels: { app } }, maxUnavailable: 1 };
    });
  };

  const tickUntil = <T>(
    deps: ReturnType<typeof testControlDeps>,
    what: string,
    probe: () => T | undefined | false,
  ) =>
    waitFor(
      what,
      async () => {
        await runTick(deps);
        return probe();
      },
      60_000,
    );

  const run = async (node: string, drain: Partial<ExecutorSettings['drain']>) => {
    const base = executorSettings(1);
    // The drain waits after the cordon, so the test can take the PDB's headroom away then (with
    // none at dispatch, the PDB preflight would hold the request back before any cordon).
    const exec = {
      ...base,
      drain: { ...base.drain, timeoutMs: 10 * MIN, ...drain },
      delays: { beforeDrainMs: 5 * MIN, beforeRebootMs: 0 },
    };
    await jobs?.stop();
    jobs = runJobsInProcess(sim, exec);
    const deps = testControlDeps(sim, {
      settings: testControlSettings({ jobFor: realJobFor(exec) }),
    });
    const asked = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(asked.ok, asked.message);
    await approveRequest(deps, asked.request!.id, alice);
    await tickUntil(deps, 'the cordon', () => {
      const r = requestOn(sim, node);
      if (r?.blockedReasons?.length) throw new Error(r.blockedReasons.join('; '));
      return r?.cordonedByUs === true;
    });
    return deps;
  };
  it('uncordon: the node is schedulable again and the request skipped, naming the pod that refused', async () => {
    const node = sim.store.list(R.nodes)[0]!.metadata.name!;
    const deps = await run(node, { onTimeout: 'uncordon' });
    const pod = guard(node);
    const ended = await tickUntil(deps, 'the request to end', () => {
      const r = requestOn(sim, node);
      return r && r.state !== 'approved' && r.state !== 'running' ? r : undefined;
    });
    assert.equal(ended.state, 'skipped', ended.failure);
    assert.match(
      ended.failure ?? '',
      new RegExp(`pods that refused: ${pod.metadata.namespace}/${pod.metadata.name} — PDB`),
    );
    assert.match(ended.failure ?? '', /node uncordoned/);
    const after = sim.store.get(R.nodes, undefined, node)!;
    assert.notEqual(after.spec?.['unschedulable'], true, 'schedulable again');
    assert.equal(jobs!.hostCalls.length, 0, 'nothing ran on the host');
    assert.ok(sim.store.get(R.pods, pod.metadata.namespace, pod.metadata.name ?? ''), 'pod kept');
    // The executor cannot tell Slack or relabel the node: the control plane's next passes do, once.
    await runTick(deps);
    await runTick(deps);
    const told = deps.events.filter(
      (e) =>
        e.node === node && /^skipped by the executor: .*pods that refused/.test(e.reason ?? ''),
    );
    assert.equal(told.length, 1, 'people are told once that the executor skipped the node');
    assert.equal(
      sim.store.get(R.nodes, undefined, node)?.metadata.labels?.['kubemaint.io/state'],
      'skipped',
      'the state label follows the request',
    );
    unguard(pod);
  });

  it('force: cordoned with a request that says until when, told once, then the pod is deleted and the node reboots', async () => {
    const node = sim.store.list(R.nodes)[1]!.metadata.name!;
    const deps = await run(node, { onTimeout: 'force', forceAfterMs: 20 * MIN });
    const pod = guard(node);
    const timedOut = await tickUntil(deps, 'the second deadline on the request', () => {
      const r = requestOn(sim, node);
      return r?.drain?.forceAt ? r : undefined;
    });
    assert.equal(timedOut.state, 'running');
    assert.equal(sim.store.get(R.nodes, undefined, node)?.spec?.['unschedulable'], true);
    assert.match(
      timedOut.drain?.message ?? '',
      /drain timed out: the remaining pods are deleted at/,
    );
    const told = await tickUntil(deps, 'people to be told', () =>
      deps.events.find((e) => e.node === node && /drain timed out/.test(e.reason ?? '')),
    );
    assert.equal(told.ask, 'drain-decision');
    assert.match(
      told.reason ?? '',
      /are deleted at .* \(drain\.onTimeout: force\) unless someone decides skip or wait/,
    );
    const done = await tickUntil(deps, 'the reboot', () => {
      const r = requestOn(sim, node);
      return r?.hostCommandIssuedAt ? r : undefined;
    });
    // Deleted past its PDB, not before the second deadline.
    const deleted = sim.admin
      .audit()
      .find(
        (e) =>
          e.resource === R.pods &&
          e.name === pod.metadata.name &&
          (e.verb === 'delete' || e.object.metadata.deletionTimestamp !== undefined),
      );
    assert.ok(deleted, 'the guarded pod was deleted');
    const deletedAt = Date.parse(deleted.object.metadata.deletionTimestamp ?? '');
    assert.ok(deletedAt >= Date.parse(done.drain!.forceAt!), 'not before the second deadline');
    assert.equal(
      deps.events.filter(
        (e) => e.node === node && /unless someone decides skip or wait/.test(e.reason ?? ''),
      ).length,
      1,
      'said once (besides the stall question before the timeout)',
    );
  });
});
