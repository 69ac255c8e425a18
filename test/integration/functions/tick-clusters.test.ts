/**
 * The tick Lambda with several clusters (issue 22): every cluster ticked in one invocation, each on
 * its own deps; one whose apiserver does not answer is logged with its name and measured (its EMF
 * lines carry its `cluster` dimension and a tick error) while the other's tick goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createTickHandler } from '../../../src/compose/lambda/tick-handler.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe('tick handler over two clusters', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(() => sim.close());

  it('ticks each; one that cannot be reached is said and counted, the other proposes', async () => {
    const east = testControlDeps(sim, { settings: testControlSettings({ cluster: 'east' }) });
    const down = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    const west = {
      ...testControlDeps(sim, { settings: testControlSettings({ cluster: 'west' }) }),
    };
    west.cluster = { ...west.cluster, onePass: undefined, listRequestNodes: down, listNodes: down };
    const emf: string[] = [];
    const errors: Record<string, unknown>[] = [];
    const handler = createTickHandler({
      log: pino(
        { level: 'error' },
        { write: (line: string) => void errors.push(JSON.parse(line)) },
      ),
      writeMetrics: (line) => void emf.push(line),
      open: async () => ({
        deps: east,
        clusters: [
          { name: 'east', deps: east },
          { name: 'west', deps: west },
        ],
      }),
    });
    const summary = await handler({});
    assert.deepEqual(summary.clusters, [
      { name: 'east', counts: { reconciled: 0, dispatched: 0, proposed: 2, skipped: 0 } },
      { name: 'west', error: 'connect ECONNREFUSED 127.0.0.1:1' },
    ]);
    assert.equal(errors[0]?.['cluster'], 'west');
    const byCluster = (name: string) =>
      emf.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['cluster'] === name);
    assert.ok(byCluster('east').some((l) => l['kubemaint_requests'] !== undefined));
    assert.ok(byCluster('west').some((l) => l['kubemaint_tick_errors_total'] === 1));
  });
});
