/**
 * ADR 0016: `lock:` is the old name of `slot:`. A file that still says `lock:` works, with one line
 * saying what to rename; its problems name the key the file has; both names at once is an error.
 * `slot.ttl: 0` means "never expires", as kured's `--lock-ttl=0`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/config/parse.js';
import { settingsFromConfig } from '../../../src/compose/executor-settings.js';

describe('lock: is read as slot:', () => {
  it('gives the same settings, and says to rename it', () => {
    const old = parseConfig('lock:\n  concurrency: 3\n  ttl: 10m\n', 'k.yaml');
    const now = parseConfig('slot:\n  concurrency: 3\n  ttl: 10m\n', 'k.yaml');
    assert.ok(old.ok && now.ok);
    assert.deepEqual(old.config.slot, now.config.slot);
    assert.deepEqual(old.config.deprecated, [
      'lock: is deprecated and read as slot: (same keys); rename it in the file',
    ]);
    assert.equal(now.config.deprecated, undefined);
  });
  it('names the problems under lock: by the key the file has', () => {
    const result = parseConfig('lock:\n  concurrncy: 2\n  pools: { gpu: 1 }\n', 'k.yaml');
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((p) => p.path),
      ['lock.concurrncy', 'lock.pools'],
    );
  });
  it('refuses both names at once', () => {
    const result = parseConfig('lock:\n  concurrency: 2\nslot:\n  concurrency: 3\n', 'k.yaml');
    assert.ok(!result.ok);
    assert.deepEqual(result.problems, [
      {
        path: 'lock',
        message: 'is the old name of slot:, and the file has both',
        hint: 'move these settings under slot: and remove lock:',
      },
    ]);
  });
});

describe('slot.ttl: 0 never expires', () => {
  it('is accepted and reaches the executor as 0', () => {
    const result = parseConfig('slot:\n  ttl: 0\n', 'k.yaml');
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.config.slot.ttl, 0);
    assert.equal(settingsFromConfig(result.config).lock.ttlMs, 0);
  });
});
