/**
 * The preview an approval prompt shows, read from the demo sim over real HTTPS: the pods a drain of
 * node-2 would evict (DaemonSet pods left in place), the packages and since from the reporter's
 * annotations, blockers (a pause, a closed window) and the next window.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPause } from '../../../src/app/control/commands.js';
import { nextWindowText, previewRequest } from '../../../src/app/control/preview.js';
import type { TickDeps } from '../../../src/app/control/tick.js';
import { testControlDeps, testControlSettings, testSchedule } from '../../support/control.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

describe('previewRequest on the demo sim', () => {
  let sim: TestSim;
  let deps: TickDeps;
  const alice = { kind: 'person', id: 'k8s:alice' } as const;

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20 });
    deps = testControlDeps(sim);
    // The demo's deployments schedule their pods a moment after start.
    await waitFor('demo pods running', async () => {
      const pods = await deps.cluster.listPods({});
      return pods.filter((p) => p.phase === 'Running').length >= 6;
    });
  });
  after(async () => sim.close());

  it('names the pods a drain would evict and leaves DaemonSet pods in place', async () => {
    const preview = await previewRequest(deps, 'node-2');
    const onNode = await deps.cluster.listPods({ node: 'node-2' });
    const daemon = onNode.filter((p) => p.owners.some((o) => o.kind === 'DaemonSet'));
    assert.ok(daemon.length > 0, 'the demo runs its node agent everywhere');
    const expected = onNode
      .filter((p) => !daemon.includes(p))
      .map((p) => `${p.namespace}/${p.name}`)
      .sort();
    assert.deepEqual([...preview.evict].sort(), expected);
    for (const p of daemon)
      assert.ok(preview.skipped.some((s) => s.pod === `${p.namespace}/${p.name}`));
    assert.deepEqual(preview.packages, ['linux-image-6.8.0-1016-aws', 'libc6']);
    assert.ok(preview.rebootRequiredSince, 'since from the reporter annotation');
    assert.deepEqual(preview.errors, []);
    assert.equal(preview.window.open, true, 'no windows configured: always open');
    assert.deepEqual(preview.window.schedule, ['always open (no windows configured)']);
  });

  it('lists a pause and a closed window as blockers, with the next opening', async () => {
    assert.ok((await setPause(deps, true, alice, 'quarterly freeze')).ok);
    const closed = {
      ...deps,
      settings: testControlSettings({
        schedule: testSchedule([
          // Opens daily an hour after the sim's now, for an hour: closed now, opening soon.
          { cron: cronAt(deps.clock.now(), 60), duration: '1h', timezone: 'UTC' },
        ]),
      }),
    };
    try {
      const preview = await previewRequest(closed, 'node-2');
      assert.ok(preview.blockers.some((b) => /paused/i.test(b) && /quarterly freeze/.test(b)));
      assert.equal(preview.window.open, false);
      assert.ok(preview.window.nextOpening, 'the next opening is named');
      assert.equal(nextWindowText(closed.settings, deps.clock.now()), preview.window.nextOpening);
    } finally {
      await setPause(deps, false, alice);
    }
  });

  it('reports a node that does not exist instead of throwing', async () => {
    const preview = await previewRequest(deps, 'node-404');
    assert.deepEqual(preview.evict, []);
    assert.match(preview.errors.join(' '), /node-404 not found/);
  });
});

function cronAt(d: Date, plusMinutes: number): string {
  const at = new Date(d.getTime() + plusMinutes * 60_000);
  return `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
}
