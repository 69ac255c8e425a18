import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { approvedAt, compare } from '../../../src/core/dispatch-order.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';

const MIN = 60_000;
let seq = 0;
function req(node: string, approvedMinute: number, id?: string): MaintenanceRequest {
  const at = new Date(Date.parse('2026-03-06T00:00:00Z') + approvedMinute * MIN).toISOString();
  seq += 1;
  return {
    id: id ?? `r-${seq.toString(16).padStart(6, '0')}`,
    node,
    action: 'reboot',
    state: 'approved',
    reason: 'reboot-required',
    requestedBy: 'detector',
    createdAt: '2026-03-05T00:00:00.000Z',
    updatedAt: at,
    approvals: [{ by: 'U_ALICE', at }],
    history: [
      { from: null, to: 'proposed', at: '2026-03-05T00:00:00.000Z', by: 'detector' },
      { from: 'proposed', to: 'approved', at, by: 'U_ALICE' },
    ],
  };
}

describe('dispatch order', () => {
  it('puts the oldest approval first, then node name', () => {
    const sorted = [req('node-c', 5), req('node-b', 1), req('node-a', 5)].sort(compare);
    assert.deepEqual(
      sorted.map((r) => r.node),
      ['node-b', 'node-a', 'node-c'],
    );
  });

  it('counts approvals of the same minute as one batch, in node name order (ADR 0031)', () => {
    // One tick auto-approving a campaign: milliseconds apart, in the order the requests were listed.
    const at = (r: MaintenanceRequest, ms: number) => {
      const when = new Date(Date.parse('2026-03-06T00:05:00Z') + ms).toISOString();
      return {
        ...r,
        history: r.history.map((h) => (h.to === 'approved' ? { ...h, at: when } : h)),
      };
    };
    const batch = [at(req('node-c', 5), 10), at(req('node-a', 5), 950), at(req('node-b', 5), 400)];
    assert.deepEqual(
      [...batch].sort(compare).map((r) => r.node),
      ['node-a', 'node-b', 'node-c'],
    );
    // The next minute still comes after, whatever the node's name.
    const later = req('node-0', 6);
    assert.deepEqual(
      [later, ...batch].sort(compare).map((r) => r.node),
      ['node-a', 'node-b', 'node-c', 'node-0'],
    );
  });

  it('reads the approval time from history, falling back to approvals and creation', () => {
    const r = req('n', 3);
    assert.equal(approvedAt(r), '2026-03-06T00:03:00.000Z');
    assert.equal(approvedAt({ ...r, history: [] }), '2026-03-06T00:03:00.000Z');
    assert.equal(approvedAt({ ...r, history: [], approvals: [] }), '2026-03-05T00:00:00.000Z');
  });

  it('is the same whatever order the candidates come in', () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            node: fc.constantFrom('a', 'b', 'c'),
            minute: fc.integer({ min: 0, max: 3 }),
            id: fc.stringMatching(/^r-[0-9a-f]{6}$/),
          }),
          { maxLength: 10 },
        ),
        (specs) => {
          const requests = specs.map((s) => req(s.node, s.minute, s.id));
          const once = [...requests].sort(compare);
          const again = [...requests].reverse().sort(compare);
          assert.deepEqual(once, again);
        },
      ),
    ));
});
