/**
 * An executor that issues the host command and exits while a tick is under way (found in the
 * real-vs-sim bench, issue 20): the tick read the request `running` at its start; by the time it
 * looks at the Job, the executor has written `verifying` and its Job has succeeded. The tick must
 * judge from the request as it is then, not from what its pass read at the start: failing it would
 * uncordon a node about to reboot and hand its slot to the next one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { LABEL_STATE } from '../../../src/core/names.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps } from '../../support/control.js';
import { requestOn } from '../../support/in-process-executor.js';
import { requestReader, runningRequest } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const MIN = 60_000;

describe('a Job that ends during a tick', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  it('after the executor wrote verifying: the node stays cordoned, the request verifying', async () => {
    const now = sim.clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    // No decision for the tick to apply: it writes nothing before it looks at the Job, so what
    // its pass read at the start is all it has (its approvals do not matter once it runs).
    const running = runningRequest('r-10b0e1', 'node-3', new Date(now.getTime() - MIN));
    const requests = requestReader(sim.kubeconfigPath);
    await requests.seed(running);
    sim.store.mutate(R.nodes, undefined, 'node-3', (n) => {
      n.spec = { ...n.spec, unschedulable: true };
      n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: 'running' };
    });
    const base = testControlDeps(sim);
    let looked = 0;
    const deps: TickDeps = {
      ...base,
      cluster: {
        ...base.cluster,
        // The executor issues the host command and exits between the tick's read of the requests
        // and its look at the Job.
        async getJob(name) {
          looked += 1;
          const stored = (await requests.ofNode('node-3'))!;
          await requests.put({
            ...stored,
            state: 'verifying',
            history: [
              ...stored.history,
              { from: 'running', to: 'verifying', at: at(0), by: 'executor' },
            ],
            bootIdBefore: 'boot-before',
            hostCommandIssuedAt: at(0),
          });
          return { name, phase: 'succeeded' };
        },
      },
    };
    const report = await runTick(deps);
    assert.equal(looked, 1, 'the tick looked at the Job');
    assert.match(report.reconciled.join('\n'), /^node-3: .*moved on to verifying$/);
    assert.equal(requestOn(sim, 'node-3')?.state, 'verifying');
    const node = sim.store.get(R.nodes, undefined, 'node-3') as {
      spec?: { unschedulable?: boolean };
    };
    assert.equal(node.spec?.unschedulable, true, 'still cordoned: it is about to reboot');
  });
});
