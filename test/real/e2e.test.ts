/**
 * kubemaint end to end on the real control plane: `infra/k8s` applied with `kubectl apply --server-side
 * -k`, simulated nodes attached as real API clients (each acting as its own `system:node:<name>`), and
 * every kubemaint component on its own ServiceAccount token with exactly the RBAC the manifests grant:
 * the reporter agent (the real shell script, run by the DaemonSet's pods) marks the node whose host
 * asks for a reboot; `serve`, started as a user starts it against a cluster, proposes that reboot and a
 * kubelet upgrade for the node one minor behind; an approval on the CLI lets serve create the executor
 * Job; the real Job controller makes its pod, which runs the real executor: slot, cordon, drain
 * through the Eviction API (a PDB refuses at first), reboot through the node's host. The real node
 * lifecycle controller taints the silent node `unreachable:NoExecute` (the executor tolerates it), the
 * node comes back with a new bootID, the agent clears its mark, and serve proves it and uncordons.
 * The apiserver's audit log then shows who wrote what: no admin credentials after the install.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';
import { MAIN, runCli, startCli, type LongRunning } from '../support/cli-process.js';
import { waitFor } from '../support/sim.js';

const REBOOT_NODE = 'e2e-a-0';
const OTHER_NODE = 'e2e-c-0';
const LAGGING_NODE = 'e2e-b-0';
const SIM_AGENT = fileURLToPath(new URL('../../bin/kubemaint-sim-agent', import.meta.url));

interface NodeJson {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean; taints?: { key: string; effect: string }[] };
  status: { nodeInfo: { bootID: string; kubeletVersion: string } };
}

interface StatusJson {
  requests: { id: string; node: string; action: string; state: string; reasons: string[] }[];
}

describe('kubemaint on the real control plane, end to end', { timeout: 900_000 }, () => {
  let cluster: RealCluster;
  let dir: string;
  let serve: LongRunning | undefined;
  const fleets: LongRunning[] = [];
  const bootIds = new Map<string, string>();
  let installedAt: string;
  /** alice's own kubeconfig (a client certificate): the CLI acts as her (ADR 0012). */
  let aliceKubeconfig: string;

  const node = (name: string) =>
    JSON.parse(cluster.kubectl(['get', 'node', name, '-o', 'json'])) as NodeJson;
  const status = async (): Promise<StatusJson> => {
    const result = await runCli(['status', '--json', '--config', 'kubemaint.yaml'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as StatusJson;
  };
  const requestFor = async (name: string, action: string) =>
    (await status()).requests.find((r) => r.node === name && r.action === action);

  before(async () => {
    cluster = await realCluster();
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-real-e2e-'));
    cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-k', INFRA_K8S]);
    // serve runs outside the cluster here, as `npx kubemaint serve` against a kubeconfig.
    cluster.kubectl(['scale', 'deployment/kubemaint-serve', '-n', 'kubemaint', '--replicas=0']);

    // The simulated fleet may act only as its own nodes: impersonation of exactly those users.
    const names = [REBOOT_NODE, OTHER_NODE, LAGGING_NODE];
    const fleetKubeconfig = cluster.fleetKubeconfig('e2e-sim-fleet', names);
    const hosts = join(dir, 'hosts');
    // The host of REBOOT_NODE asks for a reboot, as unattended-upgrades does on Debian.
    mkdirSync(join(hosts, REBOOT_NODE, 'var/run'), { recursive: true });
    writeFileSync(
      join(hosts, REBOOT_NODE, 'var/run/reboot-required'),
      '*** System restart required ***\n',
    );
    writeFileSync(
      join(hosts, REBOOT_NODE, 'var/run/reboot-required.pkgs'),
      'linux-image-6.1.0-40-amd64\n',
    );
    const attach = (prefix: string, nodes: number, version: string) => {
      const fleet = startCli(
        [
          'sim',
          '--attach',
          fleetKubeconfig,
          '--nodes',
          String(nodes),
          '--name-prefix',
          prefix,
          '--kubelet-version',
          version,
          // A zone of their own, so nodes other suites left NotReady cannot put it in partial disruption.
          '--label',
          'topology.kubernetes.io/zone=e2e',
          '--hosts-dir',
          hosts,
          // Longer than the controller-manager's node-monitor grace (20 s, ADR 0008): the real taints come.
          '--reboot-downtime',
          '40',
          '--image',
          `ghcr.io/kubemaint/kubemaint:*=${process.execPath} --import ${import.meta.resolve('tsx')} ${MAIN}`,
          '--image',
          `*/kubemaint-agent:*=sh ${SIM_AGENT}`,
        ],
        { cwd: dir, env: { KUBEMAINT_SIM_AGENT_PERIOD_SECONDS: '2' } },
      );
      fleets.push(fleet);
      return fleet.waitFor(/kubemaint sim attached: nodes=(\d+)/, 120_000);
    };
    // The node to reboot joins alone first, so both replicas of the shop's web app land on it;
    // their PDB (at least 2 available) refuses any eviction until there is a third replica elsewhere.
    await attach('e2e-a-', 1, cluster.version);
    cluster.kubectl(['create', 'namespace', 'shop']);
    cluster.kubectl([
      'create',
      'deployment',
      'web',
      '-n',
      'shop',
      '--image=registry.example/web:1',
      '--replicas=2',
    ]);
    cluster.kubectl([
      'create',
      'poddisruptionbudget',
      'web',
      '-n',
      'shop',
      '--selector=app=web',
      '--min-available=2',
    ]);
    cluster.kubectl(['rollout', 'status', 'deployment/web', '-n', 'shop', '--timeout=120s']);
    await attach('e2e-c-', 1, cluster.version);
    await attach('e2e-b-', 1, 'v1.33.7');
    for (const name of names) bootIds.set(name, node(name).status.nodeInfo.bootID);

    // alice approves on the CLI as herself (her own client certificate): what infra/k8s/rbac-people.yaml
    // grants a person, bound to her as an installer binds its people, and read access to nodes (the
    // view access a person already has on a real cluster).
    cluster.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: 'e2e-node-reader' },
            rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
          },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: 'e2e-node-reader-alice' },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: 'e2e-node-reader',
            },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
          },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'e2e-person-alice', namespace: 'kubemaint' },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: 'kubemaint:person',
            },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
          },
        ],
      }),
    });
    aliceKubeconfig = cluster.userKubeconfig('alice');

    const config = `cluster:
  type: kubeconfig
  kubeconfig:
    path: ${cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve')}
approval:
  approvers:
    kubernetes:
      users: [alice]
# The simulated nodes' hosts are reached through kubemaint-sim-host, which the fleet puts on the PATH of the pods it runs.
reboot:
  command: ["kubemaint-sim-host", "reboot"]
upgrade:
  command: ["kubemaint-sim-host", "upgrade", "{{version}}"]
  restartCommand: []
executor:
  hostPrefix: []
`;
    writeFileSync(join(dir, 'kubemaint.yaml'), config);
    installedAt = new Date().toISOString();
    serve = startCli(
      ['serve', '--config', 'kubemaint.yaml', '--ops-port', '0', '--ops-host', '127.0.0.1'],
      { cwd: dir },
    );
    await serve.waitFor(/serve ready: /, 60_000);
  });

  after(async () => {
    await serve?.stop();
    for (const fleet of fleets) await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
    // Its nodes go NotReady once their fleet stops: left behind, they would hold every later suite's
    // approved request back (blockers.maxUnhealthyNodes is 0 by default).
    if (!cluster) return;
    cluster.kubectl(['delete', 'namespace', 'shop', '--ignore-not-found', '--wait=false']);
    await cleanKubemaint(cluster.admin, { nodes: [REBOOT_NODE, OTHER_NODE, LAGGING_NODE] });
  });

  it('the reporter agent marks the node whose host asks for a reboot, as its own identity', async () => {
    const marked = await waitFor(
      'the agent marks the node',
      async () => {
        const labels = node(REBOOT_NODE).metadata.labels ?? {};
        return labels['kubemaint.io/reboot-required'] === 'true' ? labels : undefined;
      },
      120_000,
    );
    assert.equal(marked['kubemaint.io/reboot-required'], 'true');
    assert.equal(node(OTHER_NODE).metadata.labels?.['kubemaint.io/reboot-required'], undefined);
  });

  it('serve proposes the reboot and the kubelet upgrade of the node one minor behind', async () => {
    await waitFor(
      'both proposals',
      async () => {
        const reboot = await requestFor(REBOOT_NODE, 'reboot');
        const upgrade = await requestFor(LAGGING_NODE, 'upgrade');
        return reboot && upgrade ? true : undefined;
      },
      120_000,
    );
    assert.equal((await requestFor(REBOOT_NODE, 'reboot'))?.state, 'proposed');
    assert.equal((await requestFor(LAGGING_NODE, 'upgrade'))?.state, 'proposed');
    assert.equal(await requestFor(OTHER_NODE, 'reboot'), undefined);
  });

  it('an approved reboot drains past a PDB that refuses at first, survives the unreachable taint, and is proven by a new bootID', async () => {
    const request = (await requestFor(REBOOT_NODE, 'reboot'))!;
    const approved = await runCli(
      ['approve', request.id, '--kubeconfig', aliceKubeconfig, '--config', 'kubemaint.yaml'],
      { cwd: dir },
    );
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approve by k8s:alice: r-[0-9a-f]{6} is approved/);

    // The PDB refuses (the real apiserver answers serve's dry-run eviction 429): nothing is touched yet.
    const blocked = await waitFor(
      'the PDB refusal',
      async () => {
        const r = (await status()).requests.find((q) => q.id === request.id);
        return r?.reasons.find((reason) => /PDB shop\/web allows 0 disruptions/.test(reason));
      },
      120_000,
    );
    assert.match(blocked, /pods shop\/web-\S+, shop\/web-/, 'both replicas are named');
    assert.notEqual(
      node(REBOOT_NODE).spec?.unschedulable,
      true,
      'not cordoned while the PDB refuses',
    );
    assert.equal(cluster.kubectl(['get', 'jobs', '-n', 'kubemaint', '-o', 'name']).trim(), '');
    // A third replica lands on another node (scheduler), becomes ready, and the PDB allows a disruption;
    // the drain then waits for each evicted pod's replacement before the next eviction is allowed.
    cluster.kubectl(['scale', 'deployment/web', '-n', 'shop', '--replicas=3']);

    // While the node is down, the real node lifecycle controller taints it; the executor tolerates it.
    const taint = await waitFor(
      'the unreachable NoExecute taint',
      async () => {
        const taints = node(REBOOT_NODE).spec?.taints ?? [];
        return taints.find(
          (t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute',
        );
      },
      240_000,
    );
    assert.ok(taint);

    const done = await waitFor(
      'the reboot done',
      async () => {
        const r = await requestFor(REBOOT_NODE, 'reboot');
        if (r?.state === 'failed') assert.fail(`the reboot failed: ${JSON.stringify(r)}`);
        return r?.state === 'done' ? r : undefined;
      },
      300_000,
    );
    assert.equal(done.id, request.id);
    const after = node(REBOOT_NODE);
    assert.notEqual(after.status.nodeInfo.bootID, bootIds.get(REBOOT_NODE), 'a new bootID');
    assert.notEqual(after.spec?.unschedulable, true, 'uncordoned by kubemaint');
    assert.equal(
      after.metadata.labels?.['kubemaint.io/reboot-required'],
      undefined,
      'the agent cleared its mark',
    );
    const pods = JSON.parse(cluster.kubectl(['get', 'pods', '-n', 'shop', '-o', 'json'])) as {
      items: { spec: { nodeName?: string }; status: { phase: string } }[];
    };
    assert.equal(
      pods.items.filter((p) => p.spec.nodeName === REBOOT_NODE).length,
      0,
      'the node was drained',
    );
  });

  it('an approved kubelet upgrade is proven by the new version, without a reboot', async () => {
    const request = (await requestFor(LAGGING_NODE, 'upgrade'))!;
    const approved = await runCli(
      ['approve', request.id, '--kubeconfig', aliceKubeconfig, '--config', 'kubemaint.yaml'],
      { cwd: dir },
    );
    assert.equal(approved.code, 0, approved.stderr);
    await waitFor(
      'the upgrade done',
      async () => {
        const r = await requestFor(LAGGING_NODE, 'upgrade');
        if (r?.state === 'failed') assert.fail(`the upgrade failed: ${JSON.stringify(r)}`);
        return r?.state === 'done' ? r : undefined;
      },
      300_000,
    );
    const after = node(LAGGING_NODE);
    assert.equal(after.status.nodeInfo.kubeletVersion, cluster.version);
    assert.equal(
      after.status.nodeInfo.bootID,
      bootIds.get(LAGGING_NODE),
      'an upgrade is not a reboot',
    );
    assert.notEqual(after.spec?.unschedulable, true);
  });

  it('the audit log shows each component writing as its own service account, and no admin after the install', () => {
    const entries = readFileSync(join(cluster.dir, 'logs', 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            verb: string;
            user: { username: string };
            objectRef?: {
              resource?: string;
              subresource?: string;
              name?: string;
              namespace?: string;
            };
            responseStatus?: { code?: number };
            requestReceivedTimestamp: string;
          },
      )
      .filter((e) => e.requestReceivedTimestamp >= installedAt);
    const writers = (resource: string, subresource?: string) =>
      new Set(
        entries
          .filter((e) => ['create', 'update', 'patch'].includes(e.verb))
          .filter(
            (e) => e.objectRef?.resource === resource && e.objectRef.subresource === subresource,
          )
          .filter((e) => (e.responseStatus?.code ?? 0) < 300)
          .map((e) => e.user.username),
      );
    const sa = (name: string) => `system:serviceaccount:kubemaint:${name}`;
    assert.deepEqual(
      [...writers('jobs')].filter((u) => u.startsWith('system:serviceaccount:kubemaint')),
      [sa('kubemaint-serve')],
    );
    assert.ok(writers('pods', 'eviction').has(sa('kubemaint-executor')), 'the executor evicts');
    const refusedEvictions = entries.filter(
      (e) => e.objectRef?.subresource === 'eviction' && e.responseStatus?.code === 429,
    );
    assert.ok(
      refusedEvictions.some((e) => e.user.username === sa('kubemaint-serve')),
      "the PDB's 429 answered serve's dry-run eviction",
    );
    assert.ok(writers('leases').has(sa('kubemaint-executor')), 'the executor takes a slot');
    assert.ok(writers('nodes').has(sa('kubemaint-agent')), 'the agent marks its node');
    // ADR 0012: alice's decisions are hers, recorded in her name; only kubemaint moves a request.
    assert.deepEqual([...writers('maintenanceapprovals')], ['alice']);
    assert.deepEqual([...writers('maintenancerequests')], [sa('kubemaint-serve')]);
    for (const writer of writers('maintenancerequests', 'status'))
      assert.ok(
        [sa('kubemaint-serve'), sa('kubemaint-executor')].includes(writer),
        `${writer} wrote a request's status`,
      );
    // After the install the test only plays the app owner (namespace shop); kubemaint's work is its own.
    const admin = entries.filter(
      (e) =>
        e.user.username === 'kubemaint-admin' &&
        ['create', 'update', 'patch', 'delete'].includes(e.verb) &&
        e.objectRef?.namespace !== 'shop',
    );
    assert.deepEqual(
      admin.map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`),
      [],
    );
  });
});
