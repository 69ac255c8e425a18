import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { watchGone } from '../../../src/app/executor/drain-watch.js';
import type { PodsPort } from '../../../src/app/ports.js';
import { FakeCluster, testClock } from '../../fakes/cluster.js';

describe('watchGone', () => {
  it('reports a pod gone from a DELETED event', async () => {
    const c = new FakeCluster({ terminationMs: 1 });
    const pod = c.addPod({ name: 'a', nodeName: 'n1' });
    const gone: string[] = [];
    const watch = await watchGone(c.podsPort(), testClock, {
      node: 'n1',
      wanted: () => [pod.uid],
      onGone: (uid) => gone.push(uid),
      resyncMs: 60_000,
    });
    await c.podsPort().evictPod(pod, {});
    await testClock.sleep(20);
    watch.stop();
    assert.deepEqual(gone, [pod.uid]);
  });

  it('reports a pod replaced under the same name (new UID) as gone', async () => {
    const c = new FakeCluster();
    const pod = c.addPod({ name: 'db-0', nodeName: 'n1' });
    const gone: string[] = [];
    const watch = await watchGone(c.podsPort(), testClock, {
      node: 'n1',
      wanted: () => [pod.uid],
      onGone: (uid) => gone.push(uid),
      resyncMs: 60_000,
    });
    await watch.resync();
    c.pods.delete('default/db-0');
    c.addPod({ name: 'db-0', nodeName: 'n1', uid: 'uid-db-0-new' });
    watch.stop();
    assert.deepEqual(gone, [pod.uid]);
  });

  it('finds deletions by listing when the watch keeps ending', async () => {
    const c = new FakeCluster();
    const pod = c.addPod({ name: 'a', nodeName: 'n1' });
    let watches = 0;
    const flaky: PodsPort = {
      ...c.podsPort(),
      // Every watch ends at once, as a dropped connection would, and sees nothing.
      watchPodsOnNode: async (_node, _handler, onEnd) => {
        watches++;
        setTimeout(() => onEnd(new Error('connection reset')), 1);
        return () => undefined;
      },
    };
    const gone: string[] = [];
    const errors: unknown[] = [];
    const watch = await watchGone(flaky, testClock, {
      node: 'n1',
      wanted: () => (gone.length ? [] : [pod.uid]),
      onGone: (uid) => gone.push(uid),
      onError: (e) => errors.push(e),
      resyncMs: 20,
    });
    c.pods.delete('default/a');
    await testClock.sleep(300);
    watch.stop();
    assert.deepEqual(gone, [pod.uid]);
    assert.ok(watches >= 2, 'the watch was started again');
    assert.ok(errors.length >= 1);
  });
});
