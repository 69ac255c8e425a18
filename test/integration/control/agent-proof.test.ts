/**
 * DESIGN §1 step 5, "the sentinel cleared": a reboot the reporter agent asked for is proven only once
 * the agent has cleared its mark after the boot (the host's reboot-required file is gone). A mark the
 * agent keeps is a need that is still there: the request ends done with a warning and the mark stays,
 * so the node is proposed again. The agent's part is in test/integration/agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick } from '../../../src/app/control/tick.js';
import {
  ANN_REBOOT_REQUIRED_REPORTER,
  ANN_REBOOT_REQUIRED_SINCE,
  LABEL_REBOOT_REQUIRED,
  LABEL_STATE,
} from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { requestOn } from '../../support/in-process-executor.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe('a reboot the reporter agent asked for', () => {
  let sim: TestSim;
  let deps: ReturnType<typeof testControlDeps>;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    deps = testControlDeps(sim);
  });
  after(async () => sim.close());

  /** The node as the executor leaves it: cordoned, verifying, the agent's mark from before. */
  async function rebootedWithAgentMark(node: string, issuedMinutesAgo: number): Promise<void> {
    const now = sim.clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    const issued = iso(now - issuedMinutesAgo * 60_000);
    const request: MaintenanceRequest = {
      id: `r-${node === 'node-1' ? 'a0a0a0' : 'b0b0b0'}`,
      node,
      action: 'reboot',
      state: 'verifying',
      reason: 'reboot required',
      requestedBy: 'detector',
      createdAt: iso(now - 60 * 60_000),
      updatedAt: issued,
      approvals: [{ by: 'k8s:alice', at: iso(now - 50 * 60_000) }],
      history: [],
      cordonedByUs: true,
      wasCordoned: false,
      // Not the node's boot id now: it has rebooted, and it is Ready.
      bootIdBefore: 'boot-before-the-reboot',
      hostCommandIssuedAt: issued,
      announced: ['host'],
    };
    await requestReader(sim.kubeconfigPath).seed(request);
    sim.store.mutate(R.nodes, undefined, node, (n) => {
      n.spec = { ...n.spec, unschedulable: true };
      n.metadata.labels = {
        ...n.metadata.labels,
        [LABEL_STATE]: 'verifying',
        [LABEL_REBOOT_REQUIRED]: 'true',
      };
      n.metadata.annotations = {
        ...n.metadata.annotations,
        [ANN_REBOOT_REQUIRED_SINCE]: iso(now - 2 * 60 * 60_000),
        [ANN_REBOOT_REQUIRED_REPORTER]: 'agent',
      };
    });
  }
  const cordoned = (node: string) =>
    sim.store.get(R.nodes, undefined, node)?.spec?.['unschedulable'] === true;
  const labels = (node: string) => sim.store.get(R.nodes, undefined, node)?.metadata.labels ?? {};

  it('waits for the agent to clear its mark, then is done and hands the node back', async () => {
    await rebootedWithAgentMark('node-1', 2);
    await runTick(deps);
    assert.equal(requestOn(sim, 'node-1')?.state, 'verifying');
    assert.ok(cordoned('node-1'), 'not handed back before the agent confirmed');
    // The agent's first check after the boot finds the file gone and clears its mark.
    sim.store.mutate(R.nodes, undefined, 'node-1', (n) => {
      delete n.metadata.labels?.[LABEL_REBOOT_REQUIRED];
      delete n.metadata.annotations?.[ANN_REBOOT_REQUIRED_SINCE];
      delete n.metadata.annotations?.[ANN_REBOOT_REQUIRED_REPORTER];
    });
    await runTick(deps);
    const request = requestOn(sim, 'node-1')!;
    assert.equal(request.state, 'done');
    assert.doesNotMatch(request.history.at(-1)?.note ?? '', /still reports/);
    assert.equal(cordoned('node-1'), false);
    const done = deps.events.find((e) => e.kind === 'done' && e.node === 'node-1');
    assert.match(done?.reason ?? '', /^bootID boot-bef → [0-9a-f]{8}, Ready$/);
  });

  it('a mark the agent keeps past the timeout: done with a warning, the mark stays', async () => {
    await rebootedWithAgentMark('node-3', 20);
    await runTick(deps);
    const done = deps.events.find((e) => e.kind === 'done' && e.node === 'node-3');
    assert.equal(done?.requestId, 'r-b0b0b0');
    assert.match(done?.reason ?? '', /but the host still reports reboot-required 15m after/);
    assert.equal(cordoned('node-3'), false);
    assert.equal(labels('node-3')[LABEL_REBOOT_REQUIRED], 'true', 'the need is still there');
    // The same tick saw the mark and proposed the need again, for people to decide.
    const again = requestOn(sim, 'node-3')!;
    assert.equal(again.state, 'proposed');
    assert.notEqual(again.id, 'r-b0b0b0');
  });
});
