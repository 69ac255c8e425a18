import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettingsJson } from '../../../src/app/executor/settings-json.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../../src/compose/executor-settings.js';
import { drainSettings } from '../../../src/cli/commands/drain.js';
import { settingsFromConfig } from '../../../src/compose/executor-settings.js';
import { parseConfig } from '../../../src/config/parse.js';
import { KubemaintError } from '../../../src/errors.js';

describe('executor settings from JSON (the Job env)', () => {
  const defaults = async () => DEFAULT_SETTINGS;
  const noDefaults = () => Promise.reject(new Error('the defaults were loaded'));

  it('fills what is missing with the defaults', async () => {
    const settings = await parseSettingsJson(
      '{"drain":{"timeoutMs":1000},"hostPrefix":[]}',
      'test',
      defaults,
    );
    assert.equal(settings.drain.timeoutMs, 1_000);
    assert.equal(settings.drain.stallAfterMs, DEFAULT_SETTINGS.drain.stallAfterMs);
    assert.deepEqual(settings.hostPrefix, []);
    assert.deepEqual(settings.reboot, DEFAULT_SETTINGS.reboot);
  });

  // A Job's executor does not construct the config schema (the defaults' source) to start faster:
  // the control plane's settings are whole, and read as they are.
  const configs = {
    defaults: '',
    'every optional key': [
      'namespace: ops',
      'drain: { timeout: 5m, gracePeriodSeconds: 10, onTimeout: force, delay: 1m }',
      'reboot: { method: signal, signal: 39, delay: 2m }',
      'upgrade: { method: command, command: [/opt/up, "{{version}}"] }',
    ].join('\n'),
  };
  for (const [what, yaml] of Object.entries(configs)) {
    it(`reads the settings the control plane writes (${what}) without loading the defaults`, async () => {
      const parsed = parseConfig(yaml, 'test.yaml', {});
      assert.ok(parsed.ok, JSON.stringify(parsed));
      const written = settingsFromConfig(parsed.config);
      const json = JSON.stringify(written);
      assert.deepEqual(await parseSettingsJson(json, 'test', noDefaults), written);
      // What filling from the defaults gives (the namespace left out, so that they are loaded).
      const filled = await parseSettingsJson(
        JSON.stringify({ ...written, namespace: undefined }),
        'test',
        async () => ({ ...DEFAULT_SETTINGS, namespace: written.namespace }),
      );
      assert.deepEqual(filled, written);
    });
  }
  it('loads the defaults when one required key is missing', async () => {
    const whole = JSON.parse(JSON.stringify(DEFAULT_SETTINGS)) as {
      drain: Record<string, unknown>;
    };
    delete whole.drain['stallAfterMs'];
    await assert.rejects(
      parseSettingsJson(JSON.stringify(whole), 'test', noDefaults),
      /the defaults were loaded/,
    );
    const filled = await parseSettingsJson(JSON.stringify(whole), 'test', defaults);
    assert.equal(filled.drain.stallAfterMs, DEFAULT_SETTINGS.drain.stallAfterMs);
  });

  const bad = [
    { text: 'not json', why: /is not JSON/ },
    { text: '{"drian":{}}', why: /Unrecognized key.*drian|drian/ },
    { text: '{"reboot":{"method":"command","command":[]}}', why: /reboot\.command/ },
    { text: '{"reboot":{"method":"signal","signal":99}}', why: /reboot\.signal/ },
    { text: '{"lock":{"concurrency":0}}', why: /lock\.concurrency/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.text} with a config error naming the problem`, async () => {
      await assert.rejects(
        parseSettingsJson(c.text, 'KUBEMAINT_EXECUTOR_SETTINGS', defaults),
        (e: unknown) =>
          e instanceof KubemaintError && e.code === 'config_invalid' && c.why.test(e.message),
      );
    });
  }
});

describe('executor settings from kubemaint.yaml', () => {
  it('maps drain, reboot, slot and namespace', () => {
    const parsed = parseConfig(
      [
        'namespace: ops',
        'slot: { concurrency: 3, ttl: 20m }',
        'drain: { timeout: 5m, gracePeriodSeconds: 10, deleteEmptyDirData: true, podSelector: "app!=db", stallAfter: 2m }',
        'reboot: { method: signal, signal: 39 }',
      ].join('\n'),
      'test.yaml',
      {},
    );
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const settings = settingsFromConfig(parsed.config);
    assert.equal(settings.namespace, 'ops');
    assert.deepEqual(settings.lock, { concurrency: 3, ttlMs: 20 * 60_000 });
    assert.equal(settings.drain.timeoutMs, 5 * 60_000);
    assert.equal(settings.drain.gracePeriodSeconds, 10);
    assert.equal(settings.drain.podSelector, 'app!=db');
    assert.equal(settings.drain.stallAfterMs, 2 * 60_000);
    assert.deepEqual(settings.reboot, { method: 'signal', signal: 39 });
    assert.equal(settings.delays, undefined, 'no delays asked for: none in the Job');
  });

  it("carries kured's drain and reboot delays to the Job, and back", async () => {
    const parsed = parseConfig('drain: { delay: 2m }\nreboot: { delay: 30s }', 'test.yaml', {});
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const settings = settingsFromConfig(parsed.config);
    assert.deepEqual(settings.delays, { beforeDrainMs: 120_000, beforeRebootMs: 30_000 });
    const again = await parseSettingsJson(
      JSON.stringify(settings),
      'KUBEMAINT_EXECUTOR_SETTINGS',
      async () => DEFAULT_SETTINGS,
    );
    assert.deepEqual(again.delays, settings.delays);
  });

  it("keeps each pod's own grace period for -1", () => {
    const parsed = parseConfig('drain: { gracePeriodSeconds: -1 }', 'test.yaml', {});
    assert.ok(parsed.ok);
    assert.equal(settingsFromConfig(parsed.config).drain.gracePeriodSeconds, undefined);
  });
});

describe('kubemaint drain flags', () => {
  it('override the config defaults', () => {
    const s = drainSettings(
      {
        timeout: '90s',
        podSelector: 'tier=web',
        gracePeriod: '0',
        force: true,
        skipWaitForDeleteTimeout: '1m',
      },
      DEFAULT_SETTINGS.drain,
    );
    assert.equal(s.timeoutMs, 90_000);
    assert.equal(s.podSelector, 'tier=web');
    assert.equal(s.gracePeriodSeconds, 0);
    assert.equal(s.force, true);
    assert.equal(s.skipWaitForDeleteTimeoutMs, 60_000);
  });

  for (const flags of [
    { timeout: 'soon' },
    { gracePeriod: '-5' },
    { skipWaitForDeleteTimeout: 'x' },
  ]) {
    it(`refuses ${JSON.stringify(flags)}`, () => {
      assert.throws(
        () => drainSettings(flags, DEFAULT_SETTINGS.drain),
        (e: unknown) => e instanceof KubemaintError && e.code === 'usage',
      );
    });
  }
});
