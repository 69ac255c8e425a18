/**
 * What people and scrapers see of several clusters (issue 22): metrics with a `cluster` label (and
 * none with one cluster), `kubemaint status` with a section per cluster and `unreachable: <why>`,
 * the status page grouped by cluster, console lines naming the cluster, and the cross-cluster
 * gate's port: reads with a time limit, claims that count until they lapse or are given back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsNotifier } from '../../../src/adapters/metrics/notifier.js';
import { observeFleet, observeFleets, timeTick } from '../../../src/adapters/metrics/observe.js';
import { createMetrics, metricsText } from '../../../src/adapters/metrics/registry.js';
import { clusterPeers } from '../../../src/compose/cluster-peers.js';
import type { MaintenanceEvent } from '../../../src/core/events.js';
import { statusAcrossJson, statusAcrossTable } from '../../../templates/cli-status-clusters.js';
import { consoleLines } from '../../../templates/console.js';
import { clustersFragment } from '../../../templates/status-page/clusters.js';
import { fleetRequest as request, fleetView } from '../../fakes/fleet.js';

const body = async (metrics: ReturnType<typeof createMetrics>) => (await metricsText(metrics)).body;

describe('metrics with several clusters', () => {
  it('label each cluster’s gauges, and a read of one keeps the other’s series', async () => {
    const metrics = createMetrics({ processMetrics: false, clusters: true });
    const staging = fleetView({ cluster: 'staging', requests: [request('a', 'running')] });
    const production = fleetView({ cluster: 'production', requests: [request('b', 'done')] });
    observeFleets(metrics, [staging, production]);
    observeFleets(metrics, [staging, production]);
    const text = await body(metrics);
    assert.match(text, /kubemaint_requests\{state="running",cluster="staging"\} 1/);
    assert.match(text, /kubemaint_requests\{state="done",cluster="production"\} 1/);
    assert.match(text, /kubemaint_slots_total\{cluster="production"\} 0/);
  });
  it('label a tick and an event with their cluster', async () => {
    const metrics = createMetrics({ processMetrics: false, clusters: true });
    await timeTick(metrics, { now: () => new Date() }, () => Promise.resolve(1), 'staging');
    const event: MaintenanceEvent = {
      kind: 'done',
      node: 'a',
      cluster: 'production',
      requestId: 'r-a',
      action: 'reboot',
      durationMs: 60_000,
    };
    await metricsNotifier(metrics, { cluster: true }).notify(event, request('a', 'done'));
    const text = await body(metrics);
    assert.match(text, /kubemaint_tick_duration_seconds_count\{cluster="staging"\} 1/);
    assert.match(
      text,
      /kubemaint_requests_finished_total\{action="reboot",outcome="done",cluster="production"\} 1/,
    );
  });
  it('carry no cluster label with one cluster, as before', async () => {
    const metrics = createMetrics({ processMetrics: false });
    observeFleet(metrics, fleetView({ requests: [request('a', 'proposed')] }));
    const text = await body(metrics);
    assert.match(text, /^kubemaint_requests\{state="proposed"\} 1$/m);
    assert.match(text, /^kubemaint_tick_errors_total 0$/m, 'a label-less counter starts at 0');
  });
});

describe('status across clusters', () => {
  const now = new Date('2026-11-01T02:10:00Z');
  const shown = [
    { cluster: 'staging', view: fleetView({ requests: [request('node-2', 'proposed')] }) },
    { cluster: 'production', unreachable: 'connect ECONNREFUSED 127.0.0.1:6443' },
  ];
  it('has a section per cluster, in order, and says which cannot be reached and why', () => {
    const text = statusAcrossTable(shown, now);
    assert.match(text, /^cluster staging\n/);
    assert.match(text, /approve: kubemaint approve --cluster staging r-node-2/);
    assert.match(
      text,
      /\ncluster production\nunreachable: connect ECONNREFUSED 127\.0\.0\.1:6443\n$/,
    );
  });
  it('prints one JSON document with each cluster', () => {
    const doc = JSON.parse(statusAcrossJson(shown)) as { clusters: Record<string, unknown>[] };
    assert.deepEqual(
      doc.clusters.map((c) => [c['cluster'], c['unreachable'] ?? 'read']),
      [
        ['staging', 'read'],
        ['production', 'connect ECONNREFUSED 127.0.0.1:6443'],
      ],
    );
  });
  it('groups the status page by cluster and escapes what it shows', () => {
    const html = clustersFragment([
      { cluster: 'staging', fragment: '<p>rows</p>' },
      { cluster: 'production', unreachable: '<script>x</script>' },
    ]);
    assert.match(
      html,
      /<section class="cluster" data-cluster="staging">\n<p>rows<\/p>\n<\/section>/,
    );
    assert.match(html, /unreachable: &lt;script&gt;x&lt;\/script&gt;/);
  });
  it('names the cluster in console lines and in the commands they suggest', () => {
    const event: MaintenanceEvent = {
      kind: 'proposed',
      node: 'node-2',
      cluster: 'staging',
      requestId: 'r-abc123',
      action: 'reboot',
      at: '2026-11-01T02:00:00Z',
    };
    const [head, hint] = consoleLines(event, 'kubemaint', { several: true });
    assert.match(head ?? '', /proposed +staging\/node-2 reboot \[r-abc123\]/);
    assert.match(hint ?? '', /approve: kubemaint approve --cluster staging r-abc123/);
    assert.match(consoleLines(event, 'kubemaint')[0] ?? '', /proposed +node-2 reboot/);
  });
});

describe('the gate’s port over the clusters', () => {
  const gate = { order: [['staging'], ['production']], soak: 0, maxInMaintenance: 1 };
  it('reads each cluster through its own port; one that does not answer is a reason', async () => {
    const peers = clusterPeers({ gate, names: ['staging', 'production'], readTimeoutMs: 50 });
    peers.add('staging', { listRequests: () => Promise.resolve([request('a', 'running')]) });
    peers.add('production', { listRequests: () => new Promise(() => undefined) });
    const read = await peers.port.read(['staging', 'production']);
    assert.deepEqual(
      read.map((p) => ['error' in p ? p.error : 'requests', p.name]),
      [
        ['requests', 'staging'],
        ['no answer within 0.05s', 'production'],
      ],
    );
  });
  it('counts a claim until it lapses or is given back', () => {
    const peers = clusterPeers({ gate, names: ['staging', 'production'] });
    const at = new Date('2026-11-01T02:00:00Z');
    const giveBack = peers.port.claim('staging', at);
    assert.deepEqual(peers.port.claimed(at), ['staging']);
    assert.deepEqual(peers.port.claimed(new Date(at.getTime() + 61_000)), []);
    giveBack();
    assert.deepEqual(peers.port.claimed(at), []);
  });
});
