/**
 * What a failed executor Job's request says, read from the Job's pod as the kube adapter reads it:
 * the executor's own exit codes have their words; an end the executor did not choose says the
 * kubelet's reason. `Unknown` (exit 255) is what a real node's power cut left (docs/real-nodes.md):
 * the request says the container was lost with its node, not only "exit 255".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick } from '../../../src/app/control/tick.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps } from '../../support/control.js';
import { requestOn } from '../../support/in-process-executor.js';
import { requestReader, runningRequest } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const MIN = 60_000;
const BACKOFF = 'Job has reached the specified backoff limit';

describe('a failed executor Job: the request says how its container ended', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  let seeded = 0;
  /** A running request on `node` whose Job failed and whose pod ended as `terminated` says. */
  async function failedJob(
    node: string,
    terminated: { exitCode: number; reason?: string },
  ): Promise<MaintenanceRequest> {
    seeded += 1;
    const id = `r-0fa${seeded.toString(16).padStart(3, '0')}`;
    const job = `kubemaint-${id}-${node}`;
    await requestReader(sim.kubeconfigPath).seed(
      runningRequest(id, node, new Date(sim.clock.now().getTime() - 5 * MIN)),
    );
    sim.store.mutate(R.nodes, undefined, node, (n) => {
      n.spec = { ...n.spec, unschedulable: true };
    });
    // Suspended, and its pod on no node of the sim: nothing but this test writes either.
    sim.store.create(R.jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: job, namespace: 'kubemaint' },
      spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [] } } },
      status: {
        failed: 1,
        conditions: [
          { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: BACKOFF },
        ],
      },
    });
    sim.store.create(R.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${job}-x1`, namespace: 'kubemaint', labels: { 'job-name': job } },
      spec: {
        nodeName: 'gone-node',
        restartPolicy: 'Never',
        containers: [{ name: 'executor', image: 'kubemaint:test' }],
      },
      status: {
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'executor',
            ready: false,
            restartCount: 0,
            image: 'kubemaint:test',
            imageID: '',
            state: { terminated },
          },
        ],
      },
    });
    await runTick(testControlDeps(sim));
    const request = requestOn(sim, node)!;
    assert.equal(request.id, id);
    assert.equal(request.state, 'failed', JSON.stringify(request));
    return request;
  }

  it('exit 255, Unknown: the container was lost, as with a node that lost power under it', async () => {
    const request = await failedJob('node-3', { exitCode: 255, reason: 'Unknown' });
    assert.match(
      request.failure ?? '',
      new RegExp(
        `^executor's container was lost \\(exit 255, reason Unknown\\), as when its node restarts or loses power under it: ${BACKOFF}`,
      ),
    );
  });

  it('exit 137, OOMKilled: the kubelet’s reason beside the exit code', async () => {
    const request = await failedJob('node-6', { exitCode: 137, reason: 'OOMKilled' });
    assert.match(
      request.failure ?? '',
      new RegExp(`^executor Job failed \\(exit 137, OOMKilled\\): ${BACKOFF}`),
    );
  });

  it('exit 1, Error: the exit code alone ("Error" says nothing more)', async () => {
    const request = await failedJob('node-1', { exitCode: 1, reason: 'Error' });
    assert.match(
      request.failure ?? '',
      new RegExp(`^executor Job failed \\(exit 1\\): ${BACKOFF}`),
    );
  });
});
