/**
 * A ConfigMap the control plane owns whole (the observed durations, the agent's settings): changes
 * made at once by one process land one after another, each on the last one's data, without a
 * conflict between them (the tick proves a wave of nodes at once, and each records its duration);
 * a change another writer made in between is read again and kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { ownedConfigMap } from '../../../src/adapters/kube/configmap-store.js';
import { R } from '@kubemaint/kubesim';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

describe('an owned ConfigMap', () => {
  let sim: SimApi;
  let kc: KubeConfig;
  before(async () => {
    sim = await startSimApi();
    kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    await kc
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'kubemaint' } } });
  });
  after(() => sim.close());

  /** The store over a client whose ConfigMap writes are counted, and which failed. */
  function counted(name: string) {
    const client = createKubeClient(kc);
    const writes = { made: 0, refused: 0 };
    for (const verb of ['createNamespacedConfigMap', 'replaceNamespacedConfigMap'] as const) {
      const original = client.core[verb].bind(client.core) as (...a: unknown[]) => Promise<unknown>;
      (client.core as unknown as Record<string, unknown>)[verb] = async (...args: unknown[]) => {
        writes.made += 1;
        try {
          return await original(...args);
        } catch (error) {
          writes.refused += 1;
          throw error;
        }
      };
    }
    return { store: ownedConfigMap(client, 'kubemaint', name, { test: 'yes' }), writes };
  }

  it('five changes at once: five writes, none refused, every change kept', async () => {
    const { store, writes } = counted('five-at-once');
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.update((data) => ({ ...data, [`change-${i}`]: String(i) })),
      ),
    );
    assert.deepEqual(writes, { made: 5, refused: 0 });
    assert.deepEqual(await store.read(), {
      'change-0': '0',
      'change-1': '1',
      'change-2': '2',
      'change-3': '3',
      'change-4': '4',
    });
  });

  it('a change that fails does not stop the ones after it', async () => {
    const { store } = counted('one-fails');
    const results = await Promise.allSettled([
      store.update(() => {
        throw new Error('this change cannot be made');
      }),
      store.update((data) => ({ ...data, kept: 'yes' })),
    ]);
    assert.equal(results[0].status, 'rejected');
    assert.equal(results[1].status, 'fulfilled');
    assert.deepEqual(await store.read(), { kept: 'yes' });
  });

  it('another writer between the read and the write: read again, both changes kept', async () => {
    const { store, writes } = counted('two-writers');
    await store.update(() => ({ first: '1' }));
    let reads = 0;
    await store.update((data) => {
      reads += 1;
      // Someone else writes after this read and before this write (the first time only).
      if (reads === 1)
        sim.store.mutate(R.configmaps, 'kubemaint', 'two-writers', (cm) => {
          cm['data'] = { ...(cm['data'] as Record<string, string>), theirs: 'yes' };
        });
      return { ...data, mine: 'yes' };
    });
    assert.equal(reads, 2, 'the change was made again on what the other writer left');
    assert.deepEqual(writes, { made: 3, refused: 1 });
    assert.deepEqual(await store.read(), { first: '1', theirs: 'yes', mine: 'yes' });
  });
});
