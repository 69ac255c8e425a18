import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubemaintError } from '../../../src/errors.js';
import {
  onHost,
  rebootActions,
  upgradeActions,
  VERSION_PATTERN,
} from '../../../src/app/executor/host.js';
import type { ExecutorSettings } from '../../../src/app/executor/settings.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../../src/compose/executor-settings.js';

const NSENTER = ['nsenter', '-m/proc/1/ns/mnt', '--'];
const withSettings = (patch: Partial<ExecutorSettings>): ExecutorSettings => ({
  ...DEFAULT_SETTINGS,
  ...patch,
});

describe('host argv', () => {
  it('wraps the default reboot in the host mount namespace', () => {
    assert.deepEqual(rebootActions(DEFAULT_SETTINGS), [
      { kind: 'run', argv: [...NSENTER, 'systemctl', 'reboot'] },
    ]);
  });

  it('sends SIGRTMIN+5 to PID 1 for the signal method', () => {
    const settings = withSettings({ reboot: { method: 'signal', signal: 39 } });
    assert.deepEqual(rebootActions(settings), [{ kind: 'signal', pid: 1, signal: 39 }]);
  });

  it('runs the argv as is with an empty host prefix', () => {
    const settings = withSettings({
      hostPrefix: [],
      reboot: { method: 'command', command: ['kubemaint-sim-host', 'reboot'] },
    });
    assert.deepEqual(rebootActions(settings), [
      { kind: 'run', argv: ['kubemaint-sim-host', 'reboot'] },
    ]);
  });

  it('refuses an empty command', () => {
    assert.throws(
      () => onHost(NSENTER, []),
      (e: unknown) => e instanceof KubemaintError && e.code === 'config_invalid',
    );
  });

  it('fills {{version}} into the upgrade template, then arranges the restart', () => {
    const settings = withSettings({
      upgrade: {
        command: ['/bin/up', '--to={{version}}'],
        restartCommand: ['systemd-run', '--on-active=15', 'systemctl', 'restart', 'kubelet'],
      },
    });
    assert.deepEqual(upgradeActions(settings, 'v1.32.1'), [
      { kind: 'run', argv: [...NSENTER, '/bin/up', '--to=v1.32.1'] },
      {
        kind: 'run',
        argv: [...NSENTER, 'systemd-run', '--on-active=15', 'systemctl', 'restart', 'kubelet'],
      },
    ]);
  });

  it('refuses a template without {{version}}', () => {
    const settings = withSettings({ upgrade: { command: ['/bin/up'], restartCommand: [] } });
    assert.throws(() => upgradeActions(settings, 'v1.32.1'), /no \{\{version\}\} placeholder/);
  });

  const versions = [
    { version: 'v1.32.1', ok: true },
    { version: '1.32.1', ok: true },
    { version: 'v1.32', ok: false },
    { version: 'v1.32.1; reboot', ok: false },
    { version: 'v1.32.1 --force', ok: false },
    { version: '$(id)', ok: false },
    { version: 'v1.32.1\n', ok: false },
    { version: '', ok: false },
  ];
  for (const c of versions) {
    it(`${c.ok ? 'accepts' : 'refuses'} version ${JSON.stringify(c.version)}`, () => {
      assert.equal(VERSION_PATTERN.test(c.version), c.ok);
      const command = withSettings({
        upgrade: { method: 'command', command: ['/bin/up', '{{version}}'], restartCommand: [] },
      });
      const run = () => upgradeActions(command, c.version);
      if (c.ok) assert.ok(run().length > 0);
      else
        assert.throws(
          run,
          (e: unknown) => e instanceof KubemaintError && e.code === 'request_invalid',
        );
    });
  }
});
