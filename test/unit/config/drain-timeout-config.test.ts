/** drain.onTimeout and drain.forceAfter (issue 18): parsed, checked against the Job's deadline, mapped. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configOf, problemsOf } from '../../support/config.js';
import { settingsFromConfig } from '../../../src/compose/executor-settings.js';

describe('drain.onTimeout', () => {
  it('defaults to ask, which the executor is not even told about (its settings stay as they were)', () => {
    const config = configOf({});
    assert.equal(config.drain.onTimeout, 'ask');
    assert.equal(settingsFromConfig(config).drain.onTimeout, undefined);
  });

  it('uncordon and force reach the executor; force with its second deadline (5m unless set)', () => {
    assert.deepEqual(
      pick(settingsFromConfig(configOf({ drain: { onTimeout: 'uncordon' } })).drain),
      { onTimeout: 'uncordon', forceAfterMs: 0 },
    );
    assert.deepEqual(pick(settingsFromConfig(configOf({ drain: { onTimeout: 'force' } })).drain), {
      onTimeout: 'force',
      forceAfterMs: 300_000,
    });
    assert.deepEqual(
      pick(
        settingsFromConfig(configOf({ drain: { onTimeout: 'force', forceAfter: '20m' } })).drain,
      ),
      { onTimeout: 'force', forceAfterMs: 1_200_000 },
    );
  });

  it('names the choices when the value is not one of them', () => {
    const [problem] = problemsOf({ drain: { onTimeout: 'evict' } });
    assert.equal(problem?.path, 'drain.onTimeout');
    assert.match(`${problem?.message} ${problem?.hint ?? ''}`, /ask.*uncordon.*force/);
  });

  it('refuses forceAfter without onTimeout force, saying what it belongs to', () => {
    const [problem] = problemsOf({ drain: { forceAfter: '5m' } });
    assert.equal(problem?.path, 'drain.forceAfter');
    assert.match(
      problem?.message ?? '',
      /second deadline of drain.onTimeout: force, but onTimeout is ask/,
    );
    assert.match(problem?.hint ?? '', /set drain.onTimeout: force/);
  });

  it('counts the second deadline against the Job’s deadline', () => {
    const doc = {
      drain: { timeout: '1h', onTimeout: 'force', forceAfter: '1h' },
      executor: { activeDeadline: '2h' },
    };
    const [problem] = problemsOf(doc);
    assert.equal(problem?.path, 'executor.activeDeadline');
    assert.match(problem?.message ?? '', /drain.forceAfter/);
    assert.deepEqual(problemsOf({ ...doc, drain: { ...doc.drain, forceAfter: '50m' } }), []);
  });

  it('a bad forceAfter is a bad duration', () => {
    const [problem] = problemsOf({ drain: { onTimeout: 'force', forceAfter: 'soon' } });
    assert.equal(problem?.path, 'drain.forceAfter');
    assert.match(problem?.message ?? '', /"soon" is not a duration/);
  });
});

function pick(drain: { onTimeout?: string; forceAfterMs?: number }) {
  return { onTimeout: drain.onTimeout, forceAfterMs: drain.forceAfterMs };
}
