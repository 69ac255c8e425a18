/**
 * Taints as the controllers apply them: a cordon (spec.unschedulable) becomes the
 * node.kubernetes.io/unschedulable:NoSchedule taint and an uncordon (null) removes it; the scheduler
 * keeps pods off NoSchedule-tainted nodes unless they tolerate it; a NoExecute taint evicts the pods
 * that do not tolerate it, at once or after their tolerationSeconds.
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  conditionsOf,
  createPod,
  fakeNode,
  field,
  markRunning,
  meta,
  objectWhen,
  podPath,
  STRATEGIC,
} from '../fixtures.js';

type Obj = Record<string, unknown>;
const taintKeys = (node: Obj) =>
  ((field(node, 'spec', 'taints') as Obj[] | undefined) ?? []).map(
    (t) => `${String(t['key'])}:${String(t['effect'])}`,
  );

const pinned = (node: string, tolerations: Obj[] = []) => ({
  nodeSelector: { 'kubernetes.io/hostname': node },
  ...(tolerations.length > 0 ? { tolerations } : {}),
});

async function runningOn(b: Backend, ns: string, name: string, node: string, tolerations: Obj[]) {
  await createPod(b, ns, name, { spec: { nodeName: node, tolerations } });
  await markRunning(b, ns, name);
}

export const taintCases: CaseGroup = {
  name: 'Taints and tolerations',
  cases: [
    {
      id: 'cordon adds node.kubernetes.io/unschedulable:NoSchedule; uncordon (null) removes it',
      async run(b) {
        const node = await fakeNode(b);
        const path = `/api/v1/nodes/${node}`;
        const cordon = await b.request('PATCH', path, {
          contentType: STRATEGIC,
          body: { spec: { unschedulable: true } },
        });
        assert.equal(cordon.code, 200, cordon.text);
        const tainted = await objectWhen(b, path, 'the unschedulable taint', (n) =>
          taintKeys(n).includes('node.kubernetes.io/unschedulable:NoSchedule'),
        );
        const taint = (field(tainted, 'spec', 'taints') as Obj[]).find(
          (t) => t['key'] === 'node.kubernetes.io/unschedulable',
        );
        assert.ok(taint?.['timeAdded'], 'the controller stamps timeAdded');
        const uncordon = await b.request('PATCH', path, {
          contentType: STRATEGIC,
          body: { spec: { unschedulable: null } },
        });
        assert.equal(
          field(uncordon.json, 'spec', 'unschedulable'),
          undefined,
          'null removes the field',
        );
        await objectWhen(b, path, 'the taint gone', (n) => taintKeys(n).length === 0);
      },
    },
    {
      id: 'NoSchedule: an intolerant pod stays Pending (Unschedulable), a tolerant one is bound',
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b, {
          taints: [{ key: 'conf/dedicated', value: 'x', effect: 'NoSchedule' }],
        });
        await createPod(b, ns, 'intolerant', { spec: pinned(node) });
        await createPod(b, ns, 'tolerant', {
          spec: pinned(node, [
            { key: 'conf/dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' },
          ]),
        });
        await objectWhen(
          b,
          podPath(ns, 'tolerant'),
          'the tolerant pod bound',
          (p) => field(p, 'spec', 'nodeName') === node,
        );
        const pending = await objectWhen(
          b,
          podPath(ns, 'intolerant'),
          'the scheduler to give up',
          (p) =>
            conditionsOf(p).some((c) => c['type'] === 'PodScheduled' && c['status'] === 'False'),
        );
        const scheduled = conditionsOf(pending).find((c) => c['type'] === 'PodScheduled');
        assert.equal(scheduled?.['reason'], 'Unschedulable');
        assert.match(
          String(scheduled?.['message']),
          /^0\/\d+ nodes are available: .*1 node\(s\) had untolerated taint/,
        );
        assert.equal(field(pending, 'spec', 'nodeName'), undefined);
        assert.equal(field(pending, 'status', 'phase'), 'Pending');
      },
    },
    {
      id: 'NoExecute: intolerant pods are evicted, tolerant ones stay, tolerationSeconds delays it',
      timeoutMs: 45_000,
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b);
        const forever = [{ key: 'conf/drain', operator: 'Exists', effect: 'NoExecute' }];
        const briefly = [
          { key: 'conf/drain', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3 },
        ];
        await runningOn(b, ns, 'intolerant', node, []);
        await runningOn(b, ns, 'forever', node, forever);
        await runningOn(b, ns, 'briefly', node, briefly);
        const tainted = await b.request('PATCH', `/api/v1/nodes/${node}`, {
          contentType: STRATEGIC,
          body: { spec: { taints: [{ key: 'conf/drain', effect: 'NoExecute' }] } },
        });
        assert.equal(tainted.code, 200, tainted.text);
        const started = Date.now();
        const evicted = await objectWhen(
          b,
          podPath(ns, 'intolerant'),
          'the eviction',
          (p) => meta(p)['deletionTimestamp'] !== undefined,
        );
        const target = conditionsOf(evicted).find((c) => c['type'] === 'DisruptionTarget');
        assert.equal(target?.['reason'], 'DeletionByTaintManager');
        const brief = await objectWhen(
          b,
          podPath(ns, 'briefly'),
          'the delayed eviction',
          (p) => meta(p)['deletionTimestamp'] !== undefined,
        );
        assert.ok(Date.now() - started >= 2_000, 'not before its tolerationSeconds');
        assert.ok(meta(brief)['deletionTimestamp']);
        const kept = (await b.request('GET', podPath(ns, 'forever'))).json;
        assert.equal(meta(kept)['deletionTimestamp'], undefined);
      },
    },
  ],
};
