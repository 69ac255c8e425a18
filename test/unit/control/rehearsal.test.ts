/**
 * The rehearsal report's static judgements (issue 21): which pods no drain can evict because a PDB
 * never allows it, whichever way the budget selects (matchLabels, matchExpressions, both), and the
 * campaign-wide gates the twin does not play (a paused cluster, Prometheus), the pause first of all.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  campaignGates,
  cannotEvictOn,
  rehearsalReport,
  type EvictionFacts,
} from '../../../src/app/control/rehearsal.js';
import type { Pod } from '../../../src/core/drain-filters.js';

const NOW = new Date('2030-01-07T22:00:00Z');
const DRAIN = { force: false, deleteEmptyDirData: true, ignoreDaemonSets: true, podSelector: '' };

const pod = (name: string, node: string, labels: Record<string, string>): Pod =>
  ({
    metadata: {
      name,
      namespace: 'default',
      labels,
      ownerReferences: [{ kind: 'ReplicaSet', name: `${name}-rs`, uid: name, controller: true }],
    },
    spec: { nodeName: node, containers: [{ name: 'app' }] },
    status: { phase: 'Running' },
  }) as unknown as Pod;

const PODS = [
  pod('db-0', 'n1', { app: 'db', tier: 'data' }),
  pod('web-0', 'n1', { app: 'web' }),
  pod('web-1', 'n2', { app: 'web' }),
];

const budget = (
  selector: EvictionFacts['pdbs'][number]['selector'],
  limits: { minAvailable?: number | string; maxUnavailable?: number | string },
) => ({ name: 'guard', namespace: 'default', ...(selector ? { selector } : {}), ...limits });

describe('cannotEvictOn: PDBs that never allow an eviction', () => {
  const cases: [why: string, pdb: EvictionFacts['pdbs'][number], blocked: string[]][] = [
    [
      'matchLabels, minAvailable 1 of 1',
      budget({ matchLabels: { app: 'db' } }, { minAvailable: 1 }),
      ['default/db-0'],
    ],
    [
      'matchExpressions In',
      budget(
        { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] },
        { minAvailable: 1 },
      ),
      ['default/db-0'],
    ],
    [
      'matchExpressions Exists over both apps, maxUnavailable 0',
      budget({ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, { maxUnavailable: 0 }),
      ['default/db-0', 'default/web-0'],
    ],
    [
      'matchLabels and matchExpressions together',
      budget(
        {
          matchLabels: { app: 'db' },
          matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['cache'] }],
        },
        { minAvailable: '100%' },
      ),
      ['default/db-0'],
    ],
    [
      'a budget that allows one of two web pods',
      budget({ matchLabels: { app: 'web' } }, { maxUnavailable: 1 }),
      [],
    ],
    ['no selector selects nothing', budget(undefined, { minAvailable: 1 }), []],
    [
      'an operator the API does not know selects nothing',
      budget(
        { matchExpressions: [{ key: 'app', operator: 'Near', values: ['db'] }] },
        { minAvailable: 1 },
      ),
      [],
    ],
  ];
  for (const [why, pdb, blocked] of cases)
    it(why, () => {
      const refused = cannotEvictOn('n1', { pods: PODS, pdbs: [pdb] }, DRAIN, NOW);
      assert.deepEqual(
        refused.map((r) => r.pod),
        blocked,
      );
      for (const r of refused) assert.equal(r.why, 'PDB guard never allows an eviction');
    });
});

describe('campaignGates', () => {
  it('says nothing for an unpaused cluster without Prometheus', () => {
    assert.deepEqual(campaignGates({ pause: { paused: false } }), []);
  });

  it('names who paused and why, and Prometheus', () => {
    const gates = campaignGates({
      pause: { paused: true, by: 'k8s:alice', at: '2030-01-07T20:00:00Z', reason: 'release' },
      prometheus: 'http://prometheus:9090',
    });
    assert.equal(gates.length, 2);
    assert.match(
      gates[0]!,
      /^the cluster is paused by k8s:alice since 2030-01-07T20:00:00Z \(release\)/,
    );
    assert.match(gates[1]!, /blockers\.prometheus \(http:\/\/prometheus:9090\)/);
  });

  it('names the clusters blockers.clusters waits on, which the twin does not read', () => {
    const gates = campaignGates({
      pause: { paused: false },
      clusters: { self: 'production', others: ['staging', 'qa'] },
    });
    assert.equal(gates.length, 1);
    assert.match(
      gates[0]!,
      /^blockers\.clusters judges production from staging, qa .*rehearsed as if they allow it$/,
    );
    const first = campaignGates({
      pause: { paused: false },
      clusters: { self: 'staging', others: [] },
    });
    assert.deepEqual(first, [], 'the first wave waits on nobody');
  });

  it('a paused cluster is the first decision, before a stuck node', () => {
    const report = (gates: string[]) =>
      rehearsalReport({
        cluster: 'c',
        startedAt: NOW,
        endedAt: NOW,
        ended: 'all-ended',
        durations: {
          reboot: { ms: 1, source: 'config', said: '' },
          upgrade: { ms: 1, source: 'config', said: '' },
        },
        skipped: [],
        requests: [],
        traces: [],
        samples: [],
        cannotEvict: new Map(),
        gates,
      });
    const paused = campaignGates({ pause: { paused: true, by: 'k8s:alice' } });
    assert.equal(
      report(paused).campaign.firstDecision,
      'the cluster is paused by k8s:alice: nothing starts until kubemaint resume',
    );
    assert.deepEqual(report(paused).campaign.gates, paused);
    assert.match(report([]).campaign.firstDecision, /^nothing/);
  });
});
