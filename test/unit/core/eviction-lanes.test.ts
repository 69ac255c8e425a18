import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evictionLanes } from '../../../src/core/eviction-lanes.js';

const pod = (uid: string, namespace: string, labels: Record<string, string>) => ({
  uid,
  namespace,
  labels,
});

describe('eviction lanes: the pods one PDB guards', () => {
  it('puts each guarded pod in its PDB’s lane, by namespace and selector, as policy/v1 reads them', () => {
    const lanes = evictionLanes(
      [
        pod('w1', 'shop', { app: 'web' }),
        pod('w2', 'shop', { app: 'web', tier: 'canary' }),
        pod('a1', 'shop', { app: 'api' }),
        pod('o1', 'other', { app: 'web' }),
        pod('x1', 'batch', { app: 'x' }),
        pod('n1', 'none', { app: 'web' }),
      ],
      [
        { namespace: 'shop', name: 'web', selector: { matchLabels: { app: 'web' } } },
        {
          namespace: 'shop',
          name: 'api',
          selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] },
        },
        // {} selects every pod of its namespace; a null selector none.
        { namespace: 'batch', name: 'everything', selector: {} },
        { namespace: 'none', name: 'nothing', selector: null },
        // An operator the API would not take selects nothing.
        {
          namespace: 'other',
          name: 'odd',
          selector: { matchExpressions: [{ key: 'app', operator: 'Like' }] },
        },
      ],
    );
    assert.deepEqual(Object.fromEntries(lanes), {
      w1: 'shop/web',
      w2: 'shop/web',
      a1: 'shop/api',
      x1: 'batch/everything',
    });
  });

  it('puts a pod two PDBs guard in the first one’s lane', () => {
    const lanes = evictionLanes(
      [pod('p', 'shop', { app: 'web' })],
      [
        { namespace: 'shop', name: 'a', selector: { matchLabels: { app: 'web' } } },
        { namespace: 'shop', name: 'b', selector: {} },
      ],
    );
    assert.equal(lanes.get('p'), 'shop/a');
  });
});
