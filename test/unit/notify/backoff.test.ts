/** Retry timing: backoff with jitter, Retry-After in both forms, and when to give up. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, DEFAULT_RETRY, nextRetry } from '../../../src/adapters/notify/backoff.js';
import { parseRetryAfter, retryAfterFromBody } from '../../../src/adapters/notify/retry-after.js';
import { headerName } from '../../../src/adapters/notify/generic.js';

describe('backoffDelay', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 1_000, maxDelayMs: 8_000 };
  const cases: [retry: number, random: number, ms: number][] = [
    [1, 0, 500],
    [1, 1, 1_000],
    [2, 0.5, 1_500],
    [3, 0, 2_000],
    [4, 1, 8_000],
    [6, 1, 8_000],
    [6, 0, 4_000],
  ];
  for (const [retry, random, ms] of cases) {
    it(`waits ${ms}ms before retry ${retry} when jitter draws ${random}`, () => {
      assert.equal(
        backoffDelay(retry, policy, () => random),
        ms,
      );
    });
  }
});

describe('nextRetry', () => {
  const policy = { ...DEFAULT_RETRY, attempts: 3, deadlineMs: 60_000, maxRetryAfterMs: 30_000 };
  const half = () => 0.5;
  const cases: [string, Parameters<typeof nextRetry>[0], number, number, unknown][] = [
    ['a refusal is final', { retryable: false }, 1, 0, false],
    ['a 5xx is retried after backoff', { retryable: true }, 1, 0, 750],
    ['a Retry-After is honoured as given', { retryable: true, retryAfterMs: 12_000 }, 1, 0, 12_000],
    ['too long a Retry-After gives up', { retryable: true, retryAfterMs: 31_000 }, 1, 0, false],
    ['the last attempt is final', { retryable: true }, 3, 0, false],
    [
      'no retry starts after the deadline',
      { retryable: true, retryAfterMs: 5_000 },
      1,
      56_000,
      false,
    ],
  ];
  for (const [name, failure, attempt, elapsed, expected] of cases) {
    it(name, () => {
      const decision = nextRetry(failure, attempt, elapsed, policy, half);
      assert.equal(decision.retry ? decision.delayMs : false, expected);
    });
  }
});

describe('Retry-After', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  const cases: [string | null, number | undefined][] = [
    ['120', 120_000],
    ['1.5', 1_500],
    ['Sun, 01 Mar 2026 10:00:30 GMT', 30_000],
    ['Sun, 01 Mar 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    [null, undefined],
  ];
  for (const [header, ms] of cases) {
    it(`reads ${JSON.stringify(header)} as ${ms}ms`, () =>
      assert.equal(parseRetryAfter(header, now), ms));
  }

  it('reads Discord and Telegram bodies', () => {
    assert.equal(retryAfterFromBody('{"message":"rate limited","retry_after":0.25}'), 250);
    assert.equal(retryAfterFromBody('{"ok":false,"parameters":{"retry_after":4}}'), 4_000);
    assert.equal(retryAfterFromBody('busy'), undefined);
  });
});

describe('generic header names', () => {
  const cases: [string, string][] = [
    ['authorization', 'Authorization'],
    ['xApiKey', 'X-Api-Key'],
    ['X-Custom-Header', 'X-Custom-Header'],
  ];
  for (const [key, name] of cases)
    it(`@${key} → ${name}`, () => assert.equal(headerName(key), name));
});
