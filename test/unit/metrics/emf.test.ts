/**
 * The Lambda functions' metrics as CloudWatch Embedded Metric Format: documents CloudWatch accepts
 * (its limits: 100 metrics per directive, 100 values per metric), the catalog's names and units, and
 * the same samples serve's registry gets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Sample } from '../../../src/adapters/metrics/catalog.js';
import { emfLines } from '../../../src/adapters/metrics/emf.js';
import { emfNotifier } from '../../../src/adapters/metrics/emf-notifier.js';
import { fleetSamples } from '../../../src/adapters/metrics/samples.js';
import { fleetNode, fleetRequest, fleetView } from '../../fakes/fleet.js';

interface Document {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

const at = new Date('2026-11-01T02:00:00Z');
const parse = (lines: string[]): Document[] => lines.map((l) => JSON.parse(l) as Document);

/** Every value CloudWatch would take from the documents for `name` with these dimension values. */
function values(docs: Document[], name: string, where: Record<string, string> = {}): unknown[] {
  return docs
    .filter((d) => d._aws.CloudWatchMetrics[0]!.Metrics.some((m) => m.Name === name))
    .filter((d) => Object.entries(where).every(([k, v]) => d[k] === v))
    .map((d) => d[name]);
}

describe('emfLines', () => {
  it('fleet gauges: one document per dimension set, every metric of it declared', () => {
    const docs = parse(
      emfLines(
        fleetSamples(
          fleetView({
            requests: [fleetRequest('a', 'done'), fleetRequest('b', 'proposed')],
            nodes: [
              fleetNode('a', { marked: true }),
              fleetNode('b', { marked: true }),
              fleetNode('c', { marked: true }),
            ],
            slots: [{ name: 'kubemaint-slot-0', holder: 'b/r-b' }],
          }),
        ),
        { at, dimensions: { cluster: 'prod' } },
      ),
    );
    for (const doc of docs) {
      const directive = doc._aws.CloudWatchMetrics[0]!;
      assert.equal(doc._aws.Timestamp, at.getTime());
      assert.equal(directive.Namespace, 'kubemaint');
      assert.equal(doc['cluster'], 'prod');
      // Every dimension named has a value, every metric declared has one.
      for (const dimension of directive.Dimensions[0]!)
        assert.equal(typeof doc[dimension], 'string');
      for (const metric of directive.Metrics) assert.notEqual(doc[metric.Name], undefined);
    }
    assert.deepEqual(values(docs, 'kubemaint_requests', { state: 'done' }), [1]);
    assert.deepEqual(values(docs, 'kubemaint_requests', { state: 'failed' }), [0]);
    // No per-node dimension in CloudWatch: how many nodes are marked.
    assert.deepEqual(values(docs, 'kubemaint_reboot_required'), [3]);
    assert.deepEqual(values(docs, 'kubemaint_slots_in_use'), [1]);
    const units = Object.fromEntries(
      docs.flatMap((d) => d._aws.CloudWatchMetrics[0]!.Metrics.map((m) => [m.Name, m.Unit])),
    );
    assert.equal(units['kubemaint_requests'], 'None');
  });

  it('histogram observations stay separate values, 100 at most per document; counters add up', () => {
    const samples: Sample[] = [
      ...Array.from({ length: 250 }, (_, i): Sample => ({
        name: 'kubemaint_tick_duration_seconds',
        value: i / 10,
      })),
      { name: 'kubemaint_tick_errors_total', value: 1 },
      { name: 'kubemaint_tick_errors_total', value: 1 },
    ];
    const docs = parse(emfLines(samples, { at, dimensions: { cluster: 'prod' } }));
    const chunks = values(docs, 'kubemaint_tick_duration_seconds') as number[][];
    assert.deepEqual(
      chunks.map((c) => c.length),
      [100, 100, 50],
    );
    assert.equal(chunks.flat().length, 250);
    assert.deepEqual(values(docs, 'kubemaint_tick_errors_total'), [2]);
    const unit = docs[0]!._aws.CloudWatchMetrics[0]!.Metrics.find(
      (m) => m.Name === 'kubemaint_tick_duration_seconds',
    )?.Unit;
    assert.equal(unit, 'Seconds');
  });

  it('a notifier writes each report once, with the event cluster as dimension', async () => {
    const lines: string[] = [];
    const notifier = emfNotifier({ write: (line) => lines.push(line), now: () => at });
    const request = fleetRequest('n1', 'done', {
      hostCommandIssuedAt: '2026-11-01T01:05:00.000Z',
      history: [{ from: 'approved', to: 'running', at: '2026-11-01T01:00:00.000Z', by: 'x' }],
    });
    const event = {
      kind: 'done' as const,
      node: 'n1',
      cluster: 'prod',
      requestId: request.id,
      action: 'reboot' as const,
      at: '2026-11-01T01:09:00.000Z',
    };
    await notifier.notify(event, request);
    await notifier.notify(event, request);
    const docs = parse(lines);
    assert.deepEqual(values(docs, 'kubemaint_requests_finished_total', { outcome: 'done' }), [1]);
    assert.deepEqual(
      values(docs, 'kubemaint_maintenance_duration_seconds', { cluster: 'prod' }),
      [540],
    );
    assert.deepEqual(values(docs, 'kubemaint_drain_duration_seconds'), [300]);
  });
});
