import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MaintenanceRequest, Transition } from '../../../src/core/request.js';
import {
  axisTicks,
  requestPhases,
  timelineWindow,
  type Phase,
} from '../../../src/core/timeline.js';
import { fleetRequest } from '../../fakes/fleet.js';

const T = (minute: number): string => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();
const ms = (minute: number): number => Date.parse(T(minute));
const step = (to: Transition['to'], minute: number): Transition => ({
  from: null,
  to,
  at: T(minute),
  by: 'test',
});

/** A request created at minute 0 that went through `states` at the given minutes. */
function request(
  state: MaintenanceRequest['state'],
  steps: [Transition['to'], number][],
  extra: Partial<MaintenanceRequest> = {},
): MaintenanceRequest {
  return fleetRequest('node-1', state, {
    createdAt: T(0),
    updatedAt: T(steps.at(-1)?.[1] ?? 0),
    history: [step('proposed', 0), ...steps.map(([to, at]) => step(to, at))],
    ...extra,
  });
}

describe('requestPhases', () => {
  const now = ms(60);
  const cases: {
    why: string;
    request: MaintenanceRequest;
    want: [Phase, number, number, boolean][];
  }[] = [
    {
      why: 'a proposal waits until now',
      request: request('proposed', []),
      want: [['waiting', 0, 60, true]],
    },
    {
      why: 'an approval is still waiting, until its Job starts',
      request: request('approved', [['approved', 5]]),
      want: [['waiting', 0, 60, true]],
    },
    {
      why: 'running drains from its Job on',
      request: request('running', [
        ['approved', 5],
        ['running', 10],
      ]),
      want: [
        ['waiting', 0, 10, false],
        ['draining', 10, 60, true],
      ],
    },
    {
      why: 'the host command starts the reboot',
      request: request(
        'verifying',
        [
          ['approved', 5],
          ['running', 10],
          ['verifying', 20],
        ],
        { hostCommandIssuedAt: T(20) },
      ),
      want: [
        ['waiting', 0, 10, false],
        ['draining', 10, 20, false],
        ['rebooting', 20, 60, true],
      ],
    },
    {
      why: 'a finished reboot: rebooting until proven back, then verifying until done',
      request: request(
        'done',
        [
          ['approved', 5],
          ['running', 10],
          ['verifying', 20],
          ['done', 40],
        ],
        { hostCommandIssuedAt: T(20), backAt: T(30) },
      ),
      want: [
        ['waiting', 0, 10, false],
        ['draining', 10, 20, false],
        ['rebooting', 20, 30, false],
        ['verifying', 30, 40, false],
      ],
    },
    {
      why: 'a request from before backAt was recorded ends its reboot at done',
      request: request(
        'done',
        [
          ['running', 10],
          ['verifying', 20],
          ['done', 40],
        ],
        { hostCommandIssuedAt: T(20) },
      ),
      want: [
        ['waiting', 0, 10, false],
        ['draining', 10, 20, false],
        ['rebooting', 20, 40, false],
      ],
    },
    {
      why: 'an upgrade upgrades; the host step falls back to the verifying transition',
      request: request(
        'verifying',
        [
          ['running', 10],
          ['verifying', 25],
        ],
        { action: 'upgrade', targetVersion: 'v1.31.4' },
      ),
      want: [
        ['waiting', 0, 10, false],
        ['draining', 10, 25, false],
        ['upgrading', 25, 60, true],
      ],
    },
    {
      why: 'a rejection ends the wait',
      request: request('rejected', [['rejected', 7]]),
      want: [['waiting', 0, 7, false]],
    },
    {
      why: 'a failed drain ends where it failed',
      request: request('failed', [
        ['approved', 2],
        ['running', 3],
        ['failed', 9],
      ]),
      want: [
        ['waiting', 0, 3, false],
        ['draining', 3, 9, false],
      ],
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const got = requestPhases(c.request, now).map((p) => [
        p.phase,
        (p.start - ms(0)) / 60_000,
        (p.end - ms(0)) / 60_000,
        p.ongoing,
      ]);
      assert.deepEqual(got, c.want);
    });
  }
});

describe('timelineWindow', () => {
  const now = ms(600);
  it('fit shows at least five minutes, ending a little after now', () => {
    const { from, to } = timelineWindow('fit', [{ start: now - 60_000 }], now);
    assert.equal(now - from, 5 * 60_000);
    assert.ok(to > now && to - now < 60_000);
  });
  it('fit reaches back to the earliest phase, with room', () => {
    const { from } = timelineWindow('fit', [{ start: now - 3_600_000 }, { start: now }], now);
    assert.equal(now - from, 3_960_000);
  });
  it('fit ignores phases older than a week', () => {
    const { from } = timelineWindow('fit', [{ start: now - 30 * 86_400_000 }], now);
    assert.equal(now - from, 5 * 60_000);
  });
  it('a fixed range is that long', () => {
    assert.equal(now - timelineWindow('24h', [], now).from, 86_400_000);
  });
});

describe('axisTicks', () => {
  it('round local times of the zone', () => {
    const from = Date.parse('2026-11-01T09:58:00Z');
    const ticks = axisTicks({ from, to: from + 3_600_000 }, 'Europe/Berlin');
    assert.deepEqual(
      ticks.map((t) => t.label),
      ['11:00', '11:10', '11:20', '11:30', '11:40', '11:50'],
    );
  });
  it('a day across the spring DST change has no 02:00 and stays on the local grid', () => {
    const from = Date.parse('2026-03-28T23:00:00Z'); // 00:00 in Berlin, the night clocks skip 02:00
    const labels = axisTicks({ from, to: from + 23 * 3_600_000 }, 'Europe/Berlin').map(
      (t) => t.label,
    );
    assert.deepEqual(labels, [
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
    ]);
  });
  it('a week is labelled by day', () => {
    const from = Date.parse('2026-11-01T00:00:00Z');
    const labels = axisTicks({ from, to: from + 7 * 86_400_000 }, 'UTC').map((t) => t.label);
    assert.equal(labels[0], 'Sun 1 Nov');
    assert.equal(labels.length, 7);
  });
});
