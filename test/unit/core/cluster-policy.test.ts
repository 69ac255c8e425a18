/**
 * The gate across clusters (core/cluster-policy.ts, ADR 0027): the order of waves with its soak,
 * a failed request stopping the wave, an unreadable earlier cluster blocking (fail closed), and at
 * most N clusters in maintenance at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clusterReasons,
  clustersToRead,
  earlierClusters,
  summarize,
  type ClusterGateFacts,
  type PeerRequest,
  type PeerState,
} from '../../../src/core/cluster-policy.js';
import type { RequestState } from '../../../src/core/request.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const describe_ = (at: Date) => at.toISOString().slice(11, 16);

function request(
  node: string,
  state: RequestState,
  endedMinutesAgo = 60,
  id = `r-${node}`,
): PeerRequest {
  const at = ago(endedMinutesAgo);
  return {
    id,
    node,
    action: 'reboot',
    state,
    createdAt: ago(endedMinutesAgo + 30),
    updatedAt: at,
    history: [{ from: 'verifying', to: state, at, by: 'kubemaint' }],
    ...(state === 'failed' ? { failure: 'node did not come back' } : {}),
  };
}

const order = [['staging'], ['production']];
const facts = (peers: PeerState[], over: Partial<ClusterGateFacts> = {}): ClusterGateFacts => ({
  self: 'production',
  policy: { order, soakMs: 0 },
  peers,
  selfInMaintenance: false,
  claimed: [],
  ...over,
});
const reasons = (f: ClusterGateFacts) => clusterReasons(f, NOW, describe_);

describe('the order of clusters', () => {
  it('knows which clusters come earlier, waves of several included', () => {
    const waves = [['dev'], ['staging-eu', 'staging-us'], ['prod']];
    assert.deepEqual(earlierClusters(waves, 'prod'), ['dev', 'staging-eu', 'staging-us']);
    assert.deepEqual(earlierClusters(waves, 'staging-us'), ['dev']);
    assert.deepEqual(earlierClusters(waves, 'dev'), []);
    assert.deepEqual(earlierClusters(waves, 'unordered'), []);
  });

  it('lets a later cluster start once the earlier one is done and no soak is asked', () => {
    assert.deepEqual(
      reasons(facts([{ name: 'staging', requests: [request('node-1', 'done')] }])),
      [],
    );
  });

  it('holds it while the earlier cluster has unfinished maintenance, naming it', () => {
    const unfinished =
      'cluster staging goes before production (blockers.clusters.order) and has unfinished maintenance (kubemaint status --cluster staging)';
    for (const state of ['proposed', 'approved', 'running', 'verifying'] as const) {
      const got = reasons(
        facts([
          { name: 'staging', requests: [request('node-2', state), request('node-1', 'done')] },
        ]),
      );
      assert.deepEqual(got, [unfinished], state);
    }
  });
  it('keeps that reason the same while the earlier cluster moves on (no rewrite per step)', () => {
    const one = reasons(facts([{ name: 'staging', requests: [request('node-2', 'proposed')] }]));
    const two = reasons(
      facts([
        {
          name: 'staging',
          requests: [request('node-2', 'running'), request('node-3', 'approved')],
        },
      ]),
    );
    assert.deepEqual(one, two);
  });

  it('holds it while the earlier cluster soaks, and says when it may start', () => {
    const peers = [{ name: 'staging', requests: [request('node-1', 'done', 30)] }];
    const soaking = reasons(facts(peers, { policy: { order, soakMs: 3_600_000 } }));
    assert.deepEqual(soaking, [
      'soaking 1h after cluster staging finished (11:30); production may start 12:30',
    ]);
    assert.deepEqual(reasons(facts(peers, { policy: { order, soakMs: 20 * 60_000 } })), []);
  });

  it('stops the wave at a failed request until that node’s next request is done', () => {
    const failed = [request('node-3', 'failed', 90, 'r-bad')];
    const stopped = reasons(facts([{ name: 'staging', requests: failed }]));
    assert.equal(stopped.length, 1);
    assert.match(
      stopped[0]!,
      /request r-bad on node-3 failed \(node did not come back\): the order stops/,
    );
    // A node that is gone never gets a next request: the reason names the way out.
    assert.match(stopped[0]!, /a node gone for good never has one: delete r-bad there/);
    assert.deepEqual(reasons(facts([{ name: 'staging', requests: [] }])), []);
    const fixed = [...failed, { ...request('node-3', 'done', 10, 'r-good') }];
    assert.deepEqual(reasons(facts([{ name: 'staging', requests: fixed }])), []);
  });

  it('keeps the wave stopped when the failed node’s later request is anything but done', () => {
    // A person who may only propose in staging proposes the failed node again and it is rejected
    // (or nobody decides and it expires): production must still wait for a done request.
    const failed = request('node-3', 'failed', 90, 'r-bad');
    for (const state of ['rejected', 'expired', 'cancelled', 'skipped'] as const) {
      const later = request('node-3', state, 5, 'r-later');
      const got = reasons(facts([{ name: 'staging', requests: [failed, later] }]));
      assert.equal(got.length, 1, state);
      assert.match(got[0]!, /request r-bad on node-3 failed/, state);
    }
    const doneBefore = request('node-3', 'done', 200, 'r-old');
    assert.equal(reasons(facts([{ name: 'staging', requests: [doneBefore, failed] }])).length, 1);
  });

  it('blocks on an earlier cluster whose request times are not times (fail closed)', () => {
    const done = request('node-1', 'done', 30);
    const policy = { order, soakMs: 3_600_000 };
    const bad: PeerRequest[] = [
      { ...done, id: 'r-created', createdAt: 'yesterday' },
      { ...done, id: 'r-ended', history: [{ from: 'verifying', to: 'done', at: 'soon', by: 'x' }] },
      // A status is passed through as stored: a number where a time belongs.
      {
        ...done,
        id: 'r-number',
        history: [{ from: 'verifying', to: 'done', at: 7 as never, by: 'x' }],
      },
    ];
    for (const forged of bad) {
      const got = reasons(facts([{ name: 'staging', requests: [forged, done] }], { policy }));
      assert.equal(got.length, 1, forged.id);
      assert.match(got[0]!, new RegExp(`requests the gate cannot judge \\(${forged.id}: its`));
      assert.match(got[0]!, /production waits until they are fixed or deleted there/);
    }
  });

  it('blocks on an earlier cluster that cannot be read (fail closed)', () => {
    assert.deepEqual(reasons(facts([{ name: 'staging', error: 'connect ECONNREFUSED' }])), [
      'cluster staging goes before production (blockers.clusters.order) and cannot be read (connect ECONNREFUSED); production waits until it can',
    ]);
    assert.equal(reasons(facts([])).length, 1, 'a cluster not read at all blocks too');
  });

  it('never holds the first wave back for what a later one does', () => {
    const got = reasons(
      facts([{ name: 'production', requests: [request('p-1', 'failed')] }], { self: 'staging' }),
    );
    assert.deepEqual(got, []);
  });
});

describe('at most N clusters in maintenance', () => {
  const cap = { order: [], soakMs: 0, maxInMaintenance: 1 };
  it('holds a start while another cluster runs maintenance', () => {
    const got = reasons(
      facts([{ name: 'staging', requests: [request('s-1', 'verifying')] }], { policy: cap }),
    );
    assert.deepEqual(got, [
      '1 other cluster is in maintenance (staging); at most 1 at once (blockers.clusters.maxInMaintenance)',
    ]);
  });
  it('counts a cluster claimed moments ago, and one that cannot be read', () => {
    const idle = [{ name: 'staging', requests: [request('s-1', 'approved')] }];
    assert.deepEqual(reasons(facts(idle, { policy: cap })), []);
    assert.equal(reasons(facts(idle, { policy: cap, claimed: ['staging'] })).length, 1);
    const lost = reasons(facts([{ name: 'staging', error: 'timeout' }], { policy: cap }));
    assert.match(lost[0]!, /staging \(cannot be read: counted as in maintenance\)/);
  });
  it('lets a cluster already in maintenance start its next node', () => {
    const busy = [{ name: 'staging', requests: [request('s-1', 'running')] }];
    assert.deepEqual(reasons(facts(busy, { policy: cap, selfInMaintenance: true })), []);
    assert.deepEqual(reasons(facts(busy, { policy: cap, claimed: ['production'] })), []);
  });
  it('reads every other cluster for the cap, only the earlier ones for the order', () => {
    const all = ['dev', 'staging', 'production'];
    assert.deepEqual(clustersToRead(cap, 'staging', all), ['dev', 'production']);
    assert.deepEqual(clustersToRead({ order, soakMs: 0 }, 'production', all), ['staging']);
  });
});

describe('summarize', () => {
  it('takes the latest request of each node and the last done time', () => {
    const summary = summarize([
      request('a', 'failed', 100),
      request('a', 'done', 50, 'r-a2'),
      request('b', 'done', 20),
    ]);
    assert.deepEqual(summary.failed, []);
    assert.equal(summary.lastDoneAt?.toISOString(), ago(20));
  });
});
