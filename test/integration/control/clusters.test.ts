/**
 * Issue 22 done-when, on two embedded clusters and one serve (its composition in process, as the
 * CLI starts it for a config with `clusters:`): proposals come from both and name their cluster;
 * approving in one reboots only there; staging goes before production (`blockers.clusters.order`),
 * a production request waiting with a reason that names staging; stopping production's apiserver
 * leaves staging's maintenance running, and the status page, the loop and the metrics name the
 * unreachable cluster.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { approveRequest, rejectRequest } from '../../../src/app/control/commands.js';
import { readClusterFleets } from '../../../src/app/control/cluster-fleets.js';
import { startServe, type RunningServe } from '../../../src/compose/serve.js';
import { R } from '@kubemaint/kubesim';
import { configOf } from '../../support/config.js';
import {
  executorSettings,
  NOOP_IMAGE,
  runJobsInProcess,
  type InProcessJobs,
} from '../../support/in-process-executor.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';
import { clusterProbes } from '../../support/cluster-serve.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const REBOOT_LABEL = 'kubemaint.io/reboot-required';

describe('one serve, two clusters (issue 22)', () => {
  const sims = new Map<string, TestSim>();
  const jobs: InProcessJobs[] = [];
  const lines: string[] = [];
  let serve: RunningServe;

  before(async () => {
    for (const name of ['staging', 'production']) {
      const sim = await startTestSim({
        scenario: 'demo',
        scale: 50,
        delays: { jobPodRunMs: 24 * 3_600_000, rebootDowntimeMs: 5_000 },
      });
      sims.set(name, sim);
      jobs.push(runJobsInProcess(sim, executorSettings(1)));
    }
    const config = configOf({
      clusters: [...sims].map(([name, sim]) => ({
        name,
        kubeconfig: { path: sim.kubeconfigPath },
      })),
      kubelet: { enabled: false },
      executor: { image: NOOP_IMAGE, hostPrefix: [] },
      reboot: { command: ['kubemaint-sim-host', 'reboot'] },
      approval: { approvers: { kubernetes: { users: ['alice'] } } },
      blockers: { clusters: { order: ['staging', 'production'] } },
      serve: { statusPage: true, ops: { port: 0 } },
    });
    serve = await startServe({
      config,
      // Every interface, as in a pod: the ready line says so.
      listen: { opsPort: 0, opsHost: '0.0.0.0' },
      out: (text) => void lines.push(text),
      log: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await serve?.stop();
    for (const j of jobs) await j.stop();
    // production's was stopped by a test; closing it again only removes its folder.
    for (const sim of sims.values()) await sim.close().catch(() => undefined);
  });

  const { deps, kick, requestOn, until, bootId } = clusterProbes(() => serve, sims);

  it('proposes in both clusters, each line naming its cluster', async () => {
    for (const cluster of ['staging', 'production'])
      for (const node of ['node-2', 'node-5'])
        await until(`${cluster}/${node} proposed`, cluster, node, (r) => r.state === 'proposed');
    const said = lines.join('');
    assert.match(said, /ready: clusters=staging,production ops=http:\/\/\S+ \(all interfaces\)/);
    assert.match(said, /proposed +staging\/node-2 reboot/);
    assert.match(said, /proposed +production\/node-2 reboot/);
    assert.match(said, /approve: npx kubemaint approve --cluster production r-/);
  });

  it('holds production back while staging has unfinished maintenance, naming staging', async () => {
    const request = (await requestOn('production', 'node-2'))!;
    assert.ok((await approveRequest(deps('production'), request.id, alice)).ok);
    const blocked = await until(
      'production/node-2 blocked',
      'production',
      'node-2',
      (r) => (r.blockedReasons ?? []).length > 0,
    );
    assert.equal(blocked.state, 'approved');
    assert.match(
      blocked.blockedReasons!.join('; '),
      /cluster staging goes before production \(blockers\.clusters\.order\) and has unfinished maintenance \(kubemaint status --cluster staging\)/,
    );
  });

  it('approving in staging reboots there only; production still waits for node-5', async () => {
    const productionBoot = bootId('production', 'node-2');
    const stagingBoot = bootId('staging', 'node-2');
    const request = (await requestOn('staging', 'node-2'))!;
    assert.ok((await approveRequest(deps('staging'), request.id, alice)).ok);
    await until('staging/node-2 done', 'staging', 'node-2', (r) => r.state === 'done');
    assert.notEqual(bootId('staging', 'node-2'), stagingBoot, 'staging node-2 rebooted');
    assert.equal(bootId('production', 'node-2'), productionBoot, 'production node-2 untouched');
    const waiting = (await requestOn('production', 'node-2'))!;
    assert.equal(waiting.state, 'approved');
    assert.match(waiting.blockedReasons!.join('; '), /cluster staging .* unfinished maintenance/);
    assert.equal((await requestOn('staging', 'node-5'))?.state, 'proposed');
  });

  it('starts production once staging has nothing unfinished', async () => {
    const stagingNode5 = (await requestOn('staging', 'node-5'))!;
    assert.ok((await rejectRequest(deps('staging'), stagingNode5.id, alice, 'not now')).ok);
    const before = bootId('production', 'node-2');
    await until('production/node-2 done', 'production', 'node-2', (r) => r.state === 'done');
    assert.notEqual(bootId('production', 'node-2'), before);
  });

  it('stopping production leaves staging working; status names the unreachable cluster', async () => {
    const staging = sims.get('staging')!;
    staging.store.mutate(R.nodes, undefined, 'node-3', (n) => {
      n.metadata.labels = { ...n.metadata.labels, [REBOOT_LABEL]: 'true' };
    });
    const proposed = await until(
      'staging/node-3 proposed',
      'staging',
      'node-3',
      (r) => r.state === 'proposed',
    );
    await sims.get('production')!.stop();
    assert.ok((await approveRequest(deps('staging'), proposed.id, alice)).ok);
    await until(
      'staging/node-3 done while production is down',
      'staging',
      'node-3',
      (r) => r.state === 'done',
    );
    const production = serve.loops.find((l) => l.name === 'production')!;
    await waitFor('production said unreachable', async () => {
      kick();
      return production.unreachable();
    });
    assert.equal(serve.loops.find((l) => l.name === 'staging')!.unreachable(), undefined);
    const fleets = await readClusterFleets(
      serve.clusters.runtimes.map((r) => ({ name: r.name, deps: r.deps })),
      { timeoutMs: 5_000 },
    );
    assert.deepEqual(
      fleets.map((f) => [f.cluster, 'unreachable' in f]),
      [
        ['staging', false],
        ['production', true],
      ],
    );
    const page = await (await fetch(`${serve.opsUrl}/status`)).text();
    assert.match(page, /data-cluster="production"><header class="summary">.*unreachable: /s);
    assert.match(page, /data-cluster="staging">/);
    // The gauges follow the fleet reads, at most one each 2 s per cluster.
    const metrics = await waitFor('staging done twice in /metrics', async () => {
      kick();
      const text = await (await fetch(`${serve.opsUrl}/metrics`)).text();
      return /kubemaint_requests\{state="done",cluster="staging"\} 2/.test(text) ? text : undefined;
    });
    assert.match(metrics, /kubemaint_tick_errors_total\{cluster="staging"\} 0/);
    // A tick of production fails once the API client has retried (10-25 s): counted as its own.
    await waitFor(
      'a production tick error in /metrics',
      async () => {
        kick();
        const text = await (await fetch(`${serve.opsUrl}/metrics`)).text();
        return /kubemaint_tick_errors_total\{cluster="production"\} [1-9]/.test(text) || undefined;
      },
      90_000,
    );
  });

  it('says in /readyz at once that production refuses serve when it is re-created', async () => {
    // A cluster re-created on the same address (new credentials; serve's kubeconfig holds the old
    // ones): no retry gets past that, so readiness names it without waiting out the tick age limit.
    const port = Number(new URL(sims.get('production')!.url).port);
    sims.set('production again', await startTestSim({ scenario: 'demo', scale: 50, port }));
    const body = await waitFor(
      'production refused in /readyz',
      async () => {
        kick();
        const text = await (await fetch(`${serve.opsUrl}/readyz`)).text();
        return /production: not ready, the apiserver refuses serve: /.test(text) ? text : undefined;
      },
      90_000,
    );
    assert.match(body, /staging: ok/);
  });
});
