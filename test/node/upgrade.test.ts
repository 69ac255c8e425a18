/**
 * A real kubelet upgrade of a real node, driven by kubemaint end to end. kubemaint-vm-2 is a kubeadm
 * node one minor behind the control plane (kubelet, kubeadm and kubectl installed from `.deb`s and
 * held; its apt source is the real pkgs.k8s.io line, which the VM reaches only as the test's server:
 * scripts/real-node/test-nodes.ts). serve's skew scan proposes the upgrade → alice and bob approve →
 * the executor Job's container drains the node and runs the shipped infra/upgrade/kubeadm-upgrade.sh
 * on the host through nsenter → the guest's own apt installs kubeadm, `kubeadm upgrade node` rewrites
 * the kubelet's configuration, apt installs the kubelet and kubectl → the kubelet restarts after the
 * executor exits (upgrade.restartCommand) → the node reports the new kubeletVersion with the same
 * bootID → serve proves it and uncordons. Runs after reboot.test.ts (same cluster and nodes): its web
 * app's pods are on this node and go to kubemaint-vm-1.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parseKubernetesVersion } from '../../scripts/real-cluster/versions.js';
import { APT_SOURCE_FILE } from '../../scripts/real-node/apt-repo.js';
import { KUBEADM_FLAGS_FILE } from '../../scripts/real-node/guest.js';
import {
  KUBEADM_CRI_SOCKET_ANNOTATION,
  kubeadmClusterObjects,
} from '../../scripts/real-node/kubeadm-cluster.js';
import { gracefulShutdownWarning, readGracefulShutdown } from '../../src/core/graceful-shutdown.js';
import { runCli } from '../support/cli-process.js';
import { realCluster, type RealCluster } from '../support/real-cluster.js';
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
/** How often the test looks at the node (the phases' resolution). */
const LOOK_MS = 3_000;

interface Request {
  id: string;
  node: string;
  action: string;
  state: string;
  targetVersion?: string;
  reasons: string[];
}

describe(
  'a real kubelet upgraded by kubemaint through the shipped kubeadm script',
  { timeout: 60 * MINUTE },
  () => {
    let cluster: RealCluster;
    let nodes: RealNodes;
    let kubemaint: KubemaintServe | undefined;
    let target: string;
    let other: string;
    let cliImage: string;
    let from: string;
    let to: string;
    let bootBefore: string;
    /** When the node first reported each kubeletVersion and schedulability (the phases). */
    const seen = new Map<string, number>();
    let watching: NodeJS.Timeout | undefined;

    const node = (name: string) => nodeJson(cluster, name);
    const pods = (namespace: string, selector?: string) => podsJson(cluster, namespace, selector);
    const agentPod = () =>
      pods('kubemaint', 'app.kubernetes.io/name=kubemaint-agent').find(
        (p) => p.spec.nodeName === target,
      );
    const upgradeRequest = async (): Promise<Request | undefined> => {
      const result = await runCli(['status', '--json', '--config', 'kubemaint.yaml'], {
        cwd: kubemaint!.dir,
      });
      assert.equal(result.code, 0, result.stderr);
      return (JSON.parse(result.stdout) as { requests: Request[] }).requests.find(
        (r) => r.node === target && r.action === 'upgrade',
      );
    };

    before(async () => {
      cluster = await realCluster();
      nodes = realNodes();
      const behind = nodes.nodes.find((n) => n.kubelet !== nodes.nodes[0]?.kubelet);
      assert.ok(behind, 'a node whose kubelet is one minor behind (npm run test:node starts it)');
      target = behind.name;
      other = nodes.nodes.find((n) => n.name !== target)!.name;
      from = node(target).status.nodeInfo.kubeletVersion;
      to = node(other).status.nodeInfo.kubeletVersion;
      assert.equal(parseKubernetesVersion(from).minor + 1, parseKubernetesVersion(to).minor);
      bootBefore = node(target).status.nodeInfo.bootID;

      const images = nodeImages();
      cliImage = images.cli;
      installKubemaint(cluster, images.agent); // as reboot.test.ts left it: nothing changes
      // The PDB was the reboot test's subject; here the drain evicts the web app's pods at once.
      cluster.kubectl(['delete', 'poddisruptionbudget', 'web', '-n', 'shop', '--ignore-not-found']);
      // What `kubeadm init` and a 1.33 `kubeadm join` leave in the cluster, for `kubeadm upgrade node`.
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify(kubeadmClusterObjects(parseKubernetesVersion(to))),
      });
      cluster.kubectl([
        'annotate',
        'node',
        target,
        '--overwrite',
        `${KUBEADM_CRI_SOCKET_ANNOTATION}=unix:///run/containerd/containerd.sock`,
      ]);
      watching = setInterval(() => {
        try {
          const now = node(target);
          const key = `${now.status.nodeInfo.kubeletVersion} ${now.spec?.unschedulable ? 'cordoned' : 'schedulable'}`;
          if (!seen.has(key)) seen.set(key, Date.now());
        } catch {
          // a kubectl that failed while the machine is loaded: the next one looks again
        }
      }, LOOK_MS);
      kubemaint = await startServe(cluster, cliImage, 'upgrade:\n  method: kubeadm\n');
    });

    after(async () => {
      if (watching) clearInterval(watching);
      await kubemaint?.stop();
    });

    it('serve proposes the upgrade of the kubelet one minor behind; alice and bob approve', async () => {
      const proposed = await poll('the upgrade proposal', upgradeRequest, 5 * MINUTE, 5_000);
      assert.equal(proposed.state, 'proposed');
      assert.equal(proposed.targetVersion, to, 'the apiserver version is the target');
      for (const person of ['alice', 'bob'] as const)
        await kubemaint!.cli(person, ['approve', proposed.id]);
    });

    it("the script installs the next kubelet with the node's apt, the kubelet restarts, and the new version with the same bootID proves it", async () => {
      const agentBefore = agentPod();
      assert.ok(
        agentBefore?.status.containerStatuses?.[0]?.containerID,
        'the agent pod runs on the node',
      );
      const done = await poll(
        'the upgrade done',
        async () => {
          const r = await upgradeRequest();
          if (r?.state === 'failed') assert.fail(`the upgrade failed: ${JSON.stringify(r)}`);
          return r?.state === 'done' ? r : undefined;
        },
        40 * MINUTE,
        10_000,
      );
      const now = node(target);
      assert.equal(now.status.nodeInfo.kubeletVersion, to, 'the new kubelet');
      assert.equal(now.status.nodeInfo.bootID, bootBefore, 'the same boot: upgraded, not rebooted');
      assert.equal(nodes.kernelBoots(target), 1, 'one kernel boot on the console');
      assert.notEqual(now.spec?.unschedulable, true, 'uncordoned by kubemaint');

      // The host as apt and kubeadm left it.
      const minor = (v: string) => v.replace(/^v(\d+\.\d+)\..*$/, '$1');
      const installed = nodes.ssh(
        target,
        "dpkg-query -W -f '${Package} ${Version}\\n' kubelet kubeadm kubectl",
      );
      for (const name of ['kubelet', 'kubeadm', 'kubectl']) {
        assert.match(installed, new RegExp(`^${name} ${to.slice(1)}-1\\.1$`, 'm'), installed);
      }
      assert.deepEqual(
        nodes.ssh(target, 'apt-mark showhold').trim().split('\n').sort(),
        ['kubeadm', 'kubectl', 'kubelet'],
        'held again',
      );
      assert.match(
        nodes.ssh(target, `cat ${APT_SOURCE_FILE}`),
        new RegExp(`pkgs\\.k8s\\.io/core:/stable:/v${minor(to)}/deb/`),
      );
      // kubeadm 1.34 moved the runtime socket from the flags (and the annotation) to instance-config.yaml.
      assert.match(
        nodes.ssh(target, 'cat /var/lib/kubelet/instance-config.yaml'),
        /containerRuntimeEndpoint: "?unix:\/\/\/run\/containerd\/containerd\.sock/,
      );
      assert.doesNotMatch(
        nodes.ssh(target, `cat ${KUBEADM_FLAGS_FILE}`),
        /container-runtime-endpoint/,
      );
      assert.equal(now.metadata.annotations?.[KUBEADM_CRI_SOCKET_ANNOTATION], undefined);
      // apt fetched the packages from the test's pkgs.k8s.io.
      const fetched = readFileSync(process.env['KUBEMAINT_PKGS_REQUESTS'] ?? '', 'utf8');
      assert.match(
        fetched,
        new RegExp(
          `^200 /core:/stable:/v${minor(to)}/deb/amd64/kubelet_${to.slice(1)}-1\\.1_amd64\\.deb$`,
          'm',
        ),
        fetched,
      );

      // The drain evicted the web app's pods; they run on the other node.
      assert.equal(
        pods('shop', 'app=web').filter((p) => p.spec.nodeName === target).length,
        0,
        'evicted before the upgrade',
      );
      await poll(
        "the web app's pods running on the other node",
        () =>
          pods('shop', 'app=web').filter(
            (p) => p.spec.nodeName === other && p.status.phase === 'Running',
          ).length >= 2,
        10 * MINUTE,
        5_000,
      );

      // A drain keeps DaemonSet pods: what did the new kubelet do with the agent's container?
      const agentAfter = await poll(
        'the agent pod ready under the new kubelet',
        () => {
          const p = agentPod();
          return p?.status.containerStatuses?.[0]?.ready ? p : undefined;
        },
        10 * MINUTE,
        5_000,
      );
      assert.equal(agentAfter.metadata.uid, agentBefore.metadata.uid, 'the same pod (not evicted)');
      const [b, a] = [
        agentBefore.status.containerStatuses[0],
        agentAfter.status.containerStatuses![0]!,
      ];
      process.stderr.write(
        `# agent container across the kubelet upgrade: ${b.containerID === a.containerID ? 'kept' : 'recreated'} ` +
          `(${b.containerID?.slice(0, 25)} → ${a.containerID?.slice(0, 25)}, restartCount ${b.restartCount} → ${a.restartCount})\n`,
      );

      // The script's own lines, from the executor's container log on the node (CRI log timestamps).
      const log = nodes.ssh(
        target,
        "cat /var/log/pods/kubemaint_*/executor/*.log 2>/dev/null | grep -o '^[^ ]* .*kubemaint-upgrade: [^\"\\\\]*' || true",
      );
      process.stderr.write(`# the script on ${target}:\n${log.replace(/^/gm, '#   ')}\n`);
      assert.match(log, new RegExp(`kubemaint-upgrade: done: v${to.slice(1)} installed`));

      const history = (
        JSON.parse(cluster.kubectl(['get', 'mr', '-n', 'kubemaint', done.id, '-o', 'json'])) as {
          status: { history: { to: string; at: string }[] };
        }
      ).status.history;
      const at = (state: string) => Date.parse(history.findLast((h) => h.to === state)?.at ?? '');
      const s = (a: number, b: number) => `${((b - a) / 1000).toFixed(0)} s`;
      // The proof can uncordon within one 3-s look after the new kubelet reports: then the first sight
      // of the new version is already schedulable.
      const newKubelet = seen.get(`${to} cordoned`) ?? seen.get(`${to} schedulable`) ?? NaN;
      // serve creates the Job in the tick that sees the second approval: 0 s is no artefact.
      const proof =
        at('done') - newKubelet < LOOK_MS ? 'within one 3-s look' : s(newKubelet, at('done'));
      process.stderr.write(
        `# phases of ${done.id}: approved → Job created ${s(at('approved'), at('running'))}, ` +
          `drain and upgrade command ${s(at('running'), at('verifying'))}, ` +
          `kubelet back as ${to} ${s(at('verifying'), newKubelet)}, proof and uncordon ${proof}, ` +
          `approval to uncordon ${s(at('approved'), at('done'))}\n`,
      );
    });

    // kubeadm leaves graceful shutdown off (guest.ts: the kubelet-config ConfigMap has no
    // shutdownGracePeriod), and so do many clusters: what a reboot then does to pods, and what
    // kubemaint says about it beforehand.
    it('with shutdownGracePeriod unset the agent reports 0s, and a reboot stops the pods without the kubelet: the same pod restarts', async () => {
      // What the agent read from the real kubelet's /configz and wrote on the node, as kubemaint
      // reads it for a prompt and `kubemaint status` (fleet-view.ts, preview.ts).
      const grace = readGracefulShutdown(node(target).metadata.annotations ?? {});
      assert.deepEqual(grace, { state: 'off', period: '0s', source: 'configz' });
      // So a reboot proposed for this node warns that its pods will not be stopped gracefully.
      assert.match(gracefulShutdownWarning(grace) ?? '', /pods will not be terminated gracefully/);
      // The kubelet holds no inhibitor: nothing delays systemd's stop of the units.
      assert.doesNotMatch(nodes.ssh(target, 'systemd-inhibit --list --no-pager'), /kubelet/i);

      const agentBefore = agentPod()!;
      const restartsBefore = agentBefore.status.containerStatuses?.[0]?.restartCount ?? 0;
      const boot = node(target).status.nodeInfo.bootID;
      const boots = nodes.kernelBoots(target);
      // In a second, so that ssh returns before the connection goes.
      nodes.ssh(target, 'systemd-run --on-active=1 systemctl reboot');
      const back = await poll(
        'the node back Ready from a new boot',
        () => {
          const now = node(target);
          const ready = now.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          return ready && now.status.nodeInfo.bootID !== boot ? now : undefined;
        },
        20 * MINUTE,
        5_000,
      );
      assert.equal(nodes.kernelBoots(target), boots + 1, 'one more kernel boot on the console');
      // Until the kubelet of the new boot has said what it did: right after the node is Ready the
      // pod can still show the last boot's status (ready, no restart), which a loaded CI machine
      // read once (session 21, test:node beside test:real: "restarted (0 → 0)"). A new pod says so at once.
      const agentAfter = await poll(
        "the agent's container running again, as the new boot's kubelet says",
        () => {
          const p = agentPod();
          const status = p?.status.containerStatuses?.[0];
          if (!p || !status?.ready) return undefined;
          const replaced = p.metadata.uid !== agentBefore.metadata.uid;
          return replaced || (status.restartCount ?? 0) > restartsBefore ? p : undefined;
        },
        10 * MINUTE,
        5_000,
      );
      // Without the kubelet's shutdown manager nobody marks the pod Failed, so the DaemonSet
      // controller does not replace it: the kubelet of the new boot restarts its container.
      assert.equal(agentAfter.metadata.uid, agentBefore.metadata.uid, 'the same pod');
      const after = agentAfter.status.containerStatuses![0]!;
      assert.ok(
        after.restartCount > restartsBefore,
        `restarted (${restartsBefore} → ${after.restartCount})`,
      );
      process.stderr.write(
        `# a reboot of ${target} with shutdownGracePeriod unset: bootID ${boot.slice(0, 8)} → ${back.status.nodeInfo.bootID.slice(0, 8)}, ` +
          `the agent's pod kept, restartCount ${restartsBefore} → ${after.restartCount}, last state ${JSON.stringify(after.lastState?.terminated ?? {})}\n`,
      );
    });
  },
);
