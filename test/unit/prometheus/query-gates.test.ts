/**
 * The query-gate adapter's shapes: a subquery's matrix cut into the aligned steps of the span (a step
 * with no series is an empty answer), the subquery it sends, and answers it refuses to judge.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  prometheusQueries,
  stepSeconds,
  stepsOf,
} from '../../../src/adapters/prometheus/query-gates.js';
import type { QueryData } from '../../../src/adapters/prometheus/http.js';

const at = new Date('2026-11-25T03:00:07.500Z');
const t = (seconds: number) => Date.UTC(2026, 10, 25, 3, 0, seconds) / 1000;

describe('stepsOf', () => {
  it('one step per aligned time inside the span, oldest first, missing series as empty', () => {
    const data: QueryData = {
      resultType: 'matrix',
      result: [
        {
          metric: { job: 'a' },
          values: [
            [t(4), '1'],
            [t(6), '+Inf'],
          ],
        },
        {
          metric: { job: 'b' },
          values: [
            [t(2), '3'],
            [t(6), 'NaN'],
          ],
        },
      ],
    };
    const steps = stepsOf(data, at, 6, 2);
    assert.deepEqual(
      steps.map((s) => [
        s.at.toISOString().slice(17, 19),
        s.samples.map((x) => `${x.labels['job']}=${x.value}`),
      ]),
      [
        ['02', ['b=3']],
        ['04', ['a=1']],
        ['06', ['a=Infinity', 'b=NaN']],
      ],
    );
  });
  it('refuses an instant answer where a subquery was sent', () => {
    assert.throws(
      () => stepsOf({ resultType: 'vector', result: [] }, at, 6, 2),
      /subquery answered a vector/,
    );
  });
});

describe('stepSeconds', () => {
  it('about 30 steps, between 1 s and 60 s', () => {
    assert.equal(stepSeconds(5_000), 1);
    assert.equal(stepSeconds(300_000), 10);
    assert.equal(stepSeconds(6 * 3_600_000), 60);
  });
});

describe('prometheusQueries', () => {
  const answering = (body: unknown, seen: string[]) =>
    (async (url: string | URL | Request) => {
      seen.push(url instanceof Request ? url.url : url.toString());
      return new Response(JSON.stringify(body), { status: 200 });
    }) as typeof fetch;

  it('sends the gate as a subquery over its span at one time, and names Prometheus on failure', async () => {
    const seen: string[] = [];
    const port = prometheusQueries({
      url: 'http://prom:9090/prefix/',
      fetch: answering({ status: 'success', data: { resultType: 'matrix', result: [] } }, seen),
      now: () => at,
    });
    const { steps } = await port.answer({
      query: 'up == 0',
      expect: { kind: 'empty' },
      forMs: 60_000,
    });
    assert.equal(steps.length, 30);
    const url = new URL(seen[0]!);
    assert.equal(url.pathname, '/prefix/api/v1/query');
    assert.equal(url.searchParams.get('query'), '(up == 0)[60s:2s]');
    assert.equal(url.searchParams.get('time'), String(at.getTime() / 1000));

    const broken = prometheusQueries({
      url: 'http://prom:9090',
      fetch: answering({ status: 'success', data: { resultType: 'string', result: [1, 'x'] } }, []),
    });
    await assert.rejects(
      broken.answer({ query: '"x"', expect: { kind: 'empty' } }),
      /^Error: Prometheus at http:\/\/prom:9090: the answer is a string, not an instant vector/,
    );
  });
});
