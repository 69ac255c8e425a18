/**
 * `upgrade.method`: kubemaint's kubeadm scripts by default, a command of one's own with `command`
 * (a config from before the method existed, with only `command`, keeps running its command), and
 * the executor's settings carry the method, never the script (the executor has it in its image).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettingsJson } from '../../../src/app/executor/settings-json.js';
import {
  DEFAULT_EXECUTOR_SETTINGS,
  settingsFromConfig,
} from '../../../src/compose/executor-settings.js';
import { parseConfig } from '../../../src/config/parse.js';

const parse = (yaml: string) => parseConfig(yaml, 'k.yaml');

describe('upgrade.method', () => {
  it('is kubeadm by default, and the Job carries the method but no script', async () => {
    const result = parse('');
    assert.ok(result.ok);
    assert.equal(result.config.upgrade.method, 'kubeadm');
    const json = JSON.stringify(settingsFromConfig(result.config));
    const back = await parseSettingsJson(json, 'env', async () => DEFAULT_EXECUTOR_SETTINGS);
    assert.equal(back.upgrade.method, 'kubeadm');
    assert.equal(back.upgrade.command, undefined);
    assert.ok(!json.includes('#!/bin/sh'), 'the script is not sent in the Job');
  });
  it('is command when only a command is given (a config from before)', () => {
    const result = parse('upgrade:\n  command: [/opt/up, "{{version}}"]\n');
    assert.ok(result.ok);
    assert.equal(result.config.upgrade.method, 'command');
    assert.deepEqual(settingsFromConfig(result.config).upgrade, {
      method: 'command',
      command: ['/opt/up', '{{version}}'],
      restartCommand: ['systemd-run', '--on-active=15', 'systemctl', 'restart', 'kubelet'],
    });
  });
  it("reads a control plane's settings from before the method as the command they meant", async () => {
    const old = JSON.stringify({ upgrade: { command: ['/opt/up', '{{version}}'] } });
    const read = await parseSettingsJson(old, 'env', async () => DEFAULT_EXECUTOR_SETTINGS);
    assert.equal(read.upgrade.method, 'command');
  });
  const refused: [string, string, RegExp, RegExp][] = [
    [
      'method command without a command',
      'upgrade:\n  method: command\n',
      /is required with upgrade\.method: command/,
      /\{\{version\}\}/,
    ],
    [
      'a command that kubeadm would not run',
      'upgrade:\n  method: kubeadm\n  command: [/opt/up, "{{version}}"]\n',
      /is only run with upgrade\.method: command, and method is kubeadm/,
      /remove upgrade\.command, or set method: command/,
    ],
  ];
  for (const [name, yaml, message, hint] of refused) {
    it(`refuses ${name}`, () => {
      const result = parse(yaml);
      assert.ok(!result.ok);
      const problem = result.problems.find((p) => p.path === 'upgrade.command');
      assert.ok(problem, JSON.stringify(result.problems));
      assert.match(problem.message, message);
      assert.match(problem.hint ?? '', hint);
    });
  }
  it('refuses a method it does not know, naming the ones it does', () => {
    const result = parse('upgrade:\n  method: talos\n');
    assert.ok(!result.ok);
    assert.equal(result.problems[0]?.path, 'upgrade.method');
    assert.match(JSON.stringify(result.problems[0]), /kubeadm/);
  });
});
