/**
 * Deployment revisions, what `kubectl rollout history` and `rollout undo` read and patch: each
 * ReplicaSet's `deployment.kubernetes.io/revision`, the Deployment's own (its newest), and an older
 * ReplicaSet that a rollback brings back becoming the newest revision. With no replicas, neither
 * backend needs a kubelet for it.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { STRATEGIC } from '../fixtures.js';

type Obj = Record<string, unknown>;
const REVISION = 'deployment.kubernetes.io/revision';
const revisionOf = (o: Obj) =>
  ((o['metadata'] as Obj)['annotations'] as Obj | undefined)?.[REVISION];
const imageOf = (o: Obj) =>
  ((((o['spec'] as Obj)['template'] as Obj)['spec'] as Obj)['containers'] as Obj[])[0]?.['image'];

/** image → revision of each ReplicaSet, and the Deployment's revision, once they are `want`. */
async function revisions(b: Backend, ns: string, want: { deployment: string; sets: Obj }) {
  return eventually(`revisions ${JSON.stringify(want)}`, async () => {
    const d = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    const sets = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets`);
    const byImage = Object.fromEntries(
      ((sets.json['items'] ?? []) as Obj[])
        .map((rs) => [String(imageOf(rs)), revisionOf(rs)] as const)
        .sort(([a], [b]) => a.localeCompare(b)),
    );
    const seen = { deployment: revisionOf(d.json), sets: byImage };
    if (JSON.stringify(seen) !== JSON.stringify(want)) throw new Error(JSON.stringify(seen));
    return seen;
  });
}

export const deploymentRevisionCases: CaseGroup = {
  name: 'Deployment revisions',
  cases: [
    {
      id: 'ReplicaSets and the Deployment carry revisions; a rolled-back template becomes the newest',
      async run(b) {
        const ns = await b.namespace();
        const template = (image: string) => ({
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image }] },
        });
        const created = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
          body: {
            metadata: { name: 'web' },
            spec: {
              replicas: 0,
              selector: { matchLabels: { app: 'web' } },
              template: template('a:1'),
            },
          },
        });
        assert.equal(created.code, 201, created.text);
        await revisions(b, ns, { deployment: '1', sets: { 'a:1': '1' } });
        const path = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
        const update = async (image: string) => {
          const reply = await b.request('PATCH', path, {
            contentType: STRATEGIC,
            body: { spec: { template: template(image) } },
          });
          assert.equal(reply.code, 200, reply.text);
        };
        await update('a:2');
        await revisions(b, ns, { deployment: '2', sets: { 'a:1': '1', 'a:2': '2' } });
        await update('a:1');
        await revisions(b, ns, { deployment: '3', sets: { 'a:1': '3', 'a:2': '2' } });
      },
    },
  ],
};
