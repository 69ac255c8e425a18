/** What a hook's Job means for its request (core/hooks.ts, ADR 0021). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeHook } from '../../../src/core/hooks.js';

const run = { job: 'kubemaint-hook-b-r-1-n1', startedAt: '2026-11-01T02:00:00Z' };
const at = (minutes: number) => new Date(Date.parse(run.startedAt) + minutes * 60_000);
const TEN_MIN = 10 * 60_000;

describe('judgeHook', () => {
  it('a Job still running within its timeout (and a minute of grace) is running', () => {
    assert.deepEqual(judgeHook(run, { phase: 'active' }, TEN_MIN, at(10.5)), {
      outcome: 'running',
    });
  });
  it('one still running past it has failed: its deadline did not stop it', () => {
    assert.deepEqual(judgeHook(run, { phase: 'active' }, TEN_MIN, at(12)), {
      outcome: 'failed',
      why: 'hook Job kubemaint-hook-b-r-1-n1 still running past its timeout',
    });
  });
  it('a failed Job says its exit code, the last lines of its log and the Job’s reason', () => {
    const verdict = judgeHook(
      run,
      {
        phase: 'failed',
        exitCode: 3,
        podMessage: 'starting\nconnecting\ncopying\nbackup failed: disk full\n',
        message: 'Job has reached the specified backoff limit',
      },
      TEN_MIN,
      at(1),
    );
    assert.deepEqual(verdict, {
      outcome: 'failed',
      why: 'hook Job kubemaint-hook-b-r-1-n1 failed: exit 3: connecting | copying | backup failed: disk full: Job has reached the specified backoff limit',
    });
  });
  it('a Job that timed out says so; one that vanished too', () => {
    assert.match(
      JSON.stringify(
        judgeHook(
          run,
          { phase: 'failed', message: 'Job was active longer than specified deadline' },
          TEN_MIN,
          at(10),
        ),
      ),
      /failed: Job was active longer than specified deadline/,
    );
    assert.deepEqual(judgeHook(run, undefined, TEN_MIN, at(1)), {
      outcome: 'failed',
      why: 'hook Job kubemaint-hook-b-r-1-n1 vanished',
    });
  });
  it('succeeded is succeeded', () => {
    assert.deepEqual(judgeHook(run, { phase: 'succeeded' }, TEN_MIN, at(1)), {
      outcome: 'succeeded',
    });
  });
});
