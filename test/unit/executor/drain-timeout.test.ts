/**
 * drain.onTimeout (issue 18; AKS undrainableNodeBehavior, kured --force-reboot): what a drain still
 * waiting at drain.timeout does. `ask` and `uncordon` stop the drain there (the executor gives the
 * node back: failed or skipped); `force` keeps the node cordoned, says until when, and deletes the
 * remaining pods at the second deadline unless a person chose to keep waiting.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drainNode, type DrainHooks } from '../../../src/app/executor/drain.js';
import type { DrainSettings } from '../../../src/app/executor/settings.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../../src/compose/executor-settings.js';
import type { DrainProgress } from '../../../src/core/request.js';
import { FakeCluster, testClock } from '../../fakes/cluster.js';

const PDB = 'The disruption budget web-pdb needs 3 healthy pods and has 3 currently';

const settings = (patch: Partial<DrainSettings>): DrainSettings => ({
  ...DEFAULT_SETTINGS.drain,
  timeoutMs: 300,
  evictionRetryMs: 10,
  stallAfterMs: 10_000,
  ...patch,
});

/** Three pods on n1; web-2's PDB never allows a disruption. */
function cluster(): FakeCluster {
  const c = new FakeCluster({ refuse: (pod) => (pod.name === 'web-2' ? PDB : undefined) });
  c.addNode('n1');
  for (let i = 0; i < 3; i++) c.addPod({ name: `web-${i}`, nodeName: 'n1' });
  return c;
}

const run = (c: FakeCluster, s: DrainSettings, hooks: DrainHooks = {}) =>
  drainNode({ pods: c.podsPort(), clock: testClock }, { node: 'n1', settings: s }, hooks);

describe('drain.onTimeout', () => {
  for (const onTimeout of ['ask', 'uncordon', undefined] as const) {
    it(`${onTimeout ?? 'unset (ask)'}: stops at the timeout, blocked, with the pod that refused`, async () => {
      const c = cluster();
      const report = await run(c, settings(onTimeout ? { onTimeout } : {}));
      assert.equal(report.outcome, 'blocked');
      assert.equal(report.timedOut, true);
      assert.deepEqual(
        report.remaining.map((p) => p.pod),
        ['default/web-2'],
      );
      assert.ok(!c.log.includes('delete default/web-2'), 'nothing is deleted past its PDB');
    });
  }

  it('force: says when, keeps evicting until the second deadline, then deletes the rest', async () => {
    const c = cluster();
    const said: { forceAt: Date; remaining: string[] }[] = [];
    const forced: { pods: string[]; by: string; at: Date }[] = [];
    const progress: DrainProgress[] = [];
    const report = await run(c, settings({ onTimeout: 'force', forceAfterMs: 200 }), {
      onTimeout: (what) => void said.push(what),
      onForce: (what) => void forced.push({ ...what, at: testClock.now() }),
      onProgress: (p) => void progress.push(p),
    });
    assert.equal(report.outcome, 'drained');
    assert.equal(report.timedOut, true);
    assert.deepEqual(report.forced, ['default/web-2']);
    assert.equal(said.length, 1, 'the second deadline is said once');
    assert.deepEqual(said[0]!.remaining, ['default/web-2']);
    assert.deepEqual(
      forced.map((f) => [f.pods, f.by]),
      [[['default/web-2'], 'config']],
    );
    assert.ok(forced[0]!.at >= said[0]!.forceAt, 'not deleted before the second deadline');
    assert.ok(c.log.includes('delete default/web-2'));
    // The node is cordoned past the timeout: the request's progress says why and until when.
    const waiting = progress.find((p) => p.forceAt !== undefined && p.waitingOn.length > 0);
    assert.equal(waiting?.forceAt, said[0]!.forceAt.toISOString());
    assert.match(
      waiting?.message ?? '',
      /drain timed out: the remaining pods are deleted at .* \(drain\.onTimeout: force\)/,
    );
  });

  it('force: a person who chose to keep waiting is not overruled by the config', async () => {
    const c = cluster();
    const stop = new AbortController();
    let asked = 0;
    const report = await run(c, settings({ onTimeout: 'force', forceAfterMs: 50 }), {
      decision: async () => {
        // Well past the second deadline, the drain is stopped from outside (the request ended).
        if (++asked > 6) stop.abort();
        return 'wait';
      },
      abort: stop.signal,
    });
    assert.equal(report.outcome, 'skipped');
    assert.ok(asked > 6);
    assert.ok(!c.log.includes('delete default/web-2'));
    assert.equal(report.forced, undefined);
  });

  it('force: a skip before the second deadline gives up without deleting', async () => {
    const c = cluster();
    const report = await run(c, settings({ onTimeout: 'force', forceAfterMs: 60_000 }), {
      decision: async () => 'skip',
    });
    assert.equal(report.outcome, 'skipped');
    assert.ok(!c.log.includes('delete default/web-2'));
  });
});
