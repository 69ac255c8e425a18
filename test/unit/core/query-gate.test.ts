/** Query gates (core/query-gate.ts): expectations as written, judged per step, and the words people read. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeSamples,
  formatExpectation,
  judgeQuery,
  meets,
  parseExpectation,
  type QueryGate,
  type QuerySample,
  type QueryStep,
} from '../../../src/core/query-gate.js';

const s = (value: number, labels: Record<string, string> = { job: 'api' }): QuerySample => ({
  labels: { __name__: 'errors', ...labels },
  value,
});
const step = (seconds: number, ...samples: QuerySample[]): QueryStep => ({
  at: new Date(Date.UTC(2026, 10, 25, 3, 0, seconds)),
  samples,
});

describe('parseExpectation', () => {
  const cases: [string, ReturnType<typeof parseExpectation>][] = [
    ['empty', { kind: 'empty' }],
    ['nonEmpty', { kind: 'nonEmpty' }],
    ['below:0.02', { kind: 'below', value: 0.02 }],
    ['above: 3', { kind: 'above', value: 3 }],
    ['below:-1e3', { kind: 'below', value: -1000 }],
    ['below:', undefined],
    ['below:abc', undefined],
    ['below:Infinity', undefined],
    ['under:3', undefined],
    ['Empty', undefined],
  ];
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(want)}`, () => {
      assert.deepEqual(parseExpectation(text), want);
      if (want) assert.deepEqual(parseExpectation(formatExpectation(want)), want, 'round trip');
    });
  }
});

describe('meets', () => {
  it('below/above need a value, and every value must pass; NaN never does', () => {
    assert.equal(meets({ kind: 'below', value: 1 }, []), false);
    assert.equal(meets({ kind: 'below', value: 1 }, [s(0.5), s(0.9)]), true);
    assert.equal(meets({ kind: 'below', value: 1 }, [s(0.5), s(1)]), false);
    assert.equal(meets({ kind: 'above', value: 1 }, [s(2)]), true);
    assert.equal(meets({ kind: 'above', value: 1 }, [s(Number.NaN)]), false);
    assert.equal(meets({ kind: 'below', value: 1 }, [s(Number.NaN)]), false);
    assert.equal(meets({ kind: 'empty' }, []), true);
    assert.equal(meets({ kind: 'nonEmpty' }, []), false);
  });
});

describe('judgeQuery', () => {
  const gate: QueryGate = { name: '5xx', query: 'errors > 0', expect: { kind: 'empty' } };

  it('passes when every step meets the expectation', () => {
    assert.equal(judgeQuery(gate, [step(0), step(10)]), undefined);
  });

  it('names the gate, its query and what it returned', () => {
    assert.equal(
      judgeQuery(gate, [step(0, s(3), s(4, { job: 'web' }))]),
      'Prometheus gate 5xx (errors > 0) returned errors{job="api"} 3, errors{job="web"} 4; expected no series',
    );
  });

  it('with for: the latest failing step, with its time when it is not the last', () => {
    const held: QueryGate = {
      query: 'rate',
      expect: { kind: 'below', value: 0.02 },
      forMs: 300_000,
    };
    assert.equal(
      judgeQuery(held, [step(0, s(0.01)), step(10, s(0.5)), step(20, s(0.01))]),
      'Prometheus gate rate returned errors{job="api"} 0.5 at 2026-11-25T03:00:10.000Z; expected every value below 0.02 for 5m',
    );
    assert.match(
      judgeQuery(held, [step(0), step(10, s(0.01))]) ?? '',
      /returned nothing at .*for 5m$/,
    );
    assert.equal(judgeQuery(held, [step(0, s(0.01)), step(10, s(0.01))]), undefined);
  });

  it('no step at all blocks: nothing was judged', () => {
    assert.match(judgeQuery(gate, []) ?? '', /returned no answer/);
  });
});

describe('describeSamples', () => {
  it('shows three series and counts the rest; a scalar has no labels', () => {
    const many = [1, 2, 3, 4, 5].map((v) => s(v, { i: String(v) }));
    assert.equal(
      describeSamples(many),
      'errors{i="1"} 1, errors{i="2"} 2, errors{i="3"} 3 and 2 more',
    );
    assert.equal(describeSamples([{ labels: {}, value: 0.12345678 }]), '0.1235');
    assert.equal(describeSamples([]), 'nothing');
  });
});
