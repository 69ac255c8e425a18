import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { isReady, startTestSim, waitFor, type TestSim } from '../support.js';

const run = promisify(execFile);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// Needs the real kubectl. It is installed where kubemaint is built and in CI, where its absence fails
// the run; on a developer machine without it, these tests say what they need and skip.
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const skip =
  !hasKubectl && process.env['CI'] !== 'true'
    ? 'needs kubectl on PATH (any version 1.27–1.33); install it to run these'
    : false;

describe('real kubectl against the sim', { skip }, () => {
  let sim: TestSim;
  const kubectl = (...args: string[]) =>
    run('kubectl', ['--kubeconfig', sim.kubeconfigPath, ...args], {
      env: { ...process.env, KUBECACHEDIR: join(sim.dir, 'cache') },
      timeout: 60_000,
    });

  before(async () => {
    sim = await startTestSim({ scenario: 'empty' });
    for (const name of ['n1', 'n2']) {
      await sim.core.createNode({
        body: { metadata: { name, labels: { 'kubernetes.io/hostname': name } } },
      });
    }
    // Both replicas on n1: cordon n2 while they are placed.
    await sim.core.patchNode({ name: 'n2', body: { spec: { unschedulable: true } } }, merge);
    await sim.apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [{ name: 'web', image: 'nginx:1.27' }],
              volumes: [{ name: 'cache', emptyDir: {} }],
            },
          },
        },
      },
    });
    await sim.apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: {
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: {
            metadata: { labels: { app: 'agent' } },
            spec: { containers: [{ name: 'a', image: 'agent:1' }] },
          },
        },
      },
    });
    await sim.policy.createNamespacedPodDisruptionBudget({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      },
    });
    await waitFor('web on n1, agents on both', async () => {
      const pods = (await sim.core.listNamespacedPod({ namespace: 'default' })).items;
      const web = pods.filter((p) => p.metadata?.labels?.['app'] === 'web');
      return (
        web.length === 2 &&
        web.every((p) => p.spec?.nodeName === 'n1' && isReady(p)) &&
        pods.length === 4
      );
    });
    await sim.core.patchNode({ name: 'n2', body: { spec: { unschedulable: null } } }, merge);
  });
  after(async () => sim?.close());

  it('drains a node, waiting on the PDB until the replacement is Ready', async () => {
    const { stdout, stderr } = await kubectl(
      'drain',
      'n1',
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=60s',
    );
    assert.match(stdout, /node\/n1 cordoned/);
    assert.match(stdout, /node\/n1 drained/);
    assert.match(
      stderr,
      /violate the pod's disruption budget/,
      'the second eviction waited on the PDB',
    );
    const pods = (
      await sim.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })
    ).items;
    assert.equal(pods.length, 2);
    assert.ok(pods.every((p) => p.spec?.nodeName === 'n2'));
    const node = await sim.core.readNode({ name: 'n1' });
    assert.equal(node.spec?.unschedulable, true);
    // Replay the audit log: once both replicas were up, one was always Ready (minAvailable 1).
    const available = new Map<string, boolean>();
    let armed = false;
    for (const entry of sim.admin.audit()) {
      if (entry.resource !== 'pods' || entry.object.metadata.labels?.['app'] !== 'web') continue;
      const conditions = (entry.object.status?.['conditions'] ?? []) as {
        type: string;
        status: string;
      }[];
      const up =
        entry.verb !== 'delete' &&
        !entry.object.metadata.deletionTimestamp &&
        conditions.some((c) => c.type === 'Ready' && c.status === 'True');
      available.set(entry.object.metadata.name ?? '', up);
      const count = [...available.values()].filter(Boolean).length;
      if (count === 2) armed = true;
      if (armed) assert.ok(count >= 1, `PDB violated at rv ${entry.rv}`);
    }
    assert.ok(armed, 'both replicas were Ready before the drain');
  });

  it('gets nodes and pods -o wide, describes a node and uncordons it', async () => {
    const nodes = await kubectl('get', 'nodes');
    assert.match(nodes.stdout, /n1\s+Ready,SchedulingDisabled/);
    const pods = await kubectl('get', 'pods', '-o', 'wide');
    assert.match(pods.stdout, /web-.*Running.*n2/);
    const described = await kubectl('describe', 'node', 'n2');
    assert.match(described.stdout, /Kubelet Version:\s+v1\.31\.4/);
    const uncordon = await kubectl('uncordon', 'n1');
    assert.match(uncordon.stdout, /node\/n1 uncordoned/);
  });
});
