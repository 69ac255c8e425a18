/**
 * Retention on the real apiserver (issue 32, ADR 0043), as serve's ServiceAccount under infra/k8s's
 * RBAC and admission policies: requests written without the phase label (as an earlier kubemaint
 * wrote them) are read by the tick's `kubemaint.io/phase!=ended` selector until a skew scan labels
 * them; the sweep's label patches, deletions and the kubemaint-history ConfigMap are all allowed;
 * afterwards the selector returns the active requests alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { controlCluster } from '../../src/adapters/kube/control-cluster.js';
import { LABEL_PHASE, NOT_ENDED } from '../../src/adapters/kube/request-codec.js';
import { MERGE_PATCH } from '../../src/adapters/kube/nodes.js';
import { requestStore } from '../../src/adapters/kube/requests.js';
import { HISTORY_CONFIGMAP, kubeRetention } from '../../src/adapters/kube/retention.js';
import { runTick, type TickDeps } from '../../src/app/control/tick.js';
import type { MaintenanceRequest, RequestState } from '../../src/core/request.js';
import { historyLines } from '../../src/core/history.js';
import { applyAll, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { testControlSettings } from '../support/control.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';

const NS = 'kubemaint';
const NODE = 'retention-node';
const DAY = 86_400_000;
const ENDED = 60;
const KEEP = 5;
const at = { group: 'kubemaint.io', version: 'v1beta1', namespace: NS };

describe('retention on the real apiserver, as serve', { timeout: 300_000 }, () => {
  let cluster: RealCluster;
  let admin: KubeConfig;
  let deps: TickDeps;
  let serve: CustomObjectsApi;

  before(async () => {
    cluster = await realCluster();
    admin = new KubeConfig();
    admin.loadFromFile(cluster.kubeconfig);
    await applyAll(admin, [
      ...manifests(INFRA_K8S),
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: NODE },
      },
    ]);
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.serviceAccountKubeconfig(NS, 'kubemaint-serve'));
    serve = kc.makeApiClient(CustomObjectsApi);
    const client = createKubeClient(kc);
    const now = () => new Date();
    deps = {
      cluster: controlCluster(client, { namespace: NS, now }),
      retention: kubeRetention(client, NS),
      notifier: { notify: async () => undefined },
      clusterName: 'real',
      settings: testControlSettings({ retention: { maxAgeMs: 30 * DAY, keepPerNode: KEEP } }),
      clock: { now },
      randomBytes: (n) => new Uint8Array(n).map(() => Math.floor(Math.random() * 256)),
    };
    // As an earlier kubemaint wrote them: no phase label. Status through the status subresource,
    // as serve (admission lets only the control plane write it).
    const store = requestStore(client, { namespace: NS });
    const writeUnlabelled = async (r: MaintenanceRequest) => {
      await store.create(r);
      await serve.patchNamespacedCustomObject(
        {
          ...at,
          plural: 'maintenancerequests',
          name: r.id,
          body: { metadata: { labels: { [LABEL_PHASE]: null } } },
        },
        MERGE_PATCH,
      );
    };
    for (let i = 0; i < ENDED; i++)
      await writeUnlabelled(request(`r-old${String(i).padStart(3, '0')}`, 'done', i + 1));
    await writeUnlabelled(request('r-active', 'approved', 0));
    const decisionFor = (id: string) => ({
      apiVersion: 'kubemaint.io/v1beta1',
      kind: 'MaintenanceApproval',
      metadata: { name: `${id}-approve`, namespace: NS, labels: { 'kubemaint.io/request': id } },
      spec: { request: id, approver: 'policy:autoApprove', decision: 'approve' },
    });
    await serve.createNamespacedCustomObject({
      ...at,
      plural: 'maintenanceapprovals',
      body: decisionFor('r-old059'),
    });
  });
  after(async () => {
    await admin
      .makeApiClient(CoreV1Api)
      .deleteNamespacedConfigMap({ name: HISTORY_CONFIGMAP, namespace: NS })
      .catch(() => undefined);
    await cleanKubemaint(admin, { nodes: [NODE] });
  });

  async function selected(): Promise<string[]> {
    const list = (await serve.listNamespacedCustomObject({
      ...at,
      plural: 'maintenancerequests',
      labelSelector: NOT_ENDED,
    })) as { items: { metadata: { name: string } }[] };
    return list.items.map((o) => o.metadata.name).sort();
  }

  it("the apiserver's != selector also returns objects without the label", async () => {
    assert.equal((await selected()).length, ENDED + 1);
  });

  it('a skew scan labels them and deletes beyond keepPerNode, as serve', async () => {
    const report = await runTick(deps, { skewScan: true });
    assert.deepEqual(report.retention, [
      `retention: ${ENDED - KEEP} ended requests and 1 decisions deleted, ${KEEP + 1} requests relabelled`,
    ]);
    assert.deepEqual(await selected(), ['r-active']);
    const all = (await serve.listNamespacedCustomObject({
      ...at,
      plural: 'maintenancerequests',
    })) as { items: { metadata: { name: string; labels?: Record<string, string> } }[] };
    assert.deepEqual(
      all.items.map((o) => `${o.metadata.name}=${o.metadata.labels?.[LABEL_PHASE]}`).sort(),
      [
        'r-active=open',
        ...Array.from({ length: KEEP }, (_, i) => `r-old${String(i).padStart(3, '0')}=ended`),
      ].sort(),
    );
    const decisions = (await serve.listNamespacedCustomObject({
      ...at,
      plural: 'maintenanceapprovals',
    })) as { items: unknown[] };
    assert.equal(decisions.items.length, 0, "r-old059's decision went with it");
  });

  it('the deleted requests are kept as lines in kubemaint-history', async () => {
    const configMap = await admin
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: HISTORY_CONFIGMAP, namespace: NS });
    const lines = historyLines(configMap.data?.[NODE]);
    assert.equal(lines.length, ENDED - KEEP);
    assert.match(lines[0]!, / r-old059 reboot done /);
  });
});

function request(id: string, state: RequestState, daysAgo: number): MaintenanceRequest {
  const updatedAt = new Date(Date.now() - daysAgo * DAY).toISOString();
  return {
    id,
    node: NODE,
    action: 'reboot',
    reason: 'kernel',
    requestedBy: 'detector',
    origin: 'detection',
    state,
    createdAt: updatedAt,
    updatedAt,
    approvals: [],
    history: [{ from: null, to: state, at: updatedAt, by: 'kubemaint' }],
  };
}
