/**
 * The executor Job end to end on the sim, through the real HTTP API: the sim's Job controller runs
 * the Job built by templates/executor-job.ts (the image mapped to the real CLI), which drains a node
 * with 40 pods (Deployments under PDBs, a DaemonSet pod, an emptyDir pod, a completed pod) and
 * reboots or upgrades it through the sim's host endpoint. PDBs are checked on the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubePorts } from '../../../src/adapters/kube/executor-ports.js';
import { createJob } from '../../../src/adapters/kube/jobs.js';
import { drainNode } from '../../../src/app/executor/drain.js';
import { systemClock } from '../../../src/app/executor/system-clock.js';
import { silentLogger } from '../../../src/log.js';
import { createKubeClient, loadKubeConfig } from '../../../src/adapters/kube/client.js';
import { deployment } from '@kubemaint/kubesim';
import type { Sim } from '@kubemaint/kubesim';
import { R, type AuditEntry, type KObject } from '@kubemaint/kubesim';
import {
  bootId,
  fleet,
  getNode,
  isReady,
  jobOutcome,
  kubeletVersion,
  nodeNames,
  podsOn,
  putRequest,
  reboots,
  requestOf,
  simExecutorJob,
  simSettings,
  until,
} from '../../support/executor-fleet.js';

let sim: Sim;
before(async () => {
  // Four nodes of 39 pods: the node-agent DaemonSet pod and 38 Deployment pods under PDBs
  // (groups of ten, maxUnavailable 1), spread so every Deployment has pods on other nodes.
  sim = await fleet({ nodes: 4, podsPerNode: 39 });
});
after(() => sim.stop());

/** An emptyDir pod (a Deployment kept on `node` by a node selector) and a pod that completed. */
async function addLocalPods(node: string): Promise<void> {
  const cache = deployment({
    namespace: 'team-1',
    name: `cache-${node.slice(-4)}`,
    replicas: 1,
    emptyDir: true,
  });
  (cache.spec!['template'] as { spec: Record<string, unknown> }).spec['nodeSelector'] = {
    'kubernetes.io/hostname': node,
  };
  sim.store.create(R.deployments, cache);
  sim.store.create(R.jobs, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `report-${node.slice(-4)}`, namespace: 'team-1' },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          nodeName: node,
          restartPolicy: 'Never',
          containers: [{ name: 'report', image: 'registry.example.com/report:1' }],
        },
      },
    },
  });
  await until('the emptyDir pod running and the job pod completed', () => {
    const pods = podsOn(sim, node);
    const phase = (p: KObject) => (p.status as { phase?: string } | undefined)?.phase;
    return (
      pods.some((p) => p.metadata.name?.startsWith('cache-') && phase(p) === 'Running') &&
      pods.some((p) => p.metadata.name?.startsWith('report-') && phase(p) === 'Succeeded')
    );
  });
}

/**
 * Replays pod writes from the audit log and returns every moment a PDB-guarded Deployment had fewer
 * healthy pods (Ready, not terminating) than its PDB demands (replicas − maxUnavailable 1).
 */
function pdbViolations(audit: readonly AuditEntry[], fromRv: number): string[] {
  const replicas = new Map(
    sim.store
      .list(R.deployments)
      .map((d) => [d.metadata.name ?? '', Number(d.spec?.['replicas'] ?? 0)]),
  );
  const guarded = new Set(sim.store.list(R.pdbs).map((p) => p.metadata.name ?? ''));
  const healthy = new Map<string, { app: string; ok: boolean }>();
  const violations: string[] = [];
  for (const entry of audit) {
    if (entry.resource !== R.pods) continue;
    const pod = entry.object;
    const app = pod.metadata.labels?.['app'] ?? '';
    const ready = (
      (pod.status?.['conditions'] as { type: string; status: string }[] | undefined) ?? []
    ).some((c) => c.type === 'Ready' && c.status === 'True');
    // A pod being deleted (deletionTimestamp) or gone is not healthy; neither is an unready one.
    const ok = entry.verb !== 'delete' && ready && !pod.metadata.deletionTimestamp;
    healthy.set(pod.metadata.uid ?? '', { app, ok });
    if (entry.rv < fromRv || !guarded.has(app)) continue;
    const count = [...healthy.values()].filter((h) => h.app === app && h.ok).length;
    const needed = (replicas.get(app) ?? 0) - 1;
    if (count < needed)
      violations.push(`rv ${entry.rv}: ${app} had ${count} healthy, PDB needs ${needed}`);
  }
  return violations;
}

async function runJob(node: string, requestId: string, settings = simSettings()) {
  const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
  const manifest = simExecutorJob(node, requestId, { settingsJson: JSON.stringify(settings) });
  assert.equal(await createJob(client, manifest), true);
  assert.equal(
    await createJob(client, manifest),
    false,
    'the deterministic name makes a second create a no-op',
  );
  return manifest.metadata!.name!;
}

const jobDone = (name: string) => jobOutcome(sim, name);

describe('executor Job on the sim', () => {
  it('drains 40 pods without breaking a PDB, reboots, and the node comes back with a new bootID', async () => {
    const node = nodeNames(sim).find((n) => n.includes('general'))!;
    await addLocalPods(node);
    const evictable = podsOn(sim, node).filter((p) => !p.metadata.name?.startsWith('node-agent'));
    assert.equal(evictable.length, 40);
    const bootBefore = bootId(sim, node);
    const startRv = Math.max(...sim.admin.audit().map((e) => e.rv));
    const request = await putRequest(sim, node, { id: 'r-reboot1' });
    const job = await runJob(node, request.id);

    const outcome = await until('the Job to finish', () => jobDone(job), 90_000);
    assert.equal(
      outcome,
      'Complete',
      sim.admin.logs(
        'kube-system',
        podsOn(sim, node).find((p) => p.metadata.name?.startsWith(job))?.metadata.name ?? '',
      ),
    );
    const r = requestOf(sim, node)!;
    assert.equal(r.state, 'verifying');
    assert.equal(r.bootIdBefore, bootBefore);
    assert.equal(r.drain?.message, '40 of 40 pods evicted');
    assert.equal(r.cordonedByUs, true);
    assert.equal(r.job, job);
    await until(
      'a new bootID and Ready',
      () => bootId(sim, node) !== bootBefore && isReady(sim, node),
      30_000,
    );
    assert.equal(reboots(sim, node).length, 1);
    assert.deepEqual(pdbViolations(sim.admin.audit(), startRv), []);
    const reasons = sim.store
      .list(R.events, { namespace: 'default' })
      .filter((e) => (e['involvedObject'] as { name?: string }).name === node)
      .map((e) => e['reason']);
    for (const reason of [
      'KubemaintStarted',
      'KubemaintCordoned',
      'KubemaintDraining',
      'KubemaintDrained',
      'KubemaintRebooting',
    ]) {
      assert.ok(reasons.includes(reason), `event ${reason} on the node`);
    }
    assert.equal(
      getNode(sim, node).spec?.['unschedulable'],
      true,
      'stays cordoned until the control plane verifies',
    );
  });

  it('upgrades a kubelet one minor up, draining first', async () => {
    const node = nodeNames(sim).find((n) => n.includes('batch'))!;
    const before = kubeletVersion(sim, node);
    const target = 'v1.31.4';
    assert.notEqual(before, target);
    const request = await putRequest(sim, node, {
      id: 'r-upgrade1',
      action: 'upgrade',
      targetVersion: target,
    });
    const job = await runJob(node, request.id);
    assert.equal(await until('the Job to finish', () => jobDone(job), 90_000), 'Complete');
    const r = requestOf(sim, node)!;
    assert.equal(r.kubeletVersionBefore, before);
    assert.equal(r.state, 'verifying');
    assert.ok(
      podsOn(sim, node).every(
        (p) =>
          p.metadata.name?.startsWith('node-agent') || p.metadata.name?.startsWith('kubemaint-'),
      ),
    );
    await until(
      'the kubelet to report the target version',
      () => kubeletVersion(sim, node) === target && isReady(sim, node),
      30_000,
    );
    assert.equal(reboots(sim, node).length, 0);
  });

  it('has a PDB check that does see a budget broken by deletes that bypass the Eviction API', async () => {
    const node = nodeNames(sim).find((n) => n.includes('compute'))!;
    const startRv = Math.max(...sim.admin.audit().map((e) => e.rv));
    const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
    const ports = kubePorts(client, silentLogger(), systemClock, simSettings().namespace);
    const report = await drainNode(
      { pods: ports.pods, clock: systemClock },
      { node, settings: { ...simSettings().drain, disableEviction: true } },
    );
    assert.equal(report.outcome, 'drained');
    assert.ok(pdbViolations(sim.admin.audit(), startRv).length > 0);
  });
});
