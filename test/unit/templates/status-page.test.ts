/**
 * The status page as rendered on the server: one row per node, a bar per phase with its node, request
 * and phase as attributes, windows and freezes shaded, current requests with their approvers; and
 * every value someone else wrote (node annotations, reasons, approvers, the pause and freeze reasons)
 * escaped, never markup.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchedule } from '../../../src/core/windows.js';
import { statusFragment } from '../../../templates/status-page/fragment.js';
import { timelineModel } from '../../../templates/status-page/model.js';
import { statusPageHtml } from '../../../templates/status-page/page.js';
import { fleetNode, fleetRequest, fleetView } from '../../fakes/fleet.js';

const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert(2)">'"&`;
const ESCAPED =
  '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&#39;&quot;&amp;';

const schedule = (() => {
  const compiled = compileSchedule({
    windows: [{ days: ['sun'], start: '01:00', end: '03:00', timezone: 'UTC' }],
    freezes: [{ from: '2026-11-01T00:10Z', to: '2026-11-01T00:20Z', reason: HOSTILE }],
  });
  assert.ok(compiled.ok);
  return compiled.schedule;
})();

const T = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();

const done = fleetRequest('node-2', 'done', {
  id: 'r-000002',
  createdAt: T(0),
  updatedAt: T(50),
  hostCommandIssuedAt: T(30),
  backAt: T(40),
  approvals: [{ by: 'k8s:alice', at: T(5) }],
  history: [
    { from: null, to: 'proposed', at: T(0), by: 'detector' },
    { from: 'proposed', to: 'approved', at: T(5), by: 'k8s:alice' },
    { from: 'approved', to: 'running', at: T(20), by: 'kubemaint' },
    { from: 'running', to: 'verifying', at: T(30), by: 'executor' },
    { from: 'verifying', to: 'done', at: T(50), by: 'kubemaint' },
  ],
});
const hostile = fleetRequest('node-3', 'approved', {
  id: 'r-000003',
  createdAt: T(10),
  updatedAt: T(15),
  reason: HOSTILE,
  requestedBy: HOSTILE,
  approvals: [{ by: HOSTILE, at: T(15) }],
  blockedReasons: [HOSTILE],
});

function render(): string {
  const view = fleetView({
    at: T(60),
    cluster: HOSTILE,
    pause: { paused: true, by: HOSTILE, reason: HOSTILE },
    requests: [hostile, done],
    history: [done, hostile],
    nodes: [
      fleetNode('node-1'),
      fleetNode('node-2'),
      fleetNode('node-3', { marked: true, packages: HOSTILE, unschedulable: true }),
    ],
    slots: [{ name: 'kubemaint-slot-0', holder: HOSTILE }],
    window: { open: false, line: HOSTILE },
  });
  const model = timelineModel(view, { schedule, zone: 'UTC', range: '1h', now: new Date(T(60)) });
  return statusPageHtml({ cluster: view.cluster, range: '1h', fragment: statusFragment(model) });
}

describe('status page rendering', () => {
  const page = render();

  it('one row per node, in name order', () => {
    const rows = [...page.matchAll(/<g class="row[^"]*" data-node="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(rows, ['node-1', 'node-2', 'node-3']);
  });

  it("a finished reboot's phases as bars: waiting, draining, rebooting, verifying", () => {
    const group = /<g class="request state-done" data-request="r-000002"[^>]*>(.*?)<\/g>/.exec(
      page,
    )?.[1];
    assert.ok(group, 'the done request has its bars');
    const bars = [
      ...group.matchAll(/data-phase="(\w+)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g),
    ];
    assert.deepEqual(
      bars.map((b) => b[1]),
      ['waiting', 'draining', 'rebooting', 'verifying'],
    );
    // 20 minutes of waiting are twice as wide as 10 of rebooting.
    const width = (i: number) => Number(bars[i]![3]);
    assert.ok(Math.abs(width(0) - 2 * width(2)) < 1, `${width(0)} vs ${width(2)}`);
    assert.match(group, /rebooting 00:30:00 – 00:40:00 \(10m\)/);
  });

  it('shades the open window and the freeze, and names the freeze in its tooltip', () => {
    assert.match(page, /<rect class="window" [^>]*><title>window open 01:00:00/);
    assert.match(page, /<rect class="freeze" [^>]*><title>freeze: &lt;script&gt;/);
  });

  it('lists current requests with who approved them', () => {
    assert.match(page, /<tr data-request="r-000002">.*k8s:alice/);
    assert.match(page, /<td class="state state-done">done<\/td>/);
  });

  it('escapes every value from the cluster, the config or a person', () => {
    assert.doesNotMatch(
      page.replace(/<script src="status\/page.js" defer><\/script>/, ''),
      /<script/i,
    );
    assert.doesNotMatch(page, /<img/i);
    assert.doesNotMatch(page, /onerror="/);
    // Each hostile value is there, as text: reason, requester, approver, waits, packages, pause,
    // freeze, slot holder, window line, cluster.
    const shown = page.split(ESCAPED).length - 1;
    assert.ok(shown >= 10, `the hostile text is shown escaped ${shown} times`);
  });
});
