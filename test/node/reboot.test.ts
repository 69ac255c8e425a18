/**
 * A real reboot of a real node, driven by kubemaint end to end: two Debian VMs (QEMU TCG, containerd,
 * a kubelet built here) joined to the real control plane, kubemaint's manifests (infra/k8s) applied and
 * its images — built here, imported into each VM's containerd, never pulled — running on them. A real
 * /var/run/reboot-required on one VM's host → the agent DaemonSet's pod marks its node → serve (run as
 * a user runs it against a cluster) proposes → alice and bob approve on the CLI as themselves (two-
 * person rule) → serve's Job runs the executor's container on that node: it takes its slot, drains
 * through the Eviction API (a PDB refuses at first), and runs `systemctl reboot` through nsenter → the
 * guest really reboots (its console shows a second kernel boot) → the kubelet comes back with a new
 * bootID, /run is empty again so the sentinel is gone, the agent clears its mark → serve proves it and
 * uncordons. Run by `npm run test:node` (scripts/real-node/test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GRACEFUL_SHUTDOWN } from '../../scripts/real-node/guest.js';
import { realCluster, type RealCluster } from '../support/real-cluster.js';
import { runCli } from '../support/cli-process.js';
import {
  installKubemaint,
  nodeJson,
  podsJson,
  type KubemaintServe,
  nodeImages,
  poll,
  realNodes,
  type RealNodes,
  startServe,
} from '../support/real-nodes.js';

const MINUTE = 60_000;

interface StatusJson {
  requests: { id: string; node: string; action: string; state: string; reasons: string[] }[];
}

describe('a real node rebooted by kubemaint, end to end', { timeout: 60 * MINUTE }, () => {
  let cluster: RealCluster;
  let nodes: RealNodes;
  let dir: string;
  let kubemaint: KubemaintServe | undefined;
  let target: string;
  let other: string;
  let cliImage: string;
  let bootBefore: string;
  const taintsSeen = new Set<string>();
  let watching: NodeJS.Timeout | undefined;
  let kubeconfigs: KubemaintServe['kubeconfigs'];

  const node = (name: string) => nodeJson(cluster, name);
  const pods = (namespace: string, selector?: string) => podsJson(cluster, namespace, selector);
  const status = async (): Promise<StatusJson> => {
    const result = await runCli(['status', '--json', '--config', 'kubemaint.yaml'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as StatusJson;
  };
  const rebootRequest = async () =>
    (await status()).requests.find((r) => r.node === target && r.action === 'reboot');

  before(async () => {
    cluster = await realCluster();
    nodes = realNodes();
    assert.ok(nodes.nodes.length >= 2, 'two real nodes: one to reboot, one to take its pods');
    [target, other] = nodes.nodes.map((n) => n.name) as [string, string];
    const images = nodeImages();
    cliImage = images.cli;
    // First: the agent pods start on both VMs while the web app's pods start.
    installKubemaint(cluster, images.agent);

    // The shop's web app: both replicas on the node to reboot (the other node cordoned meanwhile), a PDB
    // that keeps both, so kubemaint's drain is refused until a third replica runs elsewhere. The pods run
    // the local sandbox image: a process that sleeps until SIGTERM.
    cluster.kubectl(['cordon', other]);
    cluster.kubectl(['create', 'namespace', 'shop']);
    cluster.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              terminationGracePeriodSeconds: 5,
              containers: [
                { name: 'web', image: 'kubemaint.local/pause:1', imagePullPolicy: 'Never' },
              ],
            },
          },
        },
      }),
    });
    cluster.kubectl([
      'create',
      'poddisruptionbudget',
      'web',
      '-n',
      'shop',
      '--selector=app=web',
      '--min-available=2',
    ]);
    cluster.kubectl(['rollout', 'status', 'deployment/web', '-n', 'shop', '--timeout=600s']);
    cluster.kubectl(['uncordon', other]);

    // The kubelet upgrade of the node one minor behind is upgrade.test.ts's: not proposed here.
    kubemaint = await startServe(cluster, cliImage, 'kubelet:\n  enabled: false\n');
    dir = kubemaint.dir;
    kubeconfigs = kubemaint.kubeconfigs;
    bootBefore = node(target).status.nodeInfo.bootID;
    // Every taint the nodes carry while the test runs: the node lifecycle controller's come and go.
    watching = setInterval(() => {
      try {
        for (const t of node(target).spec?.taints ?? []) taintsSeen.add(`${t.key}:${t.effect}`);
      } catch {
        // a kubectl that failed while the machine is loaded: the next one looks again
      }
    }, 3_000);
  });

  after(async () => {
    if (watching) clearInterval(watching);
    await kubemaint?.stop();
  });

  it("the agent's pod, from the image built here, marks its node when the host asks for a reboot", async () => {
    await poll(
      'the agent pods running on both nodes',
      () => {
        const running = pods('kubemaint', 'app.kubernetes.io/name=kubemaint-agent').filter(
          (p) => p.status.containerStatuses?.[0]?.ready,
        );
        return running.length >= 2 ? running : undefined;
      },
      15 * MINUTE,
      5_000,
    );
    assert.equal(node(target).metadata.labels?.['kubemaint.io/reboot-required'], undefined);
    // shutdownGracePeriod is set (guest.ts): the kubelet holds logind's delay inhibitor, so a reboot
    // waits for it to stop the pods left on the node (the agent's: a drain keeps DaemonSet pods).
    const inhibitors = nodes.ssh(target, 'systemd-inhibit --list --no-pager');
    assert.match(inhibitors, /kubelet.*shutdown.*delay/i, inhibitors);
    // The agent read that setting from its kubelet's /configz (its token, RBAC nodes/configz, the
    // kubelet's webhook authorization) and wrote it on its node (ADR 0049): guest.ts sets it.
    const reported = await poll(
      "the agent reports the kubelet's shutdown grace period from configz",
      () => {
        const annotations = node(target).metadata.annotations ?? {};
        return annotations['kubemaint.io/shutdown-grace-period-source'] === 'configz'
          ? annotations
          : undefined;
      },
      5 * MINUTE,
      5_000,
    );
    assert.equal(reported['kubemaint.io/shutdown-grace-period'], GRACEFUL_SHUTDOWN.period);
    assert.equal(
      reported['kubemaint.io/shutdown-grace-period-critical-pods'],
      GRACEFUL_SHUTDOWN.criticalPods,
    );
    // What unattended-upgrades writes after a kernel update: /var/run is the host's tmpfs.
    nodes.ssh(target, "printf '*** System restart required ***\\n' > /var/run/reboot-required");
    await poll(
      'the agent marks the node',
      () => node(target).metadata.labels?.['kubemaint.io/reboot-required'] === 'true',
      5 * MINUTE,
    );
    assert.equal(node(other).metadata.labels?.['kubemaint.io/reboot-required'], undefined);
  });

  it('serve proposes; alice and bob approve on the CLI as themselves', async () => {
    const proposed = await poll('the proposal', rebootRequest, 5 * MINUTE, 5_000);
    assert.equal(proposed.state, 'proposed');
    const first = await runCli(
      ['approve', proposed.id, '--kubeconfig', kubeconfigs.alice, '--config', 'kubemaint.yaml'],
      { cwd: dir },
    );
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /first of two approvals/);
    const second = await runCli(
      ['approve', proposed.id, '--kubeconfig', kubeconfigs.bob, '--config', 'kubemaint.yaml'],
      { cwd: dir },
    );
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /approve by k8s:bob: r-[0-9a-f]{6} is approved/);
  });

  it('the drain waits for the PDB, the executor container reboots the VM, and the new bootID proves it', async () => {
    const blocked = await poll(
      'the PDB refusal',
      async () =>
        (await rebootRequest())?.reasons.find((r) => /PDB shop\/web allows 0 disruptions/.test(r)),
      5 * MINUTE,
      5_000,
    );
    assert.match(blocked, /shop\/web-/);
    assert.notEqual(node(target).spec?.unschedulable, true, 'not cordoned while the PDB refuses');
    cluster.kubectl(['scale', 'deployment/web', '-n', 'shop', '--replicas=3']);
    const agentBefore = pods('kubemaint', 'app.kubernetes.io/name=kubemaint-agent').find(
      (p) => p.spec.nodeName === target,
    );

    const executor = await poll(
      "the executor's container running on the node",
      () =>
        pods('kubemaint').find(
          (p) =>
            p.spec.nodeName === target &&
            p.metadata.labels?.['job-name'] &&
            p.status.containerStatuses?.[0]?.imageID,
        ),
      15 * MINUTE,
      5_000,
    );
    const container = executor.status.containerStatuses![0]!;
    assert.equal(container.image, cliImage, 'the image built here');
    assert.match(container.imageID, /sha256:[0-9a-f]{64}/);

    const done = await poll(
      'the reboot done',
      async () => {
        const r = await rebootRequest();
        if (r?.state === 'failed') assert.fail(`the reboot failed: ${JSON.stringify(r)}`);
        return r?.state === 'done' ? r : undefined;
      },
      30 * MINUTE,
      10_000,
    );
    assert.equal(done.state, 'done');
    const now = node(target);
    assert.notEqual(now.status.nodeInfo.bootID, bootBefore, 'a new bootID');
    assert.equal(nodes.kernelBoots(target), 2, 'the console shows a second kernel boot');
    assert.equal(
      nodes.sshCode(target, 'test ! -e /var/run/reboot-required'),
      0,
      'the sentinel is gone',
    );
    assert.notEqual(now.spec?.unschedulable, true, 'uncordoned by kubemaint');
    assert.equal(
      now.metadata.labels?.['kubemaint.io/reboot-required'],
      undefined,
      'the agent cleared its mark',
    );
    const web = pods('shop', 'app=web');
    assert.equal(
      web.filter((p) => p.spec.nodeName === target).length,
      0,
      'the pods were evicted before',
    );
    assert.ok(
      web.filter((p) => p.spec.nodeName === other && p.status.phase === 'Running').length >= 2,
    );
    // The node lifecycle controller's taints while the node was down came, and went.
    assert.ok(
      [...taintsSeen].some((t) => /node\.kubernetes\.io\/(unreachable|not-ready)/.test(t)),
      `the not-ready or unreachable taint was seen (${[...taintsSeen].join(', ')})`,
    );
    const left = (now.spec?.taints ?? []).map((t) => t.key);
    assert.deepEqual(left, [], 'no taint is left');
    process.stderr.write(`# taints seen on ${target}: ${[...taintsSeen].join(', ')}\n`);
    // How the agent's container (left on the node by the drain) ended with the old boot: the
    // kubelet's graceful shutdown stopped it (its exit recorded), or the power went (Unknown).
    const agent = await poll(
      "the agent's pod running again on the rebooted node",
      () =>
        pods('kubemaint', 'app.kubernetes.io/name=kubemaint-agent').find(
          (p) => p.spec.nodeName === target && p.status.containerStatuses?.[0]?.ready,
        ),
      10 * MINUTE,
      5_000,
    );
    const agentStatus = agent.status.containerStatuses![0]!;
    // The kubelet's graceful shutdown ends the pods it stops as Failed, and the DaemonSet controller
    // replaces a failed pod; when that status did not reach the apiserver before the power went,
    // the same pod restarts. Either is upstream's behaviour, so it is printed, not asserted.
    const fate =
      agent.metadata.uid === agentBefore?.metadata.uid ? 'the same pod restarted' : 'a new pod';
    process.stderr.write(
      `# the agent's pod across the reboot: ${fate}, restartCount ${agentStatus.restartCount}, last state ${JSON.stringify(agentStatus.lastState?.terminated ?? {})}\n`,
    );
    // The phases of this reboot from the request's own history and the node's Ready condition,
    // for BENCHMARKS.md: kubemaint's overhead beside the VM's boot.
    const history = (
      JSON.parse(cluster.kubectl(['get', 'mr', '-n', 'kubemaint', done.id, '-o', 'json'])) as {
        status: { history: { to: string; at: string }[] };
      }
    ).status.history;
    const at = (state: string) => {
      const entry = history.findLast((h) => h.to === state);
      return entry ? Date.parse(entry.at) : NaN;
    };
    const ready = now.status.conditions?.find((c) => c.type === 'Ready');
    const back = Date.parse(ready?.lastTransitionTime ?? '');
    const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(0)} s`;
    process.stderr.write(
      `# phases of ${done.id}: approved → Job created ${s(at('approved'), at('running'))}, ` +
        `drain and host command ${s(at('running'), at('verifying'))}, ` +
        `reboot to Ready ${s(at('verifying'), back)}, proof ${s(back, at('done'))}, ` +
        `approval to uncordon ${s(at('approved'), at('done'))}\n`,
    );
  });
});
