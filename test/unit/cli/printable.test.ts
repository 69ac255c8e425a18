/**
 * Terminal output (issue 15): what the CLI prints from the cluster or from people shows control
 * characters visibly instead of handing them to the terminal. The function on its own, then the
 * status table, the console lines of `serve` and the scan lines with a node reason carrying
 * `\x1b]0;pwned\x07` (retitle the window) and `\x1b[2J` (clear the screen).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { printable } from '../../../src/core/printable.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { statusJson, statusTable } from '../../../templates/cli-status.js';
import { consoleLines } from '../../../templates/console.js';
import { scanLines } from '../../../templates/scan.js';
import { approvedRequest } from '../../fakes/requests.js';
import { HOSTILE_TERMINAL_TEXT as HOSTILE, TERMINAL_CONTROL } from '../../support/terminal.js';

describe('printable', () => {
  const table: [string, string, 'one' | 'many'][] = [
    ['\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007', 'one'],
    ['\u001b[2J', '\\u001b[2J', 'one'],
    ['a\u009bb\u007fc', 'a\\u009bb\\u007fc', 'one'],
    ['a\nb\tc\rd', 'a\\nb\\tc\\rd', 'one'],
    ['a\nb\tc\rd', 'a\nb\tc\\rd', 'many'],
    ['\u202eabc\u2066', '\\u202eabc\\u2066', 'many'],
    ['node-2 → ünïcødé 🔥 “quotes”', 'node-2 → ünïcødé 🔥 “quotes”', 'one'],
  ];
  for (const [input, output, lines] of table) {
    it(`${JSON.stringify(input)} (${lines} line) → ${JSON.stringify(output)}`, () => {
      assert.equal(printable(input, lines), output);
    });
  }

  it('leaves nothing a terminal acts on, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const once = printable(text);
        assert.doesNotMatch(once, /[\n\t]/);
        assert.doesNotMatch(once, TERMINAL_CONTROL);
        assert.equal(printable(once), once);
      }),
    );
  });

  it('keeps JSON the same JSON (what --json prints reads back unchanged)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' })), (values) => {
        const json = JSON.stringify({ values }, null, 2);
        const shown = printable(json, 'many');
        assert.doesNotMatch(shown, TERMINAL_CONTROL);
        assert.deepEqual(JSON.parse(shown), { values });
      }),
    );
  });
});

describe('what the CLI prints from the cluster', () => {
  const now = new Date('2026-11-22T10:05:00Z');
  const hostile: MaintenanceRequest = approvedRequest(HOSTILE, {
    id: 'r-abcdef',
    state: 'proposed',
    approvals: [],
    reason: HOSTILE,
    blockedReasons: [HOSTILE],
  });

  it('status: a reason with escape sequences shows them and stays in its row', () => {
    const text = statusTable(
      {
        requests: [hostile, { ...hostile, id: 'r-000002', state: 'failed', failure: HOSTILE }],
        pause: { paused: true, by: HOSTILE, reason: HOSTILE },
        slots: [{ name: 'kubemaint-slot-0', holder: HOSTILE }],
      },
      now,
    );
    assert.doesNotMatch(text, TERMINAL_CONTROL);
    assert.match(text, /kernel \\u001b\]0;pwned\\u0007 update\\u001b\[2J\\r\\n\\u009b31m/);
    // The pause line, a blank, the header, two rows, two "waits", a blank, the slots.
    assert.equal(text.trimEnd().split('\n').length, 9, text);
  });

  it('status --json reads back as the same reason', () => {
    const json = printable(
      statusJson({ requests: [hostile], pause: { paused: false }, slots: [] }),
      'many',
    );
    assert.doesNotMatch(json, TERMINAL_CONTROL);
    const parsed = JSON.parse(json) as { requests: { reason: string }[] };
    assert.equal(parsed.requests[0]?.reason, HOSTILE);
  });

  it('serve’s console: one line per event, the escape sequences visible', () => {
    const lines = consoleLines({
      kind: 'proposed',
      node: HOSTILE,
      cluster: 'sim',
      requestId: 'r-abcdef',
      action: 'reboot',
      reason: HOSTILE,
      approver: HOSTILE,
      at: '2026-11-22T10:00:00.000Z',
    });
    assert.equal(lines.length, 2);
    for (const line of lines) assert.doesNotMatch(line, TERMINAL_CONTROL);
    assert.match(lines[0]!, /^10:00:00 \? proposed {2}kernel \\u001b\]0;pwned\\u0007/);
  });

  it('scan: node names and reasons one line each', () => {
    const lines = scanLines({
      nodes: 2,
      needs: [{ node: HOSTILE, action: 'reboot', reason: HOSTILE, campaignKey: 'reboot' }],
      skipped: [{ node: HOSTILE, why: HOSTILE }],
    });
    assert.equal(lines.length, 3);
    for (const line of lines) assert.doesNotMatch(line, TERMINAL_CONTROL);
  });
});
