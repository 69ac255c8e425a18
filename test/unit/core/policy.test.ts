import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Settings } from 'luxon';
import {
  describeTime,
  evaluatePolicy,
  GATES,
  listSome,
  storedReason,
  type PolicyFacts,
  type Reason,
} from '../../../src/core/policy.js';

const NOW = new Date('2026-03-05T12:00:00Z'); // a Thursday
const min = (m: number) => new Date(NOW.getTime() + m * 60_000);
const node = 'node-a';

function reasons(facts: Omit<PolicyFacts, 'node'>, now = NOW): Reason[] {
  const verdict = evaluatePolicy({ node, ...facts }, now);
  return verdict.verdict === 'proceed' ? [] : verdict.reasons;
}
const messages = (facts: Omit<PolicyFacts, 'node'>, now = NOW) =>
  reasons(facts, now).map((r) => r.message);

describe('evaluatePolicy: each gate', () => {
  const cases: [why: string, facts: Omit<PolicyFacts, 'node'>, want: string[]][] = [
    ['nothing configured proceeds', {}, []],
    ['not paused', { pause: { paused: false } }, []],
    [
      'paused, with who and why',
      { pause: { paused: true, by: 'U_ALICE', reason: 'incident 42' } },
      ['kubemaint is paused by U_ALICE: incident 42'],
    ],
    ['paused, bare', { pause: { paused: true } }, ['kubemaint is paused']],
    [
      'unreadable pause state blocks',
      { pause: { error: 'configmap forbidden' } },
      ['could not read the pause state: configmap forbidden'],
    ],
    ['an open window', { window: { open: true, closesAt: min(240) } }, []],
    [
      'a closed window names the next opening in the window zone',
      {
        timeZone: 'Europe/Berlin',
        window: { open: false, nextOpening: new Date('2026-03-07T01:00:00Z') },
      },
      ['window closed; opens Sat 02:00 Europe/Berlin'],
    ],
    [
      'a closed window with no opening ahead',
      { window: { open: false } },
      ['window closed; no opening ahead'],
    ],
    [
      'a freeze wins, and the closed window is reported too',
      {
        timeZone: 'Europe/Berlin',
        window: {
          open: false,
          freeze: { reason: 'Black Friday', until: new Date('2026-03-06T23:00:00Z') },
        },
      },
      ['freeze: Black Friday (until Sat 00:00 Europe/Berlin)', 'window closed; no opening ahead'],
    ],
    [
      'a freeze with no end names no end',
      { window: { open: true, freeze: { reason: 'release week' } } },
      ['freeze: release week'],
    ],
    [
      'unreadable windows block',
      { window: { error: 'bad cron "x"' } },
      ['could not evaluate the maintenance windows: bad cron "x"'],
    ],
    [
      'a node that fits before the window closes',
      { expectedDurationMs: 45 * 60_000, window: { open: true, closesAt: min(45) } },
      [],
    ],
    [
      'a node that does not fit before the window closes',
      {
        timeZone: 'Europe/Berlin',
        expectedDurationMs: 45 * 60_000,
        window: { open: true, closesAt: min(20) },
      },
      [
        'window closes Thu 13:20 Europe/Berlin, in 20m; node-a needs about 45m (drain + host command + verify)',
      ],
    ],
    [
      'a node that does not fit names where its expected duration comes from',
      {
        expectedDurationMs: 45 * 60_000,
        expectedDurationSource: 'p90 of the last 12 reboots',
        window: { open: true, closesAt: min(20) },
      },
      [
        'window closes Thu 12:20 UTC, in 20m; node-a needs about 45m (drain + host command + verify: p90 of the last 12 reboots)',
      ],
    ],
    ['unhealthy within the limit', { unhealthy: { nodes: ['node-b'], max: 1 } }, []],
    [
      'the node itself does not count as unhealthy',
      { unhealthy: { nodes: ['node-a', 'node-b'], max: 1 } },
      [],
    ],
    [
      'too many unhealthy nodes',
      { unhealthy: { nodes: ['node-c', 'node-b', 'node-a'], max: 1 } },
      ['2 other nodes are not Ready (node-b, node-c); at most 1 allowed'],
    ],
    [
      'one unhealthy node over a zero limit',
      { unhealthy: { nodes: ['node-b'], max: 0 } },
      ['1 other node is not Ready (node-b); at most 0 allowed'],
    ],
    [
      'unreadable node health blocks',
      { unhealthy: { error: 'timeout' } },
      ['could not read node health: timeout'],
    ],
    ['no alerts', { alerts: { alerts: [] } }, []],
    [
      'a firing alert',
      { alerts: { alerts: [{ name: 'KernelDeadlock', state: 'firing' }] } },
      ['alert KernelDeadlock firing'],
    ],
    [
      'a pending alert blocks by default',
      { alerts: { alerts: [{ name: 'DiskFilling', state: 'pending' }] } },
      ['alert DiskFilling pending'],
    ],
    [
      'with firingOnly a pending alert passes and a firing one still blocks',
      {
        alerts: {
          alerts: [
            { name: 'DiskFilling', state: 'pending' },
            { name: 'KernelDeadlock', state: 'firing' },
          ],
          filter: { firingOnly: true },
        },
      },
      ['alert KernelDeadlock firing'],
    ],
    [
      // The control plane passes the names the Prometheus adapter let through, without a state.
      'an alert without a state counts as firing',
      { alerts: { alerts: [{ name: 'NodeDown' }] } },
      ['alert NodeDown firing'],
    ],
    [
      'an empty alert filter ignores nothing',
      { alerts: { alerts: [{ name: 'Watchdog', state: 'firing' }], filter: { regexp: '' } } },
      ['alert Watchdog firing'],
    ],
    [
      'a filtered alert is ignored',
      {
        alerts: {
          alerts: [{ name: 'Watchdog', state: 'firing' }],
          filter: { regexp: '^Watchdog$' },
        },
      },
      [],
    ],
    [
      'with matchOnly only matching alerts block',
      {
        alerts: {
          alerts: [
            { name: 'Watchdog', state: 'firing' },
            { name: 'NodeDown', state: 'firing' },
          ],
          filter: { regexp: '^Node', matchOnly: true },
        },
      },
      ['alert NodeDown firing'],
    ],
    [
      'duplicate alert samples give one reason each in name order, firing wins in either order',
      {
        alerts: {
          alerts: [
            { name: 'Z', state: 'pending' },
            { name: 'B', state: 'firing' },
            { name: 'A', state: 'pending' },
            { name: 'M', state: 'pending' },
            { name: 'Z', state: 'firing' },
            { name: 'B', state: 'pending' },
          ],
        },
      },
      ['alert A pending', 'alert B firing', 'alert M pending', 'alert Z firing'],
    ],
    [
      'an invalid alert filter blocks',
      { alerts: { alerts: [], filter: { regexp: '(' } } },
      ['alert filter "(" is not a valid regular expression; fix the alert filter'],
    ],
    [
      'an unreachable Prometheus blocks',
      { alerts: { error: 'connect ECONNREFUSED 10.0.0.1:9090' } },
      ['could not query Prometheus alerts: connect ECONNREFUSED 10.0.0.1:9090'],
    ],
    [
      'a running blocking pod blocks, and one with no phase yet; finished or unknown ones do not',
      {
        blockingPods: {
          pods: [
            { pod: 'backup/velero-1', phase: 'Running', selector: 'app=velero' },
            { pod: 'backup/velero-0', phase: 'Succeeded', selector: 'app=velero' },
            { pod: 'backup/velero-2', phase: 'Unknown', selector: 'app=velero' },
            { pod: 'backup/velero-3', phase: 'Failed', selector: 'app=velero' },
            { pod: 'backup/velero-4', selector: 'app=velero' },
          ],
        },
      },
      [
        'pod backup/velero-1 matches blocking selector app=velero',
        'pod backup/velero-4 matches blocking selector app=velero',
      ],
    ],
    [
      'unreadable blocking pods block',
      { blockingPods: { error: 'forbidden' } },
      ['could not list blocking pods: forbidden'],
    ],
    ['a free slot', { slots: { inUse: 1, limit: 2 } }, []],
    [
      'all slots in use',
      { slots: { inUse: 2, limit: 2, holders: ['node-b', 'node-c'] } },
      ['all 2 slots in use (node-b, node-c)'],
    ],
    [
      'zero concurrency',
      { slots: { inUse: 0, limit: 0 } },
      ['concurrency is 0: no node may start'],
    ],
    [
      'the pool at its limit',
      { slots: { inUse: 1, limit: 3, pool: { name: 'gpu', inUse: 1, limit: 1 } } },
      ['pool gpu at its limit 1'],
    ],
    [
      'a pool with room, and free slots',
      { slots: { inUse: 1, limit: 3, pool: { name: 'gpu', inUse: 1, limit: 2 } } },
      [],
    ],
    [
      'unreadable slots block',
      { slots: { error: 'leases forbidden' } },
      ['could not read the slots: leases forbidden'],
    ],
    [
      'PDBs with headroom',
      {
        pdbs: {
          budgets: [{ name: 'payments/api', disruptionsAllowed: 1, pods: ['payments/api-7f9'] }],
        },
      },
      [],
    ],
    [
      'a PDB with no pods here',
      { pdbs: { budgets: [{ name: 'payments/api', disruptionsAllowed: 0, pods: [] }] } },
      [],
    ],
    [
      'a PDB with no headroom',
      {
        pdbs: {
          budgets: [{ name: 'payments/api', disruptionsAllowed: 0, pods: ['payments/api-7f9'] }],
        },
      },
      ['PDB payments/api allows 0 disruptions (pod payments/api-7f9)'],
    ],
    [
      'a PDB with no headroom over two pods here',
      {
        pdbs: {
          budgets: [{ name: 'payments/api', disruptionsAllowed: 0, pods: ['p/a-1', 'p/a-2'] }],
        },
      },
      ['PDB payments/api allows 0 disruptions (pods p/a-1, p/a-2)'],
    ],
    [
      'a PDB never reads as allowing fewer than 0 disruptions',
      { pdbs: { budgets: [{ name: 'p/db', disruptionsAllowed: -1, pods: ['p/db-0'] }] } },
      ['PDB p/db allows 0 disruptions (pod p/db-0)'],
    ],
    [
      'a pod under two PDBs',
      {
        pdbs: {
          budgets: [
            { name: 'a/one', disruptionsAllowed: 1, pods: ['a/p'] },
            { name: 'a/two', disruptionsAllowed: 3, pods: ['a/p'] },
          ],
        },
      },
      ['pod a/p is covered by 2 PDBs (a/one, a/two); the Eviction API refuses it'],
    ],
    [
      'a drain that would refuse a pod, beside a budget with no headroom',
      {
        pdbs: {
          budgets: [{ name: 'payments/api', disruptionsAllowed: 0, pods: ['payments/api-7f9'] }],
          refusals: ['cannot delete Pods that declare no controller (…): dev/debug'],
        },
      },
      [
        'the drain would refuse: cannot delete Pods that declare no controller (…): dev/debug',
        'PDB payments/api allows 0 disruptions (pod payments/api-7f9)',
      ],
    ],
    [
      'a failed preflight blocks',
      { pdbs: { error: 'dry-run eviction: 503' } },
      ['could not run the PDB preflight: dry-run eviction: 503'],
    ],
  ];
  for (const [why, facts, want] of cases) {
    it(why, () => assert.deepEqual(messages(facts), want));
  }
});

describe('evaluatePolicy: all reasons, in gate order', () => {
  it('reports every failing gate, not only the first', () => {
    const got = reasons({
      timeZone: 'Europe/Berlin',
      pause: { paused: true },
      window: {
        open: false,
        nextOpening: new Date('2026-03-07T01:00:00Z'),
        freeze: { reason: 'release week' },
      },
      soak: { ms: 600_000, last: { node: 'node-9', at: new Date('2026-03-06T23:59:00Z') } },
      unhealthy: { error: 'x' },
      flapping: { error: 'x' },
      alerts: { alerts: [{ name: 'KernelDeadlock', state: 'firing' }] },
      queries: [{ gate: { query: 'up == 0', expect: { kind: 'empty' } }, answer: { error: 'x' } }],
      blockingPods: { pods: [{ pod: 'a/b', phase: 'Running', selector: 's=t' }] },
      slots: { inUse: 1, limit: 1 },
      pdbs: {
        budgets: [{ name: 'payments/api', disruptionsAllowed: 0, pods: ['payments/api-7f9'] }],
      },
    });
    assert.deepEqual(
      got.map((r) => r.gate),
      [
        'pause',
        'freeze',
        'window',
        'soak',
        'unhealthy',
        'flapping',
        'alerts',
        'queries',
        'blocking-pods',
        'slot',
        'pdb',
      ],
    );
    assert.deepEqual(
      [...GATES],
      got.map((r) => r.gate),
    );
  });
  it('a failing gate gives the verdict blocked, with the gate and its reason', () =>
    assert.deepEqual(evaluatePolicy({ node, pause: { paused: true } }, NOW), {
      verdict: 'blocked',
      reasons: [{ gate: 'pause', message: 'kubemaint is paused' }],
    }));
  it('proceeds when every gate passes', () =>
    assert.deepEqual(
      evaluatePolicy(
        {
          node,
          expectedDurationMs: 60_000,
          pause: { paused: false },
          window: { open: true, closesAt: min(60) },
          unhealthy: { nodes: [], max: 0 },
          alerts: { alerts: [] },
          blockingPods: { pods: [] },
          slots: { inUse: 0, limit: 1 },
          pdbs: { budgets: [] },
        },
        NOW,
      ),
      { verdict: 'proceed' },
    ));
});

describe('describeTime', () => {
  const cases: [at: string, now: string, zone: string, want: string][] = [
    ['2026-03-07T01:00:00Z', '2026-03-05T12:00:00Z', 'Europe/Berlin', 'Sat 02:00 Europe/Berlin'],
    [
      '2026-03-26T01:00:00Z',
      '2026-03-05T12:00:00Z',
      'Europe/Berlin',
      'Thu 26 Mar 02:00 Europe/Berlin',
    ],
    // Spring forward: 02:00 local does not exist on 2026-03-29, the opening is at 03:00 CEST.
    ['2026-03-29T01:00:00Z', '2026-03-27T12:00:00Z', 'Europe/Berlin', 'Sun 03:00 Europe/Berlin'],
    [
      '2026-03-08T07:00:00Z',
      '2026-03-05T12:00:00Z',
      'America/New_York',
      'Sun 03:00 America/New_York',
    ],
    ['2026-03-07T01:00:00Z', '2026-03-05T12:00:00Z', 'Not/AZone', 'Sat 01:00 UTC'],
    // Six and a half days ahead or more, a weekday alone could be read as the coming one: the date.
    ['2026-03-12T00:00:00Z', '2026-03-05T12:00:00Z', 'UTC', 'Thu 12 Mar 00:00 UTC'],
    ['2026-03-11T23:59:00Z', '2026-03-05T12:00:00Z', 'UTC', 'Wed 23:59 UTC'],
  ];
  for (const [at, now, zone, want] of cases) {
    it(`${at} in ${zone} → ${want}`, () =>
      assert.equal(describeTime(new Date(at), new Date(now), zone), want));
  }
  it("reads the same on any server: in English, and UTC for an unknown zone, not the server's", () => {
    // Luxon's defaults stand in for a server whose locale is German and whose zone is New York.
    const { defaultLocale, defaultZone } = Settings;
    Settings.defaultLocale = 'de-DE';
    Settings.defaultZone = 'America/New_York';
    try {
      const at = new Date('2026-03-07T01:00:00Z');
      assert.equal(describeTime(at, NOW, 'Europe/Berlin'), 'Sat 02:00 Europe/Berlin');
      assert.equal(describeTime(at, NOW, 'Not/AZone'), 'Sat 01:00 UTC');
    } finally {
      Settings.defaultLocale = defaultLocale;
      Settings.defaultZone = defaultZone;
    }
  });
});

describe('listSome', () => {
  it('lists up to five names', () => assert.equal(listSome(['a', 'b']), 'a, b'));
  it('lists five names whole', () =>
    assert.equal(listSome(['a', 'b', 'c', 'd', 'e']), 'a, b, c, d, e'));
  it('summarises the rest', () =>
    assert.equal(listSome(['a', 'b', 'c', 'd', 'e', 'f', 'g']), 'a, b, c, d, e and 2 more'));
});

describe('storedReason', () => {
  it('keeps a slot reason without who holds the slots (they change with every hand-off)', () => {
    assert.equal(
      storedReason({ gate: 'slot', message: 'all 2 slots in use (node-b, node-c)' }),
      'all 2 slots in use',
    );
    assert.equal(
      storedReason({ gate: 'slot', message: 'pool gpu at its limit 1 (node-a and 3 more)' }),
      'pool gpu at its limit 1',
    );
  });
  it('keeps every other reason as it is', () =>
    assert.equal(
      storedReason({ gate: 'pdb', message: 'PDB shop/web allows 0 disruptions (pods a, b)' }),
      'PDB shop/web allows 0 disruptions (pods a, b)',
    ));
});
