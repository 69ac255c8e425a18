/**
 * A simulated node never acts on the machine that runs the simulator (DESIGN invariant 11, issue 37,
 * ADR 0036), end to end as a user runs it: `kubemaint sim` (standalone, and `--attach` to another
 * sim's API) and `kubemaint serve` with a plain `cluster.type: kubeconfig` config, so the executor
 * Jobs carry the production host settings (`nsenter -m/proc/1/ns/mnt -- systemctl reboot`).
 * Approvals on the CLI carry a reboot and an upgrade to done: the node's bootID (or kubelet version)
 * changed, and fakes of nsenter, systemctl, reboot, shutdown, halt, poweroff and kill, first on the
 * PATH of the processes that start the simulator and serve, were never called.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { HOST_SHIMS } from '@kubemaint/kubesim/host-cli';
import { runCli, startCli, type LongRunning } from '../support/cli-process.js';
import { waitFor } from '../support/sim.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Four nodes: fleet-general-0004 needs a reboot, fleet-batch-0003's kubelet is a minor behind. */
const FLEET = [
  '--scenario',
  'fleet',
  '--nodes',
  '4',
  '--pods-per-node',
  '1',
  '--reboot-downtime',
  '5',
];

/** Fakes of the host commands in `dir`, each recording its call and succeeding (nothing real is reached). */
function plantFakes(dir: string): { path: string; calls: () => string } {
  const record = join(dir, 'calls');
  // A fake must be what a name finds before any real binary: else a broken shim would reach it.
  for (const name of HOST_SHIMS) {
    assert.ok(!existsSync(join(dirname(process.execPath), name)), `no ${name} beside node`);
    writeFileSync(join(dir, name), `#!/bin/sh\necho "${name} $*" >> '${record}'\nexit 0\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return {
    path: `${dir}:${process.env['PATH'] ?? ''}`,
    calls: () => (existsSync(record) ? readFileSync(record, 'utf8') : ''),
  };
}

interface RequestView {
  id: string;
  node: string;
  action: string;
  state: string;
  history: { note?: string }[];
}

const configFor = (kubeconfig: string) => `cluster:
  type: kubeconfig
  kubeconfig:
    path: ${kubeconfig}
approval:
  approvers:
    kubernetes:
      users: [alice]
slot:
  concurrency: 2
schedules:
  tick: "* * * * *"
`;

/** The MaintenanceRequests, read from the API (a `kubemaint status` process per poll costs seconds). */
async function requests(kubeconfig: string): Promise<RequestView[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const { items } = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: 'kubemaint.io',
    version: 'v1beta1',
    namespace: 'kubemaint',
    plural: 'maintenancerequests',
  })) as { items: RequestObject[] };
  return items.map((o) => ({
    id: o.metadata.name,
    node: o.spec.node,
    action: o.spec.action,
    state: o.status?.state ?? 'proposed',
    history: o.status?.history ?? [],
  }));
}

interface RequestObject {
  metadata: { name: string };
  spec: { node: string; action: string };
  status?: { state?: string; history?: { note?: string }[] };
}

/**
 * serve at the kubeconfig, its proposals for `wanted` (node → action) approved on the CLI, each
 * carried to done; returns the done requests and serve's output.
 */
async function rollThrough(
  dir: string,
  kubeconfig: string,
  env: NodeJS.ProcessEnv,
  wanted: Record<string, string>,
): Promise<{ done: RequestView[]; serve: string }> {
  writeFileSync(join(dir, 'kubemaint.yaml'), configFor(kubeconfig));
  const serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], {
    cwd: dir,
    env,
  });
  try {
    await serve.waitFor(/serve ready/, 90_000);
    const proposed = await waitFor(
      `proposals for ${Object.keys(wanted).join(', ')}`,
      async () => {
        const all = await requests(kubeconfig);
        const mine = Object.entries(wanted).map(([node, action]) =>
          all.find((r) => r.node === node && r.action === action),
        );
        return mine.every(Boolean) ? (mine as RequestView[]) : undefined;
      },
      120_000,
    );
    for (const request of proposed) {
      const approved = await runCli(['approve', request.id, '--as', 'alice'], { cwd: dir, env });
      assert.equal(approved.code, 0, approved.stderr);
    }
    const ended = await waitFor(
      'the approved requests ended',
      async () => {
        const all = await requests(kubeconfig);
        const mine = proposed.map((p) => all.find((r) => r.id === p.id));
        const over = mine.every((r) => r?.state === 'done' || r?.state === 'failed');
        return over ? (mine as RequestView[]) : undefined;
      },
      240_000,
    );
    assert.deepEqual(
      ended.filter((r) => r.state !== 'done'),
      [],
      'every approved request done',
    );
    return { done: ended, serve: serve.stdout() + serve.stderr() };
  } finally {
    await stop(serve);
  }
}

async function stop(cli: LongRunning | undefined): Promise<void> {
  if (cli && cli.child.exitCode === null) assert.equal(await cli.stop(), 0, cli.stderr());
}

function nodesOf(
  kubeconfig: string,
): () => Promise<Map<string, { bootID: string; kubelet: string }>> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  return async () =>
    new Map(
      (await core.listNode()).items.map((n) => [
        n.metadata!.name!,
        { bootID: n.status!.nodeInfo!.bootID, kubelet: n.status!.nodeInfo!.kubeletVersion },
      ]),
    );
}

/** The executor sent its host command to the simulator's host endpoint, not through nsenter. */
function assertSimulatedHost(done: RequestView[]): void {
  for (const request of done) {
    const notes = request.history.map((h) => h.note ?? '').join('\n');
    assert.match(notes, /host command issued: kubemaint-sim-host (reboot|upgrade v)/, notes);
    assert.doesNotMatch(notes, /nsenter/);
  }
}

describe('a simulated node never acts on this machine', { timeout: 900_000 }, () => {
  let dir: string;
  let fakes: ReturnType<typeof plantFakes>;
  let env: NodeJS.ProcessEnv;
  const running: LongRunning[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-safety-'));
    fakes = plantFakes(mkdtempSync(join(dir, 'fakes-')));
    env = { PATH: fakes.path };
  });
  after(async () => {
    // Last started first: an attached sim deletes its nodes through the API it joined.
    for (const cli of running.reverse()) {
      if (cli.child.exitCode === null) await cli.stop().catch(() => cli.child.kill('SIGKILL'));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const startSim = async (name: string, args: string[], cwd = dir) => {
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    const sim = startCli(['sim', '--no-state', '--kubeconfig', kubeconfig, ...args], { cwd, env });
    running.push(sim);
    await sim.waitFor(/kubemaint sim ready/, 90_000);
    return { sim, kubeconfig };
  };

  it("standalone, kubemaint's own images by default: a reboot and an upgrade done", async () => {
    const { sim, kubeconfig } = await startSim('standalone', FLEET);
    const nodes = nodesOf(kubeconfig);
    const before = await nodes();
    const cwd = mkdtempSync(join(dir, 'standalone-'));
    const { done } = await rollThrough(cwd, kubeconfig, env, {
      'fleet-general-0004': 'reboot',
      'fleet-batch-0003': 'upgrade',
    });
    const after = await nodes();
    assert.notEqual(
      after.get('fleet-general-0004')?.bootID,
      before.get('fleet-general-0004')?.bootID,
    );
    assert.notEqual(
      after.get('fleet-batch-0003')?.kubelet,
      before.get('fleet-batch-0003')?.kubelet,
    );
    assertSimulatedHost(done);
    assert.equal(fakes.calls(), '', 'no host command reached this machine');
    await stop(sim);
  });

  it('attached to another API: a reboot and an upgrade done', async () => {
    const { sim, kubeconfig } = await startSim('api', [
      '--scenario',
      'empty',
      '--api-version',
      'v1.31.4',
    ]);
    const attach = startCli(
      [
        'sim',
        '--attach',
        kubeconfig,
        '--nodes',
        '2',
        '--kubelet-version',
        'v1.30.9',
        '--reboot-downtime',
        '5',
        '--cleanup',
      ],
      { cwd: dir, env },
    );
    running.push(attach);
    await attach.waitFor(/kubemaint sim attached/, 90_000);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await kc.makeApiClient(CoreV1Api).patchNode({
      name: 'sim-node-0',
      body: [{ op: 'add', path: '/metadata/labels/kubemaint.io~1reboot-required', value: 'true' }],
    });
    const nodes = nodesOf(kubeconfig);
    const before = await nodes();
    const cwd = mkdtempSync(join(dir, 'attach-'));
    const { done } = await rollThrough(cwd, kubeconfig, env, {
      'sim-node-0': 'reboot',
      'sim-node-1': 'upgrade',
    });
    const after = await nodes();
    assert.notEqual(after.get('sim-node-0')?.bootID, before.get('sim-node-0')?.bootID);
    assert.equal(after.get('sim-node-1')?.kubelet, 'v1.31.4');
    assertSimulatedHost(done);
    assert.equal(fakes.calls(), '', 'no host command reached this machine');
    await stop(attach);
    await stop(sim);
  });

  it('the executor image mapped as --help shows it (npx tsx src/cli/main.ts): a reboot done', async () => {
    const { sim, kubeconfig } = await startSim(
      'mapped',
      [...FLEET, '--image', 'ghcr.io/kubemaint/kubemaint:*=npx tsx src/cli/main.ts'],
      ROOT,
    );
    const nodes = nodesOf(kubeconfig);
    const before = await nodes();
    const cwd = mkdtempSync(join(dir, 'mapped-'));
    const { done } = await rollThrough(cwd, kubeconfig, env, { 'fleet-general-0004': 'reboot' });
    const after = await nodes();
    assert.notEqual(
      after.get('fleet-general-0004')?.bootID,
      before.get('fleet-general-0004')?.bootID,
    );
    assertSimulatedHost(done);
    assert.equal(fakes.calls(), '', 'no host command reached this machine');
    await stop(sim);
  });
});
