/**
 * The node's maintenance conditions (KEP-5683, ADR 0041) on the real control plane: infra/k8s
 * applied, a simulated node attached as its own `system:node:<name>` (its kubelet heartbeats its own
 * conditions meanwhile), `serve` on its ServiceAccount token and the executor Job on its own, each
 * with exactly the RBAC and admission the manifests grant. A watch sees the node carry
 * MaintenancePlanned, DrainInProgress, Drained, then Drained + MaintenanceInProgress, and nothing once
 * the request is done; kube-apiserver refuses serve's token any other status write (Ready, the bootID).
 * While another node is not Ready the approved reboot waits, and both `kubemaint status` and the
 * MaintenancePlanned condition say so, naming that node.
 *
 * Other suites share this control plane: the serve here proposes only its own zone's node, and
 * the test first checks that no node another suite left behind is not Ready (each cleans up its own).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PatchStrategy, setHeaderOptions, Watch, type V1Node } from '@kubernetes/client-node';
import { createKubeClient, loadKubeConfig } from '../../src/adapters/kube/client.js';
import { MAINTENANCE_CONDITION_TYPES } from '../../src/core/node-conditions.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { bindPerson, INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';
import { MAIN, runCli, startCli, type LongRunning } from '../support/cli-process.js';
import { waitFor } from '../support/sim.js';

const NODE = 'conditions-a-0';
const BARE = 'conditions-bare';

interface StatusJson {
  requests: { id: string; node: string; action: string; state: string; reasons: string[] }[];
}

describe('node maintenance conditions on the real control plane', { timeout: 600_000 }, () => {
  let cluster: RealCluster;
  let dir: string;
  let serve: LongRunning | undefined;
  let fleet: LongRunning | undefined;
  let stopWatch: (() => void) | undefined;
  let serveKubeconfig: string;
  /** The node's maintenance condition types at every change the watch saw. */
  const seen: string[] = [];

  const maintenanceTypes = (node: V1Node) =>
    (node.status?.conditions ?? [])
      .map((c) => c.type)
      .filter((t) => (MAINTENANCE_CONDITION_TYPES as readonly string[]).includes(t))
      .join('+');
  const types = () =>
    cluster.kubectl(['get', 'node', NODE, '-o', 'jsonpath={.status.conditions[*].type}']);
  const notReady = () =>
    (
      JSON.parse(cluster.kubectl(['get', 'nodes', '-o', 'json'])) as {
        items: V1Node[];
      }
    ).items
      .filter((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True')
      .map((n) => n.metadata!.name!);
  const status = async (): Promise<StatusJson> => {
    const result = await runCli(['status', '--json', '--config', 'kubemaint.yaml'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as StatusJson;
  };

  before(async () => {
    cluster = await realCluster();
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-real-conditions-'));
    cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-k', INFRA_K8S]);
    cluster.kubectl(['scale', 'deployment/kubemaint-serve', '-n', 'kubemaint', '--replicas=0']);
    fleet = startCli(
      [
        'sim',
        '--attach',
        cluster.fleetKubeconfig('conditions-fleet', [NODE]),
        '--nodes',
        '1',
        '--name-prefix',
        'conditions-a-',
        '--kubelet-version',
        cluster.version,
        '--label',
        'topology.kubernetes.io/zone=conditions',
        // Long enough for kubectl to read the node while it reboots.
        '--reboot-downtime',
        '15',
        '--image',
        `ghcr.io/kubemaint/kubemaint:*=${process.execPath} --import ${import.meta.resolve('tsx')} ${MAIN}`,
      ],
      { cwd: dir },
    );
    await fleet.waitFor(/kubemaint sim attached: nodes=1/, 120_000);
    const request = await new Watch(cluster.admin).watch(
      '/api/v1/nodes',
      { fieldSelector: `metadata.name=${NODE}` },
      (_type: string, node: V1Node) => {
        const types = maintenanceTypes(node);
        if (seen.at(-1) !== types) seen.push(types);
      },
      () => undefined,
    );
    stopWatch = () => request.abort();

    // alice approves on the CLI as herself (kubemaint:person, and reading nodes).
    bindPerson(cluster, 'alice');
    serveKubeconfig = cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve');
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      `cluster:
  type: kubeconfig
  kubeconfig:
    path: ${serveKubeconfig}
approval:
  approvers:
    kubernetes:
      users: [alice]
# Only this suite's node: other suites' nodes on the shared control plane are not its to propose.
detection:
  nodeSelector: topology.kubernetes.io/zone=conditions
reboot:
  command: ["kubemaint-sim-host", "reboot"]
executor:
  hostPrefix: []
`,
    );
    serve = startCli(
      ['serve', '--config', 'kubemaint.yaml', '--ops-port', '0', '--ops-host', '127.0.0.1'],
      { cwd: dir },
    );
    await serve.waitFor(/serve ready: /, 60_000);
  });

  after(async () => {
    stopWatch?.();
    await serve?.stop();
    await fleet?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (cluster) await cleanKubemaint(cluster.admin, { nodes: [NODE, BARE] });
  });

  it('kube-apiserver refuses serve any status write but its maintenance conditions', async () => {
    // As kubemaint sends it: a strategic-merge patch of nodes/status, no read first (kubectl patch
    // --subresource would GET nodes/status, which kubemaint is not granted).
    const client = createKubeClient(loadKubeConfig(serveKubeconfig));
    const patch = (body: object) =>
      client.core.patchNodeStatus(
        { name: NODE, body },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
    const refused = async (body: object) => {
      try {
        await patch(body);
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
      return assert.fail(`kube-apiserver accepted ${JSON.stringify(body)} from serve`);
    };
    assert.match(
      await refused({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
      /kubemaint may write only its maintenance conditions/,
    );
    assert.match(
      await refused({ status: { nodeInfo: { bootID: 'forged' } } }),
      /may not change a node's addresses, capacity, nodeInfo/,
    );
    // Its own condition types it may write, and remove again.
    await patch({
      status: { conditions: [{ type: 'Drained', status: 'True', reason: 'DrainCompleted' }] },
    });
    assert.match(types(), /Drained/);
    await patch({ status: { conditions: [{ $patch: 'delete', type: 'Drained' }] } });
    assert.doesNotMatch(types(), /Drained/);
  });

  it('a reboot shows each step on the node, and none once it is done', async () => {
    // kubemaint starts nothing while another node is not Ready (blockers.maxUnhealthyNodes: 0), and
    // says so in the request; a node another suite left behind would make this test wait for it.
    const others = notReady().filter((name) => name !== NODE);
    assert.deepEqual(
      others,
      [],
      `nodes left not Ready on the shared control plane: ${others.join(', ')}`,
    );
    seen.length = 0;
    // A node without a kubelet (never Ready): a broken node, or one another suite left behind.
    cluster.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: BARE, labels: { 'topology.kubernetes.io/zone': 'conditions-bare' } },
      }),
    });
    cluster.kubectl(['label', 'node', NODE, 'kubemaint.io/reboot-required=true']);
    const proposed = await waitFor(
      'the proposal',
      async () => (await status()).requests.find((r) => r.node === NODE && r.action === 'reboot'),
      120_000,
      1_000,
    );
    const approved = await runCli(
      [
        'approve',
        proposed.id,
        '--kubeconfig',
        cluster.userKubeconfig('alice'),
        '--config',
        'kubemaint.yaml',
      ],
      { cwd: dir },
    );
    assert.equal(approved.code, 0, approved.stderr);
    // While another node is not Ready the request waits, and kubemaint says why: in its status and
    // in the node's MaintenancePlanned condition. Once that node is gone the reboot starts.
    const waits = await waitFor(
      'kubemaint to say why the approved reboot waits',
      async () =>
        (await status()).requests.find((r) => r.id === proposed.id)?.reasons.join('; ') ||
        undefined,
      180_000,
      1_000,
    );
    assert.match(waits, /1 other node is not Ready \(conditions-bare\); at most 0 allowed/);
    const planned = () =>
      cluster.kubectl([
        'get',
        'node',
        NODE,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="MaintenancePlanned")].message}',
      ]);
    const says = `kubemaint request ${proposed.id} (reboot): approved; 1 other node is not Ready (conditions-bare)`;
    await waitFor(
      'the MaintenancePlanned condition to say why',
      () => (planned().includes(says) ? true : undefined),
      20_000,
      500,
    ).catch(() => assert.fail(`MaintenancePlanned says ${JSON.stringify(planned())}, not ${says}`));
    assert.equal(
      (await status()).requests.find((r) => r.id === proposed.id)?.state,
      'approved',
      'nothing started meanwhile',
    );
    cluster.kubectl(['delete', 'node', BARE]);
    // Fails with what kubemaint says about the request (its state, why it waits), not just a timeout.
    await waitFor(
      'the reboot issued',
      async () => {
        if (seen.includes('Drained+MaintenanceInProgress')) return true;
        const r = (await status()).requests.find((q) => q.id === proposed.id);
        throw new Error(
          `request ${r?.state}; waits: ${JSON.stringify(r?.reasons)}; seen ${JSON.stringify(seen)}`,
        );
      },
      240_000,
      2_000,
    );
    const during = cluster.kubectl([
      'get',
      'node',
      NODE,
      '-o',
      'jsonpath={.status.conditions[*].type}',
    ]);
    // The mark is the agent's to clear once the host is rebooted; no agent runs here, so we do.
    cluster.kubectl(['label', 'node', NODE, 'kubemaint.io/reboot-required-']);
    const done = await waitFor(
      'the reboot done',
      async () => {
        const r = (await status()).requests.find((q) => q.id === proposed.id);
        if (r?.state === 'failed') assert.fail(`the reboot failed: ${JSON.stringify(r)}`);
        return r?.state === 'done' ? r : undefined;
      },
      300_000,
      1_000,
    );
    assert.equal(done.state, 'done');
    await waitFor(
      'the conditions removed',
      async () => (seen.at(-1) === '' ? true : undefined),
      30_000,
    ).catch((error: unknown) => {
      const said = `${serve!.stdout()}\n${serve!.stderr()}`;
      const warnings = said.split('\n').filter((l) => /conditions/.test(l));
      throw new Error(
        `${String(error)}; seen ${JSON.stringify(seen)}; node: ${types()}; serve: ${warnings.join(' | ')}`,
      );
    });
    assert.deepEqual(
      seen.filter((types) => types !== ''),
      ['MaintenancePlanned', 'DrainInProgress', 'Drained', 'Drained+MaintenanceInProgress'],
      JSON.stringify(seen),
    );
    assert.match(during, /Ready/);
    assert.match(during, /MaintenanceInProgress/, `kubectl get node while it reboots: ${during}`);
    const after = cluster.kubectl([
      'get',
      'node',
      NODE,
      '-o',
      'jsonpath={.status.conditions[*].type}',
    ]);
    assert.match(after, /Ready/);
    assert.doesNotMatch(after, /Maintenance|Drain/, after);
  });
});
