/**
 * The fleet-health gates of core/policy.ts: the soak after the last node, other nodes that flapped,
 * Prometheus query gates (fail closed), each reason naming what blocks, every failing one listed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluatePolicy, type PolicyFacts } from '../../../src/core/policy.js';
import type { QueryGate } from '../../../src/core/query-gate.js';

const now = new Date('2026-11-25T03:00:00Z');
const reasons = (facts: Partial<PolicyFacts>) => {
  const verdict = evaluatePolicy({ node: 'node-1', ...facts }, now);
  return verdict.verdict === 'proceed' ? [] : verdict.reasons.map((r) => `${r.gate}: ${r.message}`);
};
const gate: QueryGate = { name: 'errors', query: 'errors > 0', expect: { kind: 'empty' } };

describe('soak', () => {
  const last = { node: 'node-4', at: new Date(now.getTime() - 4 * 60_000) };
  it('waits until the soak after the last node has passed', () => {
    assert.deepEqual(reasons({ soak: { ms: 10 * 60_000, last } }), [
      'soak: soaking 10m after node-4 came back (Wed 02:56 UTC); the next node may start Wed 03:06 UTC',
    ]);
    assert.deepEqual(reasons({ soak: { ms: 4 * 60_000, last } }), [], 'exactly over');
    assert.deepEqual(reasons({ soak: { ms: 10 * 60_000 } }), [], 'no node came back yet');
    assert.deepEqual(reasons({ soak: { ms: 0, last } }), [], 'off');
  });
  it("a soak of 0 is off, even for a node whose return is stamped ahead of this clock (another host's)", () => {
    const ahead = { node: 'node-4', at: new Date(now.getTime() + 30_000) };
    assert.deepEqual(reasons({ soak: { ms: 0, last: ahead } }), []);
  });
});

describe('flapping', () => {
  const withinMs = 6 * 3_600_000;
  it('names one node, or counts several; the candidate itself does not count', () => {
    assert.deepEqual(
      reasons({ flapping: { nodes: [{ name: 'node-5', times: 3 }], max: 2, withinMs } }),
      ['flapping: node node-5 went NotReady 3 times in the last 6h; at most 2 allowed'],
    );
    assert.deepEqual(
      reasons({
        flapping: {
          nodes: [
            { name: 'node-7', times: 4 },
            { name: 'node-5', times: 3 },
            { name: 'node-6', times: 2 },
            { name: 'node-1', times: 9 },
          ],
          max: 2,
          withinMs,
        },
      }),
      ['flapping: 2 nodes went NotReady more than 2 times in the last 6h: node-5 (3), node-7 (4)'],
    );
    assert.deepEqual(
      reasons({ flapping: { nodes: [{ name: 'node-1', times: 9 }], max: 0, withinMs } }),
      [],
    );
  });
  it('names several flapping nodes in name order, whatever order they were read in', () => {
    for (const order of [
      ['node-5', 'node-6', 'node-7'],
      ['node-7', 'node-5', 'node-6'],
      ['node-6', 'node-7', 'node-5'],
    ]) {
      const nodes = order.map((name) => ({ name, times: 3 }));
      assert.deepEqual(reasons({ flapping: { nodes, max: 2, withinMs } }), [
        'flapping: 3 nodes went NotReady more than 2 times in the last 6h: node-5 (3), node-6 (3), node-7 (3)',
      ]);
    }
  });
  it('an unreadable history blocks', () => {
    assert.deepEqual(reasons({ flapping: { error: 'nodes: 503' } }), [
      "flapping: could not read the nodes' NotReady history: nodes: 503",
    ]);
  });
});

describe('queries', () => {
  it('one reason per failing gate; an unanswered one blocks with its query', () => {
    const steps = [{ at: now, samples: [{ labels: { job: 'api' }, value: 2 }] }];
    assert.deepEqual(
      reasons({
        queries: [
          { gate, answer: { steps } },
          { gate: { ...gate, name: 'quiet' }, answer: { steps: [{ at: now, samples: [] }] } },
          { gate: { query: 'up == 0', expect: { kind: 'empty' } }, answer: { error: 'HTTP 503' } },
        ],
      }),
      [
        'queries: Prometheus gate errors (errors > 0) returned {job="api"} 2; expected no series',
        'queries: could not evaluate Prometheus gate up == 0: HTTP 503',
      ],
    );
  });
  it('every failing gate is listed with the others', () => {
    const all = reasons({
      soak: { ms: 600_000, last: { node: 'node-4', at: now } },
      flapping: { nodes: [{ name: 'node-5', times: 3 }], max: 0, withinMs: 3_600_000 },
      queries: [{ gate, answer: { error: 'down' } }],
    });
    assert.deepEqual(
      all.map((r) => r.split(':')[0]),
      ['soak', 'flapping', 'queries'],
    );
  });
});
