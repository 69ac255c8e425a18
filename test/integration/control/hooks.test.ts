/**
 * Hooks on the sim (issue 18, ADR 0021), through the real tick, the real executor (in process) and
 * hook Jobs the sim's kubelets run as local processes: a failing beforeDrain hook leaves the node
 * untouched (uncordoned) and the request failed with the hook's own words; a good one lets the
 * executor drain and reboot; afterReady runs on the node, still cordoned, once it is proven back,
 * and its failure either keeps the node cordoned (abort) or is reported and the node handed back
 * (continue). Each outcome is on the request, in an Event on the node and in what people are told.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import type { HookSettings } from '../../../src/app/control/settings.js';
import { runTick } from '../../../src/app/control/tick.js';
import type { HookPhase } from '../../../src/core/hooks.js';
import { hookJobName } from '../../../src/core/names.js';
import { R } from '@kubemaint/kubesim';
import { buildHookJob } from '../../../templates/hook-job.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import {
  executorSettings,
  NAMESPACE,
  podOfJob,
  realJobFor,
  requestOn,
  runJobsInProcess,
  type InProcessJobs,
} from '../../support/in-process-executor.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const OK = 'hooks.example/check:1';
const FAILS = 'hooks.example/backup:1';

const hook = (
  phase: HookPhase,
  image: string,
  onFailure: HookSettings['onFailure'],
  onNode = false,
): HookSettings => ({
  timeoutMs: 10 * 60_000,
  onFailure,
  jobFor: (node, requestId, action) =>
    buildHookJob({
      node,
      requestId,
      action,
      phase,
      namespace: NAMESPACE,
      template: { spec: { containers: [{ name: 'hook', image }] } },
      timeoutSeconds: 600,
      ttlSecondsAfterFinished: 86_400,
      onNode,
    }) as unknown as Record<string, unknown>,
});

describe('hooks on the sim', () => {
  let sim: TestSim;
  let jobs: InProcessJobs;
  const exec = executorSettings(3);
  before(async () => {
    sim = await startTestSim({
      scenario: 'fleet',
      nodes: 3,
      podsPerNode: 2,
      scale: 100,
      images: {
        [OK]: { command: ['true'] },
        [FAILS]: { command: ['sh', '-c', 'echo "backup failed: disk full" >&2; exit 3'] },
      },
      delays: { jobPodRunMs: 24 * 3_600_000, rebootIssueDelayMs: 60_000 },
    });
    for (const n of sim.store.list(R.nodes))
      sim.store.mutate(R.nodes, undefined, n.metadata.name ?? '', (o) => {
        delete o.metadata.labels?.['kubemaint.io/reboot-required'];
      });
    jobs = runJobsInProcess(sim, exec);
  });
  after(async () => {
    await jobs.stop();
    await sim.close();
  });

  const nodeName = (i: number) =>
    sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name!)
      .sort()[i]!;
  const cordoned = (node: string) =>
    sim.store.get(R.nodes, undefined, node)?.spec?.['unschedulable'] === true;
  const nodeEvents = (node: string) =>
    sim.store
      .list(R.events, { namespace: 'default' })
      .filter((e) => (e['involvedObject'] as { name?: string } | undefined)?.name === node)
      .map((e) => `${String(e['reason'])}: ${String(e['message'])}`);

  /** Approve a reboot of `node` with `hooks`, then tick until its request ends. */
  async function roll(node: string, hooks: ControlHooks) {
    const deps = testControlDeps(sim, {
      settings: testControlSettings({ hooks, jobFor: realJobFor(exec) }),
    });
    const asked = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(asked.ok, asked.message);
    await approveRequest(deps, asked.request!.id, alice);
    const seen = { cordoned: false };
    const ended = await waitFor(
      `the request on ${node} to end`,
      async () => {
        await runTick(deps);
        seen.cordoned ||= cordoned(node);
        const r = requestOn(sim, node);
        return r && ['done', 'failed', 'skipped', 'cancelled'].includes(r.state) ? r : undefined;
      },
      90_000,
    );
    return { deps, ended, seen, id: asked.request!.id };
  }
  type ControlHooks = NonNullable<Parameters<typeof testControlSettings>[0]>['hooks'];

  it('a failing beforeDrain hook leaves the node uncordoned and the request failed with the hook’s reason', async () => {
    const node = nodeName(0);
    const { deps, ended, seen, id } = await roll(node, {
      beforeDrain: hook('beforeDrain', FAILS, 'abort'),
    });
    assert.equal(ended.state, 'failed');
    assert.match(
      ended.failure ?? '',
      /^beforeDrain hook failed: hook Job kubemaint-hook-b-\S+ failed: exit 3: backup failed: disk full/,
    );
    assert.match(ended.failure ?? '', /schedulable$/);
    assert.equal(seen.cordoned, false, 'never cordoned');
    assert.equal(cordoned(node), false);
    assert.equal(ended.hooks?.beforeDrain?.state, 'failed');
    assert.match(ended.hooks?.beforeDrain?.message ?? '', /backup failed: disk full/);
    // No executor ran: its Job was never created.
    assert.equal(sim.store.get(R.jobs, NAMESPACE, ended.job ?? ''), undefined, 'no executor Job');
    assert.ok(sim.store.get(R.jobs, NAMESPACE, hookJobName(node, id, 'beforeDrain')));
    assert.ok(
      nodeEvents(node).some((e) => /^KubemaintHookFailed: r-\w+: beforeDrain hook failed/.test(e)),
    );
    const told = deps.events
      .filter((e) => e.node === node)
      .map((e): [string, string] => [e.kind, e.reason ?? '']);
    assert.ok(told.some(([kind, why]) => kind === 'hook' && /beforeDrain hook started/.test(why)));
    assert.ok(
      told.some(
        ([kind, why]) => kind === 'hook' && /the request fails \(onFailure: abort\)/.test(why),
      ),
    );
    assert.ok(told.some(([kind]) => kind === 'failed'));
  });

  it('a good beforeDrain hook, then an afterReady hook on the cordoned node: abort keeps it cordoned', async () => {
    const node = nodeName(1);
    const { ended, seen, id } = await roll(node, {
      beforeDrain: hook('beforeDrain', OK, 'abort'),
      afterReady: hook('afterReady', FAILS, 'abort', true),
    });
    assert.equal(ended.state, 'failed', ended.failure);
    assert.equal(ended.hooks?.beforeDrain?.state, 'succeeded');
    assert.equal(ended.hooks?.afterReady?.state, 'failed');
    assert.match(
      ended.failure ?? '',
      /^afterReady hook failed: .*backup failed: disk full.*; left cordoned/,
    );
    assert.ok(seen.cordoned && cordoned(node), 'left cordoned for a person');
    assert.equal(jobs.hostCalls.filter((c) => c.node === node).length, 1, 'rebooted once');
    // The hook ran on that node, placed by the scheduler (affinity), though it was cordoned.
    const pod = podOfJob(sim, hookJobName(node, id, 'afterReady'));
    assert.equal(pod?.spec?.['nodeName'], node);
  });

  it('afterReady with onFailure continue: reported, and the node handed back', async () => {
    const node = nodeName(2);
    const { deps, ended } = await roll(node, {
      afterReady: hook('afterReady', FAILS, 'continue', true),
    });
    assert.equal(ended.state, 'done', ended.failure);
    assert.equal(ended.hooks?.afterReady?.state, 'failed');
    assert.equal(ended.hooks?.afterReady?.continued, true);
    assert.equal(cordoned(node), false, 'handed back');
    assert.ok(
      deps.events.some(
        (e) =>
          e.kind === 'hook' &&
          e.node === node &&
          /going on \(onFailure: continue\)/.test(e.reason ?? ''),
      ),
    );
  });
});
