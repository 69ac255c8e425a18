/**
 * What a real node does that a simulated one cannot show, after reboot.test.ts has rebooted it once:
 * - a reboot that systemd refuses: a block inhibitor held on the host (a backup, say) and the reboot
 *   command `systemctl reboot --check-inhibitors=yes`, the way a user asks systemd 252 (Debian 12) to
 *   honour block inhibitors for root (257 and later do so by default). The executor's container runs it
 *   through nsenter, systemctl refuses, and the request fails at once with systemd's reason naming the
 *   holder, not after reboot.nodeTimeout as a slow reboot would; the node is given back and never rebooted.
 * - a kubelet restarted while the apiserver is unreachable from its node (a blackhole route to the
 *   apiserver's guest address): the control plane sees the node go Unknown and taints it, the restarted
 *   kubelet cannot reach the apiserver, yet every container keeps running (the kubelet does not remove
 *   pods before its apiserver source has been seen); when the route comes back the node is Ready with the
 *   same pods, the same containers and no restart.
 * Run by `npm run test:node` (scripts/real-node/test.ts), after reboot.test.ts and before upgrade.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { realCluster, type RealCluster } from '../support/real-cluster.js';
import {
  installKubemaint,
  nodeImages,
  nodeJson,
  podsJson,
  poll,
  realNodes,
  startServe,
  type KubemaintServe,
  type RealNodes,
} from '../support/real-nodes.js';
import { APISERVER_GUEST_ADDRESS } from '../../scripts/real-node/guest.js';

const MINUTE = 60_000;
const HOLD_UNIT = 'kubemaint-test-backup-hold';

interface RequestJson {
  metadata: { name: string };
  spec: { node: string; action: string };
  status?: { state?: string; failure?: string };
}

describe(
  'a real node: a reboot systemd refuses, a kubelet restart cut off from the apiserver',
  {
    timeout: 40 * MINUTE,
  },
  () => {
    let cluster: RealCluster;
    let nodes: RealNodes;
    let target: string;
    let kubemaint: KubemaintServe | undefined;

    const node = (name: string) => nodeJson(cluster, name);
    const requests = (): RequestJson[] =>
      (
        JSON.parse(cluster.kubectl(['get', 'mr', '-n', 'kubemaint', '-o', 'json'])) as {
          items: RequestJson[];
        }
      ).items.filter((r) => r.spec.node === target && r.spec.action === 'reboot');
    const ready = (name: string) =>
      node(name).status.conditions?.find((c) => c.type === 'Ready')?.status;

    before(async () => {
      cluster = await realCluster();
      nodes = realNodes();
      target = nodes.nodes[0]!.name;
      // reboot.test.ts's shop keeps two replicas under a PDB; its pods are on the other node once
      // that test has passed, but a drain here must not hang on them if it has not.
      cluster.kubectl(['delete', 'poddisruptionbudget', 'web', '-n', 'shop', '--ignore-not-found']);
      const images = nodeImages();
      installKubemaint(cluster, images.agent);
      kubemaint = await startServe(
        cluster,
        images.cli,
        // --check-inhibitors=yes: systemd 252 lets root reboot past block inhibitors unless asked.
        'kubelet:\n  enabled: false\nreboot:\n  command: [systemctl, reboot, --check-inhibitors=yes]\n',
      );
    });

    after(async () => {
      await kubemaint?.stop();
      nodes?.sshCode(target, `systemctl stop ${HOLD_UNIT}; rm -f /var/run/reboot-required`);
    });

    it('a block inhibitor refuses the executor’s reboot: the request fails with systemd’s reason, the node is given back, not rebooted', async () => {
      const bootBefore = node(target).status.nodeInfo.bootID;
      const bootsBefore = nodes.kernelBoots(target);
      const ended = new Set(requests().map((r) => r.metadata.name));
      // A backup holds shutdown in block mode, as `systemd-inhibit` does for any long job.
      nodes.ssh(
        target,
        `systemd-run --unit=${HOLD_UNIT} systemd-inhibit --what=shutdown --mode=block --who=backup --why='nightly backup running' sleep infinity`,
      );
      await poll(
        'the block inhibitor held',
        () =>
          /backup.*shutdown.*block/i.test(nodes.ssh(target, 'systemd-inhibit --list --no-pager')),
        MINUTE,
      );
      nodes.ssh(target, "printf '*** System restart required ***\\n' > /var/run/reboot-required");
      const proposed = await poll(
        'the proposal',
        () => requests().find((r) => !ended.has(r.metadata.name) && r.status?.state === 'proposed'),
        10 * MINUTE,
        5_000,
      );
      const id = proposed.metadata.name;
      for (const person of ['alice', 'bob'] as const) await kubemaint!.cli(person, ['approve', id]);
      const failed = await poll(
        'the request ended',
        () => {
          const r = requests().find((q) => q.metadata.name === id);
          return r?.status?.state === 'failed' || r?.status?.state === 'done' ? r : undefined;
        },
        20 * MINUTE,
        5_000,
      );
      assert.equal(failed.status?.state, 'failed', JSON.stringify(failed.status));
      assert.match(
        failed.status?.failure ?? '',
        /systemd refused the reboot: a block inhibitor on shutdown is held \("backup" holds it: nightly backup running\)/,
      );
      assert.match(failed.status?.failure ?? '', /node uncordoned/);
      const now = node(target);
      assert.equal(now.status.nodeInfo.bootID, bootBefore, 'not rebooted');
      assert.equal(nodes.kernelBoots(target), bootsBefore, 'no kernel boot on the console');
      assert.notEqual(now.spec?.unschedulable, true, 'given back');
      // The executor records the node's Event after it ends the request: a moment later under TCG.
      await poll(
        'a KubemaintRebootRefused event on the node',
        () =>
          cluster
            .kubectl([
              'get',
              'events',
              '-n',
              'default',
              '--field-selector',
              `involvedObject.name=${target},reason=KubemaintRebootRefused`,
              '-o',
              'name',
            ])
            .trim() !== '',
        2 * MINUTE,
        5_000,
      );
      // Given back for good: nothing is left to propose the same reboot again under this test.
      await kubemaint?.stop();
      kubemaint = undefined;
      nodes.ssh(target, `systemctl stop ${HOLD_UNIT}; rm -f /var/run/reboot-required`);
      await poll(
        'the agent clears its mark',
        () => node(target).metadata.labels?.['kubemaint.io/reboot-required'] === undefined,
        5 * MINUTE,
      );
    });

    it('a kubelet restarted while its apiserver is unreachable keeps every container; the node comes back Ready with the same pods', async () => {
      cluster.kubectl(['create', 'namespace', 'partition']);
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'steady', namespace: 'partition' },
          spec: {
            nodeSelector: { 'kubernetes.io/hostname': target },
            terminationGracePeriodSeconds: 5,
            containers: [
              { name: 'steady', image: 'kubemaint.local/pause:1', imagePullPolicy: 'Never' },
            ],
          },
        }),
      });
      const running = (p: ReturnType<typeof podsJson>[number] | undefined) =>
        p?.status.containerStatuses?.[0]?.ready ? p : undefined;
      const before = await poll(
        'the pinned pod running',
        () => running(podsJson(cluster, 'partition').find((p) => p.metadata.name === 'steady')),
        10 * MINUTE,
        5_000,
      );
      const containerId = before.status.containerStatuses![0]!.containerID!.replace(
        /^containerd:\/\//,
        '',
      );
      const bootID = node(target).status.nodeInfo.bootID;

      nodes.ssh(target, `ip route add blackhole ${APISERVER_GUEST_ADDRESS}/32`);
      try {
        await poll(
          'the node seen as Unknown',
          () => ready(target) === 'Unknown',
          5 * MINUTE,
          3_000,
        );
        nodes.ssh(target, 'systemctl restart kubelet');
        // The kubelet runs again, still cut off: it has not seen its apiserver source, so it keeps
        // the containers it finds instead of removing pods it was not told about.
        await poll(
          'the restarted kubelet active',
          () => nodes.sshCode(target, 'systemctl is-active --quiet kubelet') === 0,
          2 * MINUTE,
        );
        await new Promise((resolve) => setTimeout(resolve, 30_000));
        assert.equal(nodes.sshCode(target, 'systemctl is-active --quiet kubelet'), 0, 'kubelet up');
        const tasks = nodes.ssh(target, 'ctr -n k8s.io tasks ls');
        assert.match(tasks, new RegExp(`${containerId}\\s+\\d+\\s+RUNNING`), tasks);
        const taints = (node(target).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`);
        assert.ok(
          taints.includes('node.kubernetes.io/unreachable:NoExecute'),
          `the unreachable NoExecute taint (${taints.join(', ')})`,
        );
        process.stderr.write(`# taints while cut off: ${taints.join(', ')}\n`);
      } finally {
        nodes.sshCode(target, `ip route del blackhole ${APISERVER_GUEST_ADDRESS}/32`);
      }
      await poll('the node Ready again', () => ready(target) === 'True', 5 * MINUTE, 3_000);
      const after = await poll(
        'the pinned pod ready again',
        () => running(podsJson(cluster, 'partition').find((p) => p.metadata.name === 'steady')),
        5 * MINUTE,
        3_000,
      );
      assert.equal(
        after.metadata.uid,
        before.metadata.uid,
        'the same pod: not evicted (300 s toleration)',
      );
      const status = after.status.containerStatuses![0]!;
      assert.equal(status.restartCount, 0, 'its container never restarted');
      assert.equal(status.containerID, before.status.containerStatuses![0]!.containerID);
      assert.equal(node(target).status.nodeInfo.bootID, bootID, 'no reboot');
      await poll(
        'the unreachable taint gone',
        () =>
          !(node(target).spec?.taints ?? []).some((t) => t.key.startsWith('node.kubernetes.io/')),
        3 * MINUTE,
        3_000,
      );
      cluster.kubectl(['delete', 'namespace', 'partition', '--wait=false']);
    });
  },
);
