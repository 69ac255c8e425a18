import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeGracefulShutdown,
  gracefulShutdownWarning,
  parseGoDuration,
  readGracefulShutdown,
} from '../../../src/core/graceful-shutdown.js';

const PERIOD = 'kubemaint.io/shutdown-grace-period';
const CRITICAL = 'kubemaint.io/shutdown-grace-period-critical-pods';
const SOURCE = 'kubemaint.io/shutdown-grace-period-source';
const FIX =
  /pods will not be terminated gracefully on reboot: set shutdownGracePeriod in the kubelet config/;

describe('parseGoDuration: the kubelet spelling of a duration (Go time.Duration)', () => {
  const good: [string, number][] = [
    ['0', 0],
    ['0s', 0],
    ['20s', 20_000],
    ['1m30s', 90_000],
    ['1h0m0s', 3_600_000],
    ['1.5s', 1_500],
    ['500ms', 500],
    ['2us', 0.002],
    ['.5s', 500],
  ];
  for (const [text, ms] of good)
    it(`${text} is ${ms} ms`, () => assert.equal(parseGoDuration(text), ms));
  for (const bad of ['', '20', '-5s', '20 s', 's', '5d', '20s ', 'x20s', '20sx', '1m30'])
    it(`${JSON.stringify(bad)} is not a duration`, () =>
      assert.equal(parseGoDuration(bad), undefined));
});

describe('readGracefulShutdown: the agent annotations on a node', () => {
  it('on: the period, the critical pods share and the source', () => {
    const fact = readGracefulShutdown({ [PERIOD]: '20s', [CRITICAL]: '5s', [SOURCE]: 'configz' });
    assert.deepEqual(fact, { state: 'on', period: '20s', critical: '5s', source: 'configz' });
    assert.equal(gracefulShutdownWarning(fact), undefined);
    assert.equal(describeGracefulShutdown(fact), '20s (critical pods 5s), from configz');
  });

  it('off: 0s warns, naming the source and the fix', () => {
    const fact = readGracefulShutdown({ [PERIOD]: '0s', [CRITICAL]: '0s', [SOURCE]: 'file' });
    assert.equal(fact.state, 'off');
    const warning = gracefulShutdownWarning(fact)!;
    assert.match(warning, /^shutdownGracePeriod is 0s \(from file\): /);
    assert.match(warning, FIX);
  });

  it('unknown: no annotation (no agent, or it could read neither configz nor the file) warns', () => {
    const fact = readGracefulShutdown({});
    assert.equal(fact.state, 'unknown');
    assert.match(
      gracefulShutdownWarning(fact)!,
      /unknown: the node has no kubemaint\.io\/shutdown-grace-period annotation/,
    );
    assert.match(gracefulShutdownWarning(fact)!, FIX);
  });

  it('unknown: a value that is not a duration is named, cut short', () => {
    const fact = readGracefulShutdown({ [PERIOD]: `forever${'x'.repeat(100)}` });
    assert.equal(fact.state, 'unknown');
    const warning = gracefulShutdownWarning(fact)!;
    assert.match(warning, /is "foreverx+", not a duration/);
    assert.ok(warning.length < 250, warning);
  });

  it('a set period without a critical annotation reads the critical share as 0s', () => {
    assert.deepEqual(readGracefulShutdown({ [PERIOD]: '30s', [SOURCE]: 'configz' }), {
      state: 'on',
      period: '30s',
      critical: '0s',
      source: 'configz',
    });
  });
});
