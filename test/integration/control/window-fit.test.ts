/**
 * Window fit from observed durations (issue 18, ADR 0017), on the sim with a pinned clock: a request
 * proven back records what it took in the kubemaint-durations ConfigMap; the next approved request
 * is judged by that (not the config's expectedDuration), and a restarted control plane reads it
 * back. `kubemaint status` and the prompt say "fits: about N min, window closes in M min".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { DURATIONS_CONFIGMAP, configMapDurations } from '../../../src/adapters/kube/durations.js';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import { fitsOf } from '../../../src/app/control/durations.js';
import { previewRequest } from '../../../src/app/control/preview.js';
import { runTick } from '../../../src/app/control/tick.js';
import { LABEL_STATE } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings, testSchedule } from '../../support/control.js';
import { requestOn } from '../../support/in-process-executor.js';
import { requestReader } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const MIN = 60_000;

describe('window fit from observed durations', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  it('uses what the last reboot took once there is one, and keeps it across a restart', async () => {
    // On a whole minute, as cron opens windows.
    const start = new Date(Math.floor(sim.clock.now().getTime() / MIN) * MIN);
    // A window that opened 10 minutes ago and closes in 20 (daily, 30 minutes long).
    const opened = new Date(start.getTime() - 10 * MIN);
    const schedule = testSchedule([
      {
        cron: `${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *`,
        duration: '30m',
        timezone: 'UTC',
      },
    ]);
    let now = start;
    const open = () => {
      const kc = new KubeConfig();
      kc.loadFromFile(sim.kubeconfigPath);
      const base = testControlDeps(sim, { settings: testControlSettings({ schedule }) });
      return {
        ...base,
        clock: { now: () => now },
        durations: configMapDurations(createKubeClient(kc), 'kubemaint'),
      };
    };
    const deps = open();

    const next = await requestMaintenance(deps, { node: 'node-3', action: 'reboot', by: alice });
    assert.ok(next.ok, next.message);
    const id = next.request!.id;
    // Nothing observed yet: the config's 10 minutes fit the 20 left.
    assert.deepEqual(await fitsOf(deps, [next.request!]), {
      [id]: 'fits: about 10 min, window closes in 20 min',
    });

    // node-1 was rebooted 25 minutes after its request started running, and is back.
    const at = (ms: number) => new Date(start.getTime() + ms).toISOString();
    const rebooted: MaintenanceRequest = {
      id: 'r-7e7e7e',
      node: 'node-1',
      action: 'reboot',
      state: 'verifying',
      reason: 'kernel',
      requestedBy: alice.id,
      createdAt: at(-40 * MIN),
      updatedAt: at(-MIN),
      approvals: [{ by: alice.id, at: at(-39 * MIN) }],
      history: [
        { from: 'approved', to: 'running', at: at(-25 * MIN), by: 'kubemaint' },
        { from: 'running', to: 'verifying', at: at(-20 * MIN), by: 'executor' },
      ],
      cordonedByUs: true,
      wasCordoned: false,
      bootIdBefore: 'boot-before-the-reboot',
      hostCommandIssuedAt: at(-20 * MIN),
      announced: ['host'],
    };
    await requestReader(sim.kubeconfigPath).seed(rebooted);
    sim.store.mutate(R.nodes, undefined, 'node-1', (n) => {
      n.spec = { ...n.spec, unschedulable: true };
      n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: 'verifying' };
    });
    await approveRequest(deps, id, alice);

    await runTick(deps);
    assert.equal(requestOn(sim, 'node-1')?.state, 'done');
    const book = sim.store.get(R.configmaps, 'kubemaint', DURATIONS_CONFIGMAP);
    assert.deepEqual(
      JSON.parse(
        String((book?.['data'] as Record<string, string> | undefined)?.['durations.json']),
      ),
      {
        'reboot/': [{ ms: 25 * MIN, at: now.toISOString(), node: 'node-1' }],
      },
    );
    // The slot is free, but 25 minutes do not fit the 20 left: node-3 waits, and says why.
    const waiting = requestOn(sim, 'node-3')!;
    assert.equal(waiting.state, 'approved');
    assert.ok(
      (waiting.blockedReasons ?? []).some((r) =>
        /node-3 needs about 25m \(drain \+ host command \+ verify: the last reboot\)/.test(r),
      ),
      (waiting.blockedReasons ?? []).join('; '),
    );

    // A restarted control plane reads the same book: the prompt and status say the same.
    const restarted = open();
    assert.deepEqual(await fitsOf(restarted, [waiting]), {
      [id]: 'does not fit: about 25 min, window closes in 20 min',
    });
    const preview = await previewRequest(restarted, 'node-3', waiting);
    assert.equal(preview.window.fit, 'does not fit: about 25 min, window closes in 20 min');

    // The next day, ten minutes into the window, 20 minutes are left... still not 25.
    now = new Date(start.getTime() + 24 * 60 * MIN);
    await runTick(restarted);
    assert.equal(requestOn(sim, 'node-3')?.state, 'approved');
    // Right at the opening, 30 minutes are left: it starts.
    now = new Date(opened.getTime() + 24 * 60 * MIN);
    const report = await runTick(restarted);
    assert.ok(
      report.dispatched.some((d) => d.startsWith('node-3: started')),
      report.dispatched.join('; '),
    );
  });
});
