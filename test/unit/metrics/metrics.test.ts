import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsNotifier } from '../../../src/adapters/metrics/notifier.js';
import { observeFleet, timeTick } from '../../../src/adapters/metrics/observe.js';
import {
  createMetrics,
  metricsText,
  type Metrics,
} from '../../../src/adapters/metrics/registry.js';
import type { MaintenanceEvent } from '../../../src/core/events.js';
import { fleetNode, fleetRequest as request, fleetView } from '../../fakes/fleet.js';

/** Value of one sample in the text exposition, or undefined when the series is absent. */
async function sample(metrics: Metrics, series: string): Promise<number | undefined> {
  const { body } = await metricsText(metrics);
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('observeFleet', () => {
  it('sets reboot_required per node, requests by state, slots, pause and window', async () => {
    const metrics = createMetrics({ processMetrics: false });
    observeFleet(
      metrics,
      fleetView({
        requests: [
          request('a', 'proposed'),
          request('b', 'running'),
          request('c', 'running'),
          request('e', 'done'),
        ],
        nodes: [
          fleetNode('a', { marked: true }),
          fleetNode('b', { marked: true }),
          fleetNode('c'),
          fleetNode('d'),
          fleetNode('e'),
        ],
        slots: [
          { name: 'kubemaint-slot-0', holder: 'b/r-b' },
          { name: 'kubemaint-slot-1', holder: '' },
          { name: 'kubemaint-slot-2', holder: '' },
        ],
        pause: { paused: true, by: 'k8s:alice' },
        window: { open: false, line: 'closed now' },
      }),
    );
    const table: [string, number | undefined][] = [
      ['kubemaint_reboot_required{node="a"}', 1],
      ['kubemaint_reboot_required{node="b"}', 1],
      ['kubemaint_reboot_required{node="c"}', 0],
      // Neither marked nor with a request: no series, as for a node kured does not run on.
      ['kubemaint_reboot_required{node="d"}', undefined],
      ['kubemaint_requests{state="proposed"}', 1],
      ['kubemaint_requests{state="running"}', 2],
      // Done requests count (issue 19: the tick's own read saw only active ones).
      ['kubemaint_requests{state="done"}', 1],
      ['kubemaint_requests{state="failed"}', 0],
      ['kubemaint_slots_in_use', 1],
      ['kubemaint_slots_total', 3],
      ['kubemaint_paused', 1],
      ['kubemaint_window_open', 0],
    ];
    for (const [series, want] of table) assert.equal(await sample(metrics, series), want, series);
  });

  it('a later read replaces the per-node series', async () => {
    const metrics = createMetrics({ processMetrics: false });
    observeFleet(metrics, fleetView({ nodes: [fleetNode('a', { marked: true })] }));
    observeFleet(metrics, fleetView({ nodes: [fleetNode('b', { marked: true })] }));
    assert.equal(await sample(metrics, 'kubemaint_reboot_required{node="a"}'), undefined);
    assert.equal(await sample(metrics, 'kubemaint_reboot_required{node="b"}'), 1);
    assert.equal(await sample(metrics, 'kubemaint_slots_total'), 0);
  });
});

describe('timeTick', () => {
  it('records duration and timestamp on success, the error counter on a throw', async () => {
    const metrics = createMetrics({ processMetrics: false });
    let now = Date.parse('2026-11-01T00:00:00Z');
    const clock = { now: () => new Date(now) };
    const result = await timeTick(metrics, clock, () => {
      now += 1_500;
      return Promise.resolve('report');
    });
    assert.equal(result, 'report');
    assert.equal(await sample(metrics, 'kubemaint_last_tick_timestamp_seconds'), now / 1000);
    assert.equal(await sample(metrics, 'kubemaint_tick_duration_seconds_sum'), 1.5);
    await assert.rejects(
      timeTick(metrics, clock, () => Promise.reject(new Error('apiserver down'))),
      /apiserver down/,
    );
    assert.equal(await sample(metrics, 'kubemaint_tick_errors_total'), 1);
    assert.equal(await sample(metrics, 'kubemaint_tick_duration_seconds_count'), 2);
    assert.equal(await sample(metrics, 'kubemaint_last_tick_timestamp_seconds'), now / 1000);
  });
});

describe('metricsNotifier', () => {
  const ran = request('n1', 'done', {
    hostCommandIssuedAt: '2026-11-01T01:05:00.000Z',
    history: [
      { from: null, to: 'proposed', at: '2026-11-01T00:00:00.000Z', by: 'detector' },
      { from: 'approved', to: 'running', at: '2026-11-01T01:00:00.000Z', by: 'kubemaint' },
    ],
  });
  const event = (
    kind: MaintenanceEvent['kind'],
    at: string,
    durationMs?: number,
  ): MaintenanceEvent => ({
    kind,
    node: 'n1',
    cluster: 'sim',
    requestId: ran.id,
    action: 'reboot',
    at,
    ...(durationMs === undefined ? {} : { durationMs }),
  });

  it('observes host, drain and maintenance durations from the request record', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const notifier = metricsNotifier(metrics);
    await notifier.notify(event('back', '2026-11-01T01:08:00.000Z'), ran);
    await notifier.notify(event('done', '2026-11-01T01:09:00.000Z', 9 * 3_600_000), ran);
    // Reported twice (a retried persist): observed once.
    await notifier.notify(event('done', '2026-11-01T01:09:00.000Z', 9 * 3_600_000), ran);
    const table: [string, number][] = [
      ['kubemaint_reboot_duration_seconds_sum{action="reboot"}', 180],
      ['kubemaint_drain_duration_seconds_sum{action="reboot"}', 300],
      ['kubemaint_drain_duration_seconds_count{action="reboot"}', 1],
      ['kubemaint_maintenance_duration_seconds_sum{action="reboot"}', 540],
      ['kubemaint_maintenance_duration_seconds_count{action="reboot"}', 1],
      ['kubemaint_requests_finished_total{action="reboot",outcome="done"}', 1],
    ];
    for (const [series, want] of table) assert.equal(await sample(metrics, series), want, series);
  });

  it("falls back to the event's durationMs and counts failures; other kinds change nothing", async () => {
    const metrics = createMetrics({ processMetrics: false });
    const notifier = metricsNotifier(metrics);
    const bare = request('n2', 'done', { id: 'r-bare' });
    await notifier.notify(
      { ...event('done', '2026-11-01T03:00:00.000Z', 120_000), requestId: 'r-bare' },
      bare,
    );
    await notifier.notify(
      { ...event('failed', '2026-11-01T03:00:00.000Z'), requestId: 'r-f' },
      bare,
    );
    await notifier.notify(
      { ...event('proposed', '2026-11-01T03:00:00.000Z'), requestId: 'r-p' },
      bare,
    );
    assert.equal(
      await sample(metrics, 'kubemaint_maintenance_duration_seconds_sum{action="reboot"}'),
      120,
    );
    // No running transition, no host command: no drain to measure, so no drain series at all.
    assert.equal(
      await sample(metrics, 'kubemaint_drain_duration_seconds_count{action="reboot"}'),
      undefined,
    );
    assert.equal(
      await sample(metrics, 'kubemaint_requests_finished_total{action="reboot",outcome="failed"}'),
      1,
    );
  });
});

describe('createMetrics', () => {
  it('uses its own registry, so two instances coexist, with process metrics by default', async () => {
    const one = createMetrics();
    const two = createMetrics();
    assert.notEqual(one.registry, two.registry);
    const { body, contentType } = await metricsText(one);
    assert.match(contentType, /^text\/plain/);
    assert.match(body, /^process_cpu_user_seconds_total /m);
    assert.match(body, /^# TYPE kubemaint_reboot_required gauge$/m);
  });
});
