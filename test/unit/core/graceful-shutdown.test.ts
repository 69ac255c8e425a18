import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeGracefulShutdown,
  gracefulShutdownWarning,
  parseGoDuration,
  parsePriorityGroups,
  readGracefulShutdown,
} from '../../../src/core/graceful-shutdown.js';

const PERIOD = 'kubemaint.io/shutdown-grace-period';
const CRITICAL = 'kubemaint.io/shutdown-grace-period-critical-pods';
const SOURCE = 'kubemaint.io/shutdown-grace-period-source';
const BY_PRIORITY = 'kubemaint.io/shutdown-grace-period-by-pod-priority';
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

describe('readGracefulShutdown: a kubelet with shutdownGracePeriodByPodPriority', () => {
  // What the agent writes for groups 0: 1m20s and 2000000000: 10s (the kubelet waits for each in
  // turn, so its delay is their sum; critical pods are in the 2000000000 group).
  const annotations = {
    [PERIOD]: '1m30s',
    [CRITICAL]: '10s',
    [SOURCE]: 'configz',
    [BY_PRIORITY]: '0:1m20s,2000000000:10s',
  };

  it('on: the total, the critical share and each group, said to be by pod priority', () => {
    const fact = readGracefulShutdown(annotations);
    assert.deepEqual(fact, {
      state: 'on',
      period: '1m30s',
      critical: '10s',
      source: 'configz',
      byPodPriority: [
        { priority: 0, period: '1m20s' },
        { priority: 2000000000, period: '10s' },
      ],
    });
    assert.equal(gracefulShutdownWarning(fact), undefined);
    assert.equal(
      describeGracefulShutdown(fact),
      '1m30s by pod priority (priority ≥0: 1m20s, ≥2000000000: 10s; critical pods 10s), from configz',
    );
  });

  it('off: groups that total 0s warn, naming the list and its fix, not shutdownGracePeriod', () => {
    const fact = readGracefulShutdown({
      ...annotations,
      [PERIOD]: '0s',
      [CRITICAL]: '0s',
      [BY_PRIORITY]: '-5:0s,2000000000:0s',
    });
    assert.equal(fact.state, 'off');
    assert.equal(
      gracefulShutdownWarning(fact),
      'shutdownGracePeriodByPodPriority totals 0s (priority ≥-5: 0s, ≥2000000000: 0s; from configz): pods will not be terminated gracefully on reboot: give shutdownGracePeriodByPodPriority periods in the kubelet config',
    );
  });

  it('an unreadable list leaves the total and the critical share as they are', () => {
    const fact = readGracefulShutdown({ ...annotations, [BY_PRIORITY]: '0:1m20s,high:10s' });
    assert.deepEqual(fact, { state: 'on', period: '1m30s', critical: '10s', source: 'configz' });
  });

  const groups: [string, unknown][] = [
    ['0:20s', [{ priority: 0, period: '20s' }]],
    [
      '-100:5s,2000001000:1h0m0s',
      [
        { priority: -100, period: '5s' },
        { priority: 2000001000, period: '1h0m0s' },
      ],
    ],
    ['', undefined],
    ['0:20', undefined],
    ['0:20s,', undefined],
    ['1.5:20s', undefined],
    ['12345678901:20s', undefined],
  ];
  for (const [text, want] of groups)
    it(`parsePriorityGroups(${JSON.stringify(text)})`, () =>
      assert.deepEqual(parsePriorityGroups(text), want));
});
