/**
 * serve's leader election on the real control plane (issue 32, ADR 0046): infra/k8s applied, two
 * `kubemaint serve` processes, each as its own user (serve-a, serve-b) in the group
 * kubemaint:control-plane, so they have exactly serve's RBAC and the apiserver's audit log names
 * who wrote what. serve-a leads and proposes a reboot for a marked node; serve-b stands by and
 * writes nothing; serve-a is SIGKILLed; serve-b takes the Lease once it expired and proposes the
 * next node. From the audit log: every write either made, other than the election Lease, was made
 * while the last write to the election Lease was its own (only the holder writes it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoordinationV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { applyAll, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { startCli, type LongRunning } from '../support/cli-process.js';
import { isWrite, readAudit } from '../support/real-audit.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';
import { waitFor } from '../support/sim.js';

const NS = 'kubemaint';
const LEASE = 'kubemaint-serve-leader';
const NODES = ['leader-node-1', 'leader-node-2'];
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;

describe('leader election on the real apiserver: two serves', { timeout: 600_000 }, () => {
  let cluster: RealCluster;
  let admin: KubeConfig;
  let dir: string;
  const serves: LongRunning[] = [];
  let startedAt: string;

  before(async () => {
    cluster = await realCluster();
    admin = new KubeConfig();
    admin.loadFromFile(cluster.kubeconfig);
    await applyAll(admin, [
      ...manifests(INFRA_K8S),
      ...NODES.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-leader-'));
    // Each serve's --kubeconfig wins over this path (serve-a's, so the file is valid on its own).
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      `cluster:\n  type: kubeconfig\n  kubeconfig:\n    path: ${cluster.userKubeconfig('serve-a', ['kubemaint:control-plane'])}\n` +
        `kubelet:\n  enabled: false\nschedules:\n  tick: "*/2 * * * * *"\n`,
    );
    startedAt = new Date().toISOString();
  });
  after(async () => {
    for (const serve of serves) await serve.stop();
    await cleanKubemaint(admin, { nodes: NODES });
    await admin
      .makeApiClient(CoordinationV1Api)
      .deleteNamespacedLease({ name: LEASE, namespace: NS })
      .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const holder = async () =>
    (
      await admin
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: LEASE, namespace: NS })
        .catch(() => undefined)
    )?.spec?.holderIdentity ?? '';
  const requestsOn = async (node: string) =>
    (
      (await admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
        group: 'kubemaint.io',
        version: 'v1beta1',
        namespace: NS,
        plural: 'maintenancerequests',
      })) as { items: { spec: { node: string } }[] }
    ).items.filter((r) => r.spec.node === node);
  const mark = (node: string) =>
    cluster.kubectl(['label', 'node', node, 'kubemaint.io/reboot-required=true', '--overwrite']);
  const replica = (name: string) => {
    const serve = startCli(
      [
        'serve',
        '--config',
        'kubemaint.yaml',
        '--kubeconfig',
        cluster.userKubeconfig(name, ['kubemaint:control-plane']),
        '--ops-port',
        '0',
        '--ops-host',
        '127.0.0.1',
      ],
      { cwd: dir, env: { POD_NAME: name } },
    );
    serves.push(serve);
    return serve;
  };

  it('the standby takes over from a killed leader, and never acts while the leader holds the Lease', async () => {
    const a = replica('serve-a');
    await a.waitFor(
      /serve ready: .*leader election: lease kubemaint\/kubemaint-serve-leader as serve-a_/,
      120_000,
    );
    await waitFor('serve-a leads', async () => (await holder()).startsWith('serve-a_'), 60_000);
    const b = replica('serve-b');
    await b.waitFor(/serve ready: /, 120_000);
    mark(NODES[0]!);
    await waitFor(
      'serve-a proposes',
      async () => (await requestsOn(NODES[0]!)).length === 1,
      60_000,
    );
    // A few of serve-b's reads while serve-a leads.
    await new Promise((r) => setTimeout(r, 3 * RETRY_MS));
    assert.ok((await holder()).startsWith('serve-a_'));

    const killedAt = performance.now();
    a.child.kill('SIGKILL');
    await waitFor(
      'serve-b takes the Lease',
      async () => (await holder()).startsWith('serve-b_'),
      60_000,
    );
    const handOver = performance.now() - killedAt;
    mark(NODES[1]!);
    await waitFor(
      'serve-b proposes',
      async () => (await requestsOn(NODES[1]!)).length === 1,
      60_000,
    );
    assert.equal((await requestsOn(NODES[0]!)).length, 1, 'the first node was proposed once');
    assert.ok(
      handOver <= LEASE_MS + 2 * RETRY_MS + 2_000,
      `Lease taken ${Math.round(handOver)} ms after the kill`,
    );

    // The audit log is written as requests complete: give it a moment.
    await new Promise((r) => setTimeout(r, 2_000));
    const entries = readAudit(cluster, startedAt).filter(isWrite);
    let leaseWriter = '';
    const acting: string[] = [];
    const outOfTurn: string[] = [];
    for (const e of entries) {
      const who = e.user.username;
      if (who !== 'serve-a' && who !== 'serve-b') continue;
      const ref = e.objectRef ?? {};
      if (ref.resource === 'leases' && ref.name === LEASE) {
        leaseWriter = who;
        continue;
      }
      const what = `${e.stageTimestamp} ${who} ${e.verb} ${ref.resource ?? ''}${ref.subresource ? `/${ref.subresource}` : ''} ${ref.name ?? ''}`;
      acting.push(what);
      if (leaseWriter !== who)
        outOfTurn.push(`${what} (the Lease was last written by ${leaseWriter || 'nobody'})`);
    }
    assert.deepEqual(outOfTurn, [], 'every write was made by the last writer of the Lease');
    assert.ok(
      acting.some((w) => w.includes(' serve-a ')),
      acting.join('\n'),
    );
    assert.ok(
      acting.some((w) => w.includes(' serve-b ')),
      acting.join('\n'),
    );
    process.stdout.write(
      `# real apiserver: serve-a SIGKILLed, Lease taken by serve-b after ${(handOver / 1000).toFixed(1)} s; ${acting.length} writes by the two serves, none out of turn\n`,
    );
  });
});
