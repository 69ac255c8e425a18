/**
 * The slash command's grammar with several clusters (issue 22): the cluster in front of a node, a
 * request or a slot, or alone for a whole cluster; an unknown cluster and a pause naming none are
 * usage errors that list the clusters; left out, the rest parses as it does for one cluster.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseClusterCommand,
  type ClusterParse,
} from '../../../src/adapters/slack/parse-cluster.js';
import { clusterHelpText } from '../../../src/adapters/slack/help.js';

const CLUSTERS = ['staging', 'prod-eu'];
const parse = (text: string) => parseClusterCommand(text, '/maint', CLUSTERS);

describe('parseClusterCommand', () => {
  const good: [string, ClusterParse][] = [
    ['status', { ok: true, command: { kind: 'status' } }],
    ['status prod-eu', { ok: true, command: { kind: 'status' }, cluster: 'prod-eu' }],
    ['status node-7', { ok: true, command: { kind: 'status', node: 'node-7' } }],
    [
      'status prod-eu/node-7',
      { ok: true, command: { kind: 'status', node: 'node-7' }, cluster: 'prod-eu' },
    ],
    [
      'reboot prod-eu/node-7 kernel CVE',
      {
        ok: true,
        command: { kind: 'reboot', node: 'node-7', reason: 'kernel CVE' },
        cluster: 'prod-eu',
      },
    ],
    ['reboot node-7', { ok: true, command: { kind: 'reboot', node: 'node-7' } }],
    [
      'approve Staging/r-7f3a9c',
      { ok: true, command: { kind: 'approve', id: 'r-7f3a9c' }, cluster: 'staging' },
    ],
    ['approve r-7f3a9c', { ok: true, command: { kind: 'approve', id: 'r-7f3a9c' } }],
    [
      'reject prod-eu/r-7f3a9c not now',
      {
        ok: true,
        command: { kind: 'reject', id: 'r-7f3a9c', reason: 'not now' },
        cluster: 'prod-eu',
      },
    ],
    [
      'pause prod-eu incident 4711',
      { ok: true, command: { kind: 'pause', reason: 'incident 4711' }, cluster: 'prod-eu' },
    ],
    ['resume staging', { ok: true, command: { kind: 'resume' }, cluster: 'staging' }],
    ['windows', { ok: true, command: { kind: 'windows' } }],
    ['slots prod-eu', { ok: true, command: { kind: 'slots' }, cluster: 'prod-eu' }],
    ['locks prod-eu', { ok: true, command: { kind: 'slots' }, cluster: 'prod-eu' }],
    [
      'release prod-eu/kubemaint-slot-1',
      { ok: true, command: { kind: 'release', slot: 'kubemaint-slot-1' }, cluster: 'prod-eu' },
    ],
    ['', { ok: true, command: { kind: 'help' } }],
  ];
  for (const [text, expected] of good)
    it(`reads "${text}"`, () => assert.deepEqual(parse(text), expected));

  it('refuses a cluster the app does not serve, listing those it does', () => {
    assert.deepEqual(parse('reboot mars/node-7'), {
      ok: false,
      problem: 'no cluster named `mars`',
      hint: 'the clusters: staging, prod-eu',
    });
  });

  it('asks which cluster a pause, a resume or a release is for', () => {
    for (const text of ['pause incident', 'resume', 'release kubemaint-slot-0']) {
      const parsed = parse(text);
      assert.equal(parsed.ok, false, text);
      assert.match(!parsed.ok ? parsed.problem : '', /^which cluster\?/);
      assert.match(!parsed.ok ? parsed.hint : '', /the clusters: staging, prod-eu/);
    }
  });

  it('quotes the grammar with clusters in usage errors', () => {
    const parsed = parse('reboot');
    assert.equal(parsed.ok, false);
    assert.match(!parsed.ok ? parsed.hint : '', /`\/maint reboot \[cluster\/\]<node> \[reason\]`/);
  });

  it('teaches the cluster syntax in help', () => {
    const help = clusterHelpText('/maint', CLUSTERS);
    assert.match(help, /keeps \*staging, prod-eu\* patched/);
    assert.match(help, /`\/maint reboot staging\/ip-10-0-1-15 kernel CVE-2024-1086`/);
    assert.match(help, /`\/maint approve staging\/r-7f3a9c`/);
    assert.match(help, /`\/maint pause staging incident 4711`/);
  });
});
