import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCommand, type SlackCommand } from '../../../src/adapters/slack/parse-command.js';
import { helpText } from '../../../src/adapters/slack/help.js';

describe('parseCommand', () => {
  const good: [string, SlackCommand][] = [
    ['', { kind: 'help' }],
    ['  help ', { kind: 'help' }],
    ['HELP', { kind: 'help' }],
    ['status', { kind: 'status' }],
    ['status node-2', { kind: 'status', node: 'node-2' }],
    ['status Node-2', { kind: 'status', node: 'node-2' }],
    ['scan', { kind: 'scan' }],
    ['reboot node-2', { kind: 'reboot', node: 'node-2' }],
    [
      'reboot node-2 kernel   CVE-2024-1086 <now>',
      { kind: 'reboot', node: 'node-2', reason: 'kernel CVE-2024-1086 <now>' },
    ],
    ['upgrade node-4', { kind: 'upgrade', node: 'node-4' }],
    ['upgrade node-4 v1.31.4', { kind: 'upgrade', node: 'node-4', version: 'v1.31.4' }],
    ['approve r-7f3a9c', { kind: 'approve', id: 'r-7f3a9c' }],
    ['reject r-7f3a9c', { kind: 'reject', id: 'r-7f3a9c' }],
    [
      'reject r-7f3a9c not during the sale',
      { kind: 'reject', id: 'r-7f3a9c', reason: 'not during the sale' },
    ],
    ['cancel r-7f3a9c', { kind: 'cancel', id: 'r-7f3a9c' }],
    ['pause', { kind: 'pause' }],
    ['pause incident 4711', { kind: 'pause', reason: 'incident 4711' }],
    ['resume', { kind: 'resume' }],
    ['windows', { kind: 'windows' }],
    ['slots', { kind: 'slots' }],
    // The first name of the verb (ADR 0016) still works.
    ['locks', { kind: 'slots' }],
    ['release kubemaint-slot-0', { kind: 'release', slot: 'kubemaint-slot-0' }],
    ['release 2', { kind: 'release', slot: 'kubemaint-slot-2' }],
    [
      'status ip-10-0-1-15.eu-west-1.compute.internal',
      { kind: 'status', node: 'ip-10-0-1-15.eu-west-1.compute.internal' },
    ],
  ];
  for (const [text, command] of good) {
    it(`reads ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseCommand(text), { ok: true, command });
    });
  }

  const bad: [string, RegExp, RegExp][] = [
    [
      'aprove r-7f3a9c',
      /`aprove` is not a \/maint command/,
      /did you mean `\/maint approve <request-id>`/,
    ],
    ['frobnicate', /not a \/maint command/, /commands are help, status/],
    ['approve', /which request/, /usage: `\/maint approve <request-id>`/],
    ['approve 42', /`42` is not a request id/, /r-7f3a9c/],
    ['approve r-7f3a9c r-000000', /takes at most 1/, /usage/],
    ['reboot', /which node/, /reboot <node> \[reason\]/],
    ['reboot Node_2!', /is not a node name/, /lower-case letters/],
    ['upgrade node-4 latest', /`latest` is not a kubelet version/, /v1\.31\.4/],
    ['upgrade node-4 v1.31.4 now', /takes at most 2/, /upgrade <node> \[version\]/],
    ['release slot-a', /`slot-a` is not a slot/, /slots/],
    ['release', /which slot/, /release <slot>/],
    ['slots all', /takes no arguments/, /usage: `\/maint slots`/],
    ['status a b', /takes at most 1/, /status \[node\]/],
  ];
  for (const [text, problem, hint] of bad) {
    it(`refuses ${JSON.stringify(text)} saying what would work`, () => {
      const result = parseCommand(text);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.match(result.problem, problem);
      assert.match(result.hint, hint);
    });
  }

  it('uses the configured command name in hints', () => {
    const result = parseCommand('aprove r-7f3a9c', '/ops');
    assert.ok(!result.ok);
    assert.match(result.hint, /`\/ops approve/);
  });

  it('keeps reasons short (they land in annotations and Events)', () => {
    const result = parseCommand(`pause ${'x'.repeat(5000)}`);
    assert.ok(result.ok && result.command.kind === 'pause');
    assert.equal(result.command.reason?.length, 300);
  });
});

describe('helpText', () => {
  it('shows a runnable example for every command, with the configured name, escaped', () => {
    const text = helpText('/maint', 'prod <eu> & co');
    for (const verb of [
      'status',
      'scan',
      'reboot',
      'upgrade',
      'approve',
      'reject',
      'cancel',
      'pause',
      'resume',
      'windows',
      'slots',
      'release',
    ])
      assert.match(text, new RegExp('`/maint ' + verb));
    assert.match(text, /prod &lt;eu&gt; &amp; co/);
    assert.match(text, /`reboot &lt;node&gt; \[reason\]`/);
    assert.doesNotMatch(text, /<node>/, 'no raw control characters');
    for (const line of text.split('\n').filter((l) => l.startsWith('`/maint '))) {
      const example = line.slice(1, line.indexOf('`', 1)).replace('/maint ', '');
      assert.ok(parseCommand(example).ok, `example "${example}" parses`);
    }
  });
});
