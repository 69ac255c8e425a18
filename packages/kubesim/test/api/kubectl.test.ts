/**
 * The real kubectl against the sim: no extra flags, only the kubeconfig the sim writes. Skipped
 * (saying so) where kubectl is not on PATH. kubectl runs as a child process, so every call is async:
 * the sim serves from this same process.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startSimApi, type SimApi } from '../support.js';
import { R } from '../../src/types.js';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const skip = hasKubectl
  ? false
  : 'kubectl is not on PATH (install it to run the kubectl conformance tests)';

const MANIFEST = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
`;

describe('kubectl against the sim', { skip }, () => {
  let sim: SimApi;
  let env: NodeJS.ProcessEnv;
  const kubectl = async (...args: string[]) =>
    (await run('kubectl', args, { env, timeout: 30_000 })).stdout;

  before(async () => {
    sim = await startSimApi();
    // A fresh discovery cache and HOME: nothing from the machine's own kube setup leaks in.
    env = {
      ...process.env,
      KUBECONFIG: sim.kubeconfigPath,
      KUBECACHEDIR: join(sim.dir, 'cache'),
      HOME: sim.dir,
    };
    sim.store.create(R.nodes, {
      metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/worker': '' } },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
          },
        ],
        addresses: [{ type: 'InternalIP', address: '10.0.0.11' }],
        nodeInfo: {
          kubeletVersion: 'v1.31.4',
          osImage: 'Ubuntu 24.04',
          kernelVersion: '6.8.0',
          containerRuntimeVersion: 'containerd://1.7.2',
          bootID: 'boot-1',
        },
      },
    });
    sim.store.create(R.pods, {
      metadata: { name: 'p1', namespace: 'default' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] },
      status: { phase: 'Running', podIP: '10.1.0.5' },
    });
  });
  after(async () => sim?.close());

  it('get nodes -o wide and get pods -o wide print the server-side table columns', async () => {
    const nodes = await kubectl('get', 'nodes', '-o', 'wide');
    assert.match(
      nodes,
      /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE/,
    );
    assert.match(
      nodes,
      /\nn1\s+Ready\s+worker\s+\S+\s+v1\.31\.4\s+10\.0\.0\.11\s+<none>\s+Ubuntu 24\.04/,
    );
    const pods = await kubectl('get', 'pods', '-o', 'wide');
    assert.match(pods, /\np1\s+0\/1\s+Running\s+0\s+\S+\s+10\.1\.0\.5\s+n1\s/);
  });

  it('describe node shows its conditions and system info', async () => {
    const out = await kubectl('describe', 'node', 'n1');
    assert.match(out, /Name:\s+n1/);
    assert.match(out, /Ready\s+True/);
    assert.match(out, /Boot ID:\s+boot-1/);
    assert.match(out, /Kubelet Version:\s+v1\.31\.4/);
  });

  it('cordon and uncordon (strategic merge patch with a null delete)', async () => {
    assert.match(await kubectl('cordon', 'n1'), /node\/n1 cordoned/);
    assert.equal(sim.store.get(R.nodes, undefined, 'n1')!.spec!['unschedulable'], true);
    assert.match(await kubectl('get', 'node', 'n1'), /Ready,SchedulingDisabled/);
    assert.match(await kubectl('uncordon', 'n1'), /node\/n1 uncordoned/);
    assert.equal(sim.store.get(R.nodes, undefined, 'n1')!.spec!['unschedulable'], undefined);
  });

  it('label and annotate, and remove them again', async () => {
    await kubectl('label', 'node', 'n1', 'kubemaint.io/reboot-required=true');
    await kubectl(
      'annotate',
      'node',
      'n1',
      'kubemaint.io/reboot-required-since=2026-03-01T00:00:00Z',
    );
    const node = sim.store.get(R.nodes, undefined, 'n1')!;
    assert.equal(node.metadata.labels?.['kubemaint.io/reboot-required'], 'true');
    assert.equal(
      node.metadata.annotations?.['kubemaint.io/reboot-required-since'],
      '2026-03-01T00:00:00Z',
    );
    assert.match(
      await kubectl('get', 'nodes', '-l', 'kubemaint.io/reboot-required=true', '-o', 'name'),
      /node\/n1/,
    );
    await kubectl('label', 'node', 'n1', 'kubemaint.io/reboot-required-');
    assert.equal(
      sim.store.get(R.nodes, undefined, 'n1')!.metadata.labels?.['kubemaint.io/reboot-required'],
      undefined,
    );
  });

  it('apply -f creates a Deployment and a PDB, a second apply patches them, delete -f removes them', async () => {
    const file = join(sim.dir, 'web.yaml');
    writeFileSync(file, MANIFEST(2));
    const created = await kubectl('apply', '-f', file);
    assert.match(created, /deployment.apps\/web created/);
    assert.match(created, /poddisruptionbudget.policy\/web created/);
    writeFileSync(file, MANIFEST(3));
    assert.match(await kubectl('apply', '-f', file), /deployment.apps\/web configured/);
    const deployment = sim.store.get(R.deployments, 'default', 'web')!;
    assert.equal(deployment.spec!['replicas'], 3);
    assert.equal(deployment.metadata.generation, 2);
    assert.ok(
      deployment.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
    );
    const deleted = await kubectl('delete', '-f', file);
    assert.match(deleted, /deployment.apps "web" deleted/);
    assert.equal(sim.store.get(R.pdbs, 'default', 'web'), undefined);
  });

  it('get -w prints the initial state and then an update', { timeout: 120_000 }, async () => {
    const child = spawn('kubectl', ['get', 'pods', '-w'], { env });
    // One reader of stdout: a listener per awaited line would append every chunk once per
    // listener, and a line split across chunks would then never match.
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => pattern.test(out) && resolve();
        child.stdout.on('data', check);
        child.on('exit', () => reject(new Error(`kubectl get -w exited early:\n${out}`)));
        check();
      });
    try {
      await seen(/p1\s+0\/1\s+Running/);
      sim.store.mutate(
        R.pods,
        'default',
        'p1',
        (p) =>
          (p.status = {
            ...p.status,
            phase: 'Running',
            containerStatuses: [{ name: 'c', ready: true, restartCount: 0 }],
          }),
      );
      await seen(/p1\s+1\/1\s+Running/);
    } finally {
      child.kill();
    }
    assert.equal(out.match(/^NAME/gm)?.length, 1, 'one header');
  });

  it('delete pod removes an unscheduled pod at once and marks a scheduled one Terminating', async () => {
    sim.store.create(R.pods, {
      metadata: { name: 'loose', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    assert.match(await kubectl('delete', 'pod', 'loose'), /pod "loose" deleted/);
    assert.equal(sim.store.get(R.pods, 'default', 'loose'), undefined);
    await kubectl('delete', 'pod', 'p1', '--wait=false');
    assert.ok(sim.store.get(R.pods, 'default', 'p1')!.metadata.deletionTimestamp);
    assert.match(await kubectl('get', 'pod', 'p1'), /Terminating/);
  });
});
