/**
 * A reboot silences the node's alerts in Debian's real Alertmanager (issue 18's done-when): the
 * control plane makes one silence per matcher set before the executor Job exists, `amtool silence
 * query` shows them naming the node while it drains, each tick keeps them ahead, and once the node
 * is proven back and the request done they are expired. An Alertmanager that refuses blocks the
 * start under `onFailure: block` (the reason says so) and only warns under `warn`; a silence no
 * request holds any more (the executor ended its request) is swept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { alertmanagerSilences } from '../../../src/adapters/alertmanager/silences.js';
import {
  approveRequest,
  listRequests,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import type { ControlSettings } from '../../../src/app/control/settings.js';
import { SWEEP_GRACE_MS } from '../../../src/app/control/silences.js';
import { runTick } from '../../../src/app/control/tick.js';
import { parseMatchers, silenceAuthor, type Matcher } from '../../../src/core/silence.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import {
  executorSettings,
  realJobFor,
  requestOn,
  runJobsInProcess,
  type InProcessJobs,
} from '../../support/in-process-executor.js';
import { amtool, startAlertmanager, type Peer } from '../../support/monitoring.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;

const matchers = (text: string): Matcher[] => {
  const parsed = parseMatchers(text);
  assert.ok(parsed.ok);
  return parsed.matchers;
};

interface Shown {
  id: string;
  matchers: { name: string; value: string; isRegex: boolean }[];
  createdBy: string;
  status: { state: string };
}

describe('Alertmanager silences around a reboot (real Alertmanager)', () => {
  let sim: TestSim;
  let am: Peer;
  let jobs: InProcessJobs | undefined;

  before(async () => {
    am = await startAlertmanager();
    sim = await startTestSim({
      scenario: 'demo',
      delays: { jobPodRunMs: 24 * 3_600_000, rebootDowntimeMs: 5_000 },
    });
  });
  after(async () => {
    await jobs?.stop();
    await sim?.close();
    await am?.close();
  });

  const query = (...args: string[]): Shown[] =>
    JSON.parse(amtool(am.url, ['silence', 'query', '-o', 'json', ...args])) as Shown[];

  const depsWith = (silences: ControlSettings['silences'], url = am.url) => {
    const exec = executorSettings(2);
    const base = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency: 2, pools: {} },
        nodeTimeoutMs: { reboot: 2 * 3_600_000, upgrade: 2 * 3_600_000 },
        jobFor: realJobFor(exec),
        ...(silences ? { silences } : {}),
      }),
    });
    return {
      exec,
      deps: {
        ...base,
        silences: alertmanagerSilences({ url, createdBy: silenceAuthor('sim') }),
      },
    };
  };

  it('silences the node before the drain, keeps it while it drains, expires it once done', async () => {
    const { exec, deps } = depsWith({
      matchers: [matchers('node="<node>"'), matchers('instance=~"<node>:.*"')],
      marginMs: 15 * 60_000,
      onFailure: 'block',
    });
    jobs = runJobsInProcess(sim, exec);
    const proposed = await requestMaintenance(deps, {
      node: 'node-2',
      action: 'reboot',
      by: alice,
    });
    assert.ok(proposed.ok, proposed.message);
    await approveRequest(deps, proposed.request!.id, alice);
    assert.deepEqual(query('node=node-2'), [], 'nothing silenced before the start');

    await runTick(deps);
    const started = requestOn(sim, 'node-2')!;
    assert.equal(started.state, 'running', (started.blockedReasons ?? []).join('; '));
    assert.equal(started.silences?.ids.length, 2, JSON.stringify(started.silences));

    // While it drains (cordoned, its request running): amtool shows both, each naming the node.
    await waitFor('node-2 cordoned by the executor', async () => {
      const node = await sim.core.readNode({ name: 'node-2' });
      return node.spec?.unschedulable === true && requestOn(sim, 'node-2')?.state === 'running';
    });
    const byNode = query('node=node-2');
    assert.deepEqual(
      byNode.map((s) => s.id),
      [started.silences.ids[0]],
      'the node="node-2" silence',
    );
    assert.deepEqual(byNode[0]!.matchers, [
      { name: 'node', value: 'node-2', isRegex: false, isEqual: true },
    ]);
    assert.equal(byNode[0]!.createdBy, 'kubemaint@sim');
    const byInstance = query('instance=~"node-2:.*"');
    assert.deepEqual(
      byInstance.map((s) => s.id),
      [started.silences.ids[1]],
    );

    // On to done: the reboot is proven and the silences end with the request.
    const deadline = Date.now() + 180_000;
    for (;;) {
      await runTick(deps);
      const request = requestOn(sim, 'node-2')!;
      assert.notEqual(request.state, 'failed', request.failure);
      if (request.state === 'done') break;
      // Extended while the work runs: the same silences, still there.
      assert.deepEqual(
        query('node=node-2').map((s) => s.id),
        [request.silences!.ids[0]],
        `silenced while ${request.state}`,
      );
      assert.ok(Date.now() < deadline, `not done in time (${request.state})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(query('node=node-2'), [], 'no active silence once done');
    const expired = query('--expired', 'node=node-2');
    assert.deepEqual(
      expired.map((s) => s.id),
      [requestOn(sim, 'node-2')!.silences!.ids[0]],
    );
    assert.equal(expired[0]!.status.state, 'expired');
    assert.deepEqual(query('instance=~"node-2:.*"'), []);
    await jobs.stop();
    jobs = undefined;
  });

  it('an Alertmanager that refuses blocks the start (block) or only warns (warn)', async () => {
    const closed = 'http://127.0.0.1:1';
    const blocking = depsWith(
      { matchers: [matchers('node="<node>"')], marginMs: 15 * 60_000, onFailure: 'block' },
      closed,
    ).deps;
    const proposed = await requestMaintenance(blocking, {
      node: 'node-3',
      action: 'reboot',
      by: alice,
    });
    assert.ok(proposed.ok, proposed.message);
    await approveRequest(blocking, proposed.request!.id, alice);
    await runTick(blocking);
    const held = (await listRequests(blocking)).find((r) => r.node === 'node-3')!;
    assert.equal(held.state, 'approved');
    assert.match(
      (held.blockedReasons ?? []).join('; '),
      /^could not silence the node's alerts in Alertmanager: Alertmanager at http:\/\/127\.0\.0\.1:1 did not answer POST \/api\/v2\/silences/,
    );

    const warning = depsWith(
      { matchers: [matchers('node="<node>"')], marginMs: 15 * 60_000, onFailure: 'warn' },
      closed,
    ).deps;
    await runTick(warning);
    const started = requestOn(sim, 'node-3')!;
    assert.equal(started.state, 'running');
    assert.deepEqual(started.silences?.ids, []);
    assert.match(started.silences?.warning ?? '', /could not silence/);
    assert.ok(
      warning.events.some(
        (e) =>
          e.kind === 'draining' && /alerts not silenced: could not silence/.test(e.reason ?? ''),
      ),
    );
  });

  it('sweeps a silence no in-flight request holds', async () => {
    const { deps } = depsWith({
      matchers: [matchers('node="<node>"')],
      marginMs: 15 * 60_000,
      onFailure: 'block',
    });
    // Left behind by a control plane that died, aged past the sweep's grace by Alertmanager's clock.
    const port = alertmanagerSilences({
      url: am.url,
      createdBy: silenceAuthor('sim'),
      now: () => new Date(Date.now() + SWEEP_GRACE_MS + 60_000),
    });
    const orphan = await alertmanagerSilences({
      url: am.url,
      createdBy: silenceAuthor('sim'),
    }).create({ matchers: matchers('node="node-9"'), comment: 'orphan', forMs: 3_600_000 });
    const young = await port.create({
      matchers: matchers('node="node-8"'),
      comment: 'just made by another control plane',
      forMs: 3_600_000,
    });
    await runTick({ ...deps, silences: port });
    assert.deepEqual(query('node=node-9'), [], 'the orphan is expired');
    assert.deepEqual(
      query('node=node-8').map((s) => s.id),
      [young.id],
      'a silence younger than the grace is left alone',
    );
    assert.ok(orphan.id);
  });
});
