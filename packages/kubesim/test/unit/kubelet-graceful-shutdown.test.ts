import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationSeconds, gracefulShutdownOn } from '../../src/kubelet-configz.js';

describe('kubelet graceful shutdown config: when the node shutdown manager runs', () => {
  it('reads Go durations', () => {
    assert.equal(durationSeconds('20s'), 20);
    assert.equal(durationSeconds('1m30s'), 90);
    assert.equal(durationSeconds('0'), 0);
    assert.equal(durationSeconds('1h0m0.5s'), 3600.5);
  });

  it('is on with a period above 0 and critical pods within it, as upstream migrateConfig', () => {
    const on = (period: string, critical: string) =>
      gracefulShutdownOn({
        shutdownGracePeriod: period,
        shutdownGracePeriodCriticalPods: critical,
      });
    assert.equal(on('20s', '0s'), true);
    assert.equal(on('30s', '10s'), true);
    assert.equal(on('30s', '30s'), true);
    assert.equal(on('0s', '0s'), false);
    assert.equal(on('10s', '20s'), false);
    const byPriority = [{ priority: 0, shutdownGracePeriodSeconds: 10 }];
    assert.equal(
      gracefulShutdownOn({
        shutdownGracePeriod: '0s',
        shutdownGracePeriodCriticalPods: '0s',
        shutdownGracePeriodByPodPriority: byPriority,
      }),
      true,
    );
  });

  it('names a value that is not a duration', () => {
    assert.throws(
      () =>
        gracefulShutdownOn({ shutdownGracePeriod: '20', shutdownGracePeriodCriticalPods: '0s' }),
      /shutdownGracePeriod must be a duration .* got "20"/,
    );
    assert.throws(
      () =>
        gracefulShutdownOn({ shutdownGracePeriod: '20s', shutdownGracePeriodCriticalPods: 'x' }),
      /shutdownGracePeriodCriticalPods must be a duration .* got "x"/,
    );
  });
});
