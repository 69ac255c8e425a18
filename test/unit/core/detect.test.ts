import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectNeeds, type DetectNode, type DetectSettings } from '../../../src/core/detect.js';
import { parseSelector } from '@kubemaint/label-selector';
import type { MaintenanceRequest } from '../../../src/core/request.js';

const selector = (text: string) => {
  const parsed = parseSelector(text);
  assert.ok(parsed.ok);
  return parsed.selector;
};
const settings: DetectSettings = {
  rebootLabel: 'kubemaint.io/reboot-required',
  conditionTypes: ['RebootRequired'],
  nodeSelector: selector(''),
  kubelet: { apiservers: ['v1.31.4'] },
  reproposeAfterMs: 3_600_000,
  sinceAnnotation: 'kubemaint.io/reboot-required-since',
  packagesAnnotation: 'kubemaint.io/reboot-required-packages',
};
const node = (name: string, extra: Partial<DetectNode> = {}): DetectNode => ({
  name,
  labels: {},
  annotations: {},
  conditions: { Ready: 'True' },
  kubeletVersion: 'v1.31.4',
  ...extra,
});
const ended = (state: MaintenanceRequest['state'], updatedAt: string): MaintenanceRequest => ({
  id: 'r-00aa11',
  node: 'n',
  action: 'reboot',
  state,
  reason: 'x',
  requestedBy: 'detector',
  createdAt: updatedAt,
  updatedAt,
  approvals: [],
  history: [],
});
const now = new Date('2026-06-01T12:00:00Z');

describe('detectNeeds', () => {
  it('finds a node marked by the label, with since and packages in the reason', () => {
    const { needs } = detectNeeds(
      [
        node('a', {
          labels: { 'kubemaint.io/reboot-required': 'true' },
          annotations: {
            'kubemaint.io/reboot-required-since': '2026-05-30T08:00:00Z',
            'kubemaint.io/reboot-required-packages': 'linux-image-6.1.0-21,libc6',
          },
        }),
      ],
      settings,
      now,
    );
    assert.equal(needs.length, 1);
    assert.equal(needs[0]!.action, 'reboot');
    assert.match(needs[0]!.reason, /since 2026-05-30T08:00:00Z; packages: linux-image/);
  });
  it('finds a node through a configured condition', () => {
    const { needs } = detectNeeds(
      [node('b', { conditions: { RebootRequired: 'True' } })],
      settings,
      now,
    );
    assert.deepEqual(
      needs.map((n) => n.reason),
      ['reboot required (condition RebootRequired=True)'],
    );
  });
  it('ignores a label whose value is not "true" and a False condition', () => {
    const { needs } = detectNeeds(
      [
        node('c', {
          labels: { 'kubemaint.io/reboot-required': 'false' },
          conditions: { RebootRequired: 'False' },
        }),
      ],
      settings,
      now,
    );
    assert.equal(needs.length, 0);
  });
  it('proposes a kubelet one minor behind, one minor at a time', () => {
    const { needs } = detectNeeds([node('d', { kubeletVersion: 'v1.29.8' })], settings, now);
    assert.equal(needs[0]?.action, 'upgrade');
    assert.equal(needs[0]?.targetVersion, 'v1.30.0');
    assert.equal(needs[0]?.campaignKey, 'upgrade:v1.30.0');
  });
  it('takes the highest known patch of the next minor from the fleet', () => {
    const { needs } = detectNeeds(
      [node('d', { kubeletVersion: 'v1.29.8' }), node('e', { kubeletVersion: 'v1.30.6-eks-1a2b' })],
      settings,
      now,
    );
    assert.deepEqual(
      needs.map((n) => [n.node, n.targetVersion]),
      [
        ['d', 'v1.30.6'],
        ['e', 'v1.31.4'],
      ],
    );
  });
  it('a reboot need wins over an upgrade need on the same node', () => {
    const { needs } = detectNeeds(
      [
        node('f', {
          kubeletVersion: 'v1.30.1',
          labels: { 'kubemaint.io/reboot-required': 'true' },
        }),
      ],
      settings,
      now,
    );
    assert.deepEqual(
      needs.map((n) => n.action),
      ['reboot'],
    );
  });
  it('skips nodes outside the node selector', () => {
    const { needs } = detectNeeds(
      [node('g', { labels: { 'kubemaint.io/reboot-required': 'true', pool: 'db' } })],
      { ...settings, nodeSelector: selector('pool!=db') },
      now,
    );
    assert.equal(needs.length, 0);
  });
  const quiet = [
    {
      why: 'an active request',
      request: { ...ended('proposed', '2026-06-01T11:00:00Z') },
      skipped: true,
    },
    {
      why: 'a recent rejection',
      request: ended('rejected', '2026-06-01T11:30:00Z'),
      skipped: true,
    },
    { why: 'an old rejection', request: ended('rejected', '2026-06-01T10:00:00Z'), skipped: false },
    { why: 'a done request', request: ended('done', '2026-06-01T11:59:00Z'), skipped: false },
    { why: 'a recent failure', request: ended('failed', '2026-06-01T11:59:00Z'), skipped: true },
  ];
  for (const c of quiet) {
    it(`${c.skipped ? 'stays quiet' : 'proposes again'} after ${c.why}`, () => {
      const result = detectNeeds(
        [node('h', { labels: { 'kubemaint.io/reboot-required': 'true' }, request: c.request })],
        settings,
        now,
      );
      assert.equal(result.needs.length, c.skipped ? 0 : 1);
      assert.equal(result.skipped.length, c.skipped ? 1 : 0);
    });
  }
  it('no skew detection without apiserver versions', () => {
    const { kubelet: _off, ...noSkew } = settings;
    const { needs } = detectNeeds([node('i', { kubeletVersion: 'v1.28.0' })], noSkew, now);
    assert.equal(needs.length, 0);
  });
});
