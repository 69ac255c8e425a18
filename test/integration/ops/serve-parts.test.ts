/**
 * The parts of `kubemaint serve` put together the way serve will: the real tick over the sim, timed
 * into the metrics, readiness from its outcome, the gauges read from the cluster, the ops server in
 * front, and the watch trigger running a tick when a node gets marked (no overlapping ticks).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startOpsServer, type OpsServer } from '../../../src/adapters/http/ops-server.js';
import { tickReadiness } from '../../../src/adapters/http/readiness.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { watchForChanges, type WatchTrigger } from '../../../src/adapters/kube/watch-trigger.js';
import { observeFleet, timeTick } from '../../../src/adapters/metrics/observe.js';
import { createMetrics } from '../../../src/adapters/metrics/registry.js';
import { readFleetView } from '../../../src/app/control/fleet-view.js';
import { runTick } from '../../../src/app/control/tick.js';
import { testControlDeps } from '../../support/control.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const REBOOT_LABEL = 'kubemaint.io/reboot-required';

describe('serve parts together', () => {
  let sim: TestSim;
  let ops: OpsServer;
  let trigger: WatchTrigger | undefined;
  const metrics = createMetrics();
  const wall = { now: () => new Date() };
  const readiness = tickReadiness({ clock: wall, maxAgeMs: 60_000 });
  let deps: ReturnType<typeof testControlDeps>;
  let ticks = 0;
  let running: Promise<void> | undefined;
  let again = false;

  /** One tick at a time; a change during a tick runs one more afterwards. */
  const tick = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await timeTick(metrics, wall, () => runTick(deps));
          readiness.record({ ok: true });
          observeFleet(metrics, await readFleetView(deps));
        } catch (error) {
          readiness.record({ ok: false, error });
        }
        ticks++;
      } while (again);
    })().finally(() => (running = undefined));
    return running;
  };

  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    deps = testControlDeps(sim);
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      ready: () => readiness.ready(),
    });
  });
  after(async () => {
    trigger?.stop();
    await running;
    await ops.close();
    await sim.close();
  });

  const get = async (path: string) => {
    const res = await fetch(`${ops.url}${path}`);
    return { status: res.status, body: await res.text() };
  };
  const series = (body: string, name: string) =>
    body
      .split('\n')
      .find((l) => l.startsWith(`${name} `))
      ?.split(' ')[1];

  it('is not ready before the first tick, ready after it, with the fleet in /metrics', async () => {
    assert.deepEqual(await get('/readyz'), {
      status: 503,
      body: 'not ready: no tick has succeeded yet\n',
    });
    assert.equal((await get('/healthz')).status, 200);
    await tick();
    const ready = await get('/readyz');
    assert.equal(ready.status, 200, ready.body);
    const { body } = await get('/metrics');
    // The demo marks node-2 and node-5; the tick proposes both.
    assert.equal(series(body, 'kubemaint_reboot_required{node="node-2"}'), '1');
    assert.equal(series(body, 'kubemaint_reboot_required{node="node-5"}'), '1');
    assert.equal(series(body, 'kubemaint_requests{state="proposed"}'), '2');
    assert.equal(series(body, 'kubemaint_tick_duration_seconds_count'), '1');
    assert.equal(series(body, 'kubemaint_tick_errors_total'), '0');
    assert.ok(Number(series(body, 'kubemaint_last_tick_timestamp_seconds')) > 0);
  });

  it('a node marked between ticks is proposed by the tick its watch triggers', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    trigger = watchForChanges(kc, {
      namespace: 'kubemaint',
      onChange: () => void tick(),
      log: pino({ level: 'silent' }),
      debounceMs: 50,
    });
    await trigger.ready;
    const before = ticks;
    await sim.core.patchNode(
      { name: 'node-3', body: { metadata: { labels: { [REBOOT_LABEL]: 'true' } } } },
      MERGE_PATCH,
    );
    const body = await waitFor('node-3 proposed by a watch-triggered tick', async () => {
      const text = (await get('/metrics')).body;
      return series(text, 'kubemaint_requests{state="proposed"}') === '3' ? text : undefined;
    });
    assert.ok(ticks > before);
    assert.equal(series(body, 'kubemaint_reboot_required{node="node-3"}'), '1');
  });

  it('a tick that fails counts as an error and readiness says why', async () => {
    // Quiet first: no watch-triggered tick may run on the broken deps besides ours.
    trigger?.stop();
    await running;
    const healthy = deps;
    deps = {
      ...deps,
      cluster: {
        ...deps.cluster,
        // The tick's one-pass view would be a fresh, healthy cluster: this one must be the one used.
        onePass: undefined,
        listNodes: () => Promise.reject(new Error('apiserver unreachable')),
      },
    };
    try {
      await tick();
    } finally {
      deps = healthy;
    }
    const { body } = await get('/metrics');
    assert.equal(series(body, 'kubemaint_tick_errors_total'), '1');
    // One failure after a recent success: still ready (no flapping), and the reason is shown.
    const ready = await get('/readyz');
    assert.equal(ready.status, 200);
    assert.match(
      ready.body,
      /^ok: last successful tick \d+s ago; last tick failed: apiserver unreachable\n$/,
    );
  });
});
