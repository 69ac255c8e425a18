/**
 * Issue 18's kured parity on the real kube-apiserver with infra/k8s applied, each write by the
 * identity that makes it in production:
 * - the waiting taint: serve's token, through kubemaint's own adapter and its tick, puts
 *   `<key>:PreferNoSchedule` on a node whose request waits and takes it away when the request ends,
 *   beside a person's taint; the same token may not cordon or add a NoExecute taint, and the agent's
 *   may not taint at all (kubemaint-control-plane-node-writes, kubemaint-agent-own-node-only);
 * - the executor Job with `system-node-critical`, a pull policy and resources is admitted, and its
 *   pod gets the class's priority; another class, another image, GPUs or more than 4 cores / 4Gi
 *   are refused (kubemaint-jobs-of-the-executors-shape);
 * - `slot.ttl: 0`: the executor's token writes a slot Lease without a duration, which the apiserver
 *   keeps so and kubemaint reads as never expiring.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiException, BatchV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { controlCluster } from '../../src/adapters/kube/control-cluster.js';
import { createLease, getLease } from '../../src/adapters/kube/leases.js';
import { isExpired } from '../../src/app/executor/slots.js';
import { requestMaintenance } from '../../src/app/control/commands.js';
import { runTick } from '../../src/app/control/tick.js';
import { openControl, type ControlRuntime } from '../../src/compose.js';
import { controlSettingsFromConfig } from '../../src/compose/control-settings.js';
import { parseConfig } from '../../src/config/parse.js';
import { silentLogger } from '../../src/log.js';
import { applyAll, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { INFRA_K8S, realCluster, refusal, type RealCluster } from '../support/real-cluster.js';

const NS = 'kubemaint';
const NODE = 'parity-a';
const AGENT_POD = 'parity-agent';
const SLOT = 'kubemaint-slot-7';
const KEY = 'kubemaint.io/waiting-for-maintenance';
const PERSONS_TAINT = { key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' };
const alice = { kind: 'person', id: 'k8s:alice' } as const;

describe('kured parity on the real apiserver', { timeout: 180_000 }, () => {
  let cluster: RealCluster;
  let admin: KubeConfig;
  let serve: string;
  let control: ControlRuntime;

  const configText = (extra: string) =>
    [
      'cluster:',
      '  type: kubeconfig',
      'approval:',
      '  approvers:',
      '    kubernetes:',
      '      users: [alice, bob]',
      // Short, so a tick ends the waiting request as serve would after 72 h.
      '  expiry: 2s',
      'waitingTaint:',
      '  enabled: true',
      extra,
    ].join('\n');
  // The node lifecycle controller's own (node.kubernetes.io/unreachable: this Node has no kubelet)
  // come and go as it pleases; kubemaint's writes keep them, as they keep the person's.
  const taints = async () =>
    ((await admin.makeApiClient(CoreV1Api).readNode({ name: NODE })).spec?.taints ?? [])
      .filter((t) => !t.key.startsWith('node.kubernetes.io/'))
      .map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);

  before(async () => {
    cluster = await realCluster();
    admin = new KubeConfig();
    admin.loadFromFile(cluster.kubeconfig);
    await applyAll(admin, manifests(INFRA_K8S));
    await applyAll(admin, [
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: NODE },
        spec: { taints: [PERSONS_TAINT] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: AGENT_POD, namespace: NS },
        spec: {
          nodeName: NODE,
          serviceAccountName: 'kubemaint-agent',
          containers: [{ name: 'agent', image: 'kubemaint-agent:0.1.0' }],
        },
      },
    ]);
    serve = cluster.serviceAccountKubeconfig(NS, 'kubemaint-serve');
    const parsed = parseConfig(configText(''), 'kubemaint.yaml');
    assert.ok(parsed.ok, JSON.stringify(parsed));
    control = await openControl(parsed.config, { log: silentLogger(), kubeconfigPath: serve });
    // The policies are enforced once serve's token is refused a cordon (a dry run changes nothing).
    for (let i = 0; ; i++) {
      try {
        cluster.kubectl(
          ['patch', 'node', NODE, '--dry-run=server', '-p', '{"spec":{"unschedulable":true}}'],
          { kubeconfig: serve },
        );
      } catch {
        break;
      }
      if (i > 100) assert.fail('infra/k8s admission policies were never enforced');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => {
    await control?.close();
    await cleanKubemaint(admin, { nodes: [NODE], pods: [AGENT_POD] });
  });

  describe('the waiting taint', () => {
    it('serve taints a node whose request waits and untaints it when the request ends', async () => {
      const deps = control.deps;
      const asked = await requestMaintenance(deps, { node: NODE, action: 'reboot', by: alice });
      assert.ok(asked.ok, asked.message);
      assert.deepEqual(await taints(), [
        'example.com/gpu=true:NoSchedule',
        `${KEY}:PreferNoSchedule`,
      ]);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const report = await runTick(deps);
      assert.ok(
        report.reconciled.some((line) => line.startsWith(`${NODE}: expired`)),
        report.reconciled.join('; '),
      );
      assert.deepEqual(await taints(), ['example.com/gpu=true:NoSchedule']);
    });

    it("a skew scan as serve removes a taint left behind, and the person's taint stays", async () => {
      await controlCluster(createKubeClient(admin), {
        namespace: NS,
        now: () => new Date(),
      }).setWaitingTaint(NODE, KEY, true);
      const report = await runTick(control.deps, { skewScan: true });
      assert.ok(
        report.taints?.includes(`${NODE}: waiting taint removed (its request is expired)`),
        JSON.stringify(report.taints),
      );
      assert.deepEqual(await taints(), ['example.com/gpu=true:NoSchedule']);
    });

    it('serve may not cordon, nor add or remove NoSchedule/NoExecute taints', () => {
      const patch = (body: object) =>
        refusal(() =>
          cluster.kubectl(['patch', 'node', NODE, '-p', JSON.stringify(body)], {
            kubeconfig: serve,
          }),
        );
      assert.match(
        patch({ spec: { unschedulable: true } }),
        /may uncordon a node but never cordon/,
      );
      assert.match(
        refusal(() =>
          cluster.kubectl(['taint', 'node', NODE, 'evict=now:NoExecute'], { kubeconfig: serve }),
        ),
        /may add or remove only PreferNoSchedule taints/,
      );
      assert.match(
        refusal(() =>
          cluster.kubectl(['taint', 'node', NODE, 'example.com/gpu-'], { kubeconfig: serve }),
        ),
        /may add or remove only PreferNoSchedule taints/,
      );
    });

    it("the agent's token may not taint its own node", () => {
      const agent = cluster.serviceAccountKubeconfig(NS, 'kubemaint-agent', AGENT_POD);
      assert.match(
        refusal(() =>
          cluster.kubectl(['taint', 'node', NODE, `${KEY}=x:PreferNoSchedule`], {
            kubeconfig: agent,
          }),
        ),
        /may not change a Node's spec/,
      );
    });
  });

  describe('the executor Job', () => {
    type Job = ReturnType<typeof jobOf>;
    const jobOf = (executor: string, id = 'r-0b0b0b') => {
      const parsed = parseConfig(
        configText(`executor:\n  image: ghcr.io/kubemaint/kubemaint:0.1.0\n${executor}`),
        'kubemaint.yaml',
      );
      assert.ok(parsed.ok, JSON.stringify(parsed));
      return controlSettingsFromConfig(parsed.config).jobFor(NODE, id, 'reboot') as {
        metadata: { name: string };
        spec: {
          template: {
            spec: {
              priorityClassName?: string;
              containers: { image: string; resources?: Record<string, unknown> }[];
            };
          };
        };
      };
    };
    const create = async (job: Job, dryRun = true) => {
      const jobs = (() => {
        const config = new KubeConfig();
        config.loadFromFile(serve);
        return config.makeApiClient(BatchV1Api);
      })();
      try {
        await jobs.createNamespacedJob({
          namespace: NS,
          body: job as never,
          ...(dryRun ? { dryRun: 'All' } : {}),
        });
        return 'admitted';
      } catch (error) {
        if (!(error instanceof ApiException)) throw error;
        return `${error.code}: ${String(error.body)}`;
      }
    };

    it('is admitted with system-node-critical, a pull policy and resources; its pod gets the priority', async () => {
      const job = jobOf(
        '  imagePullPolicy: IfNotPresent\n  resources:\n    requests: {cpu: 100m, memory: 1024Mi}\n    limits: {cpu: 2, memory: 4Gi}\n',
        'r-0c0c0c',
      );
      assert.equal(job.spec.template.spec.priorityClassName, 'system-node-critical');
      assert.equal(await create(job, false), 'admitted');
      const core = admin.makeApiClient(CoreV1Api);
      for (let i = 0; ; i++) {
        const pods = await core.listNamespacedPod({
          namespace: NS,
          labelSelector: 'kubemaint.io/request=r-0c0c0c',
        });
        const pod = pods.items[0];
        if (pod) {
          assert.equal(pod.spec?.priorityClassName, 'system-node-critical');
          assert.equal(pod.spec?.priority, 2_000_001_000);
          assert.deepEqual(JSON.parse(JSON.stringify(pod.spec?.containers[0]?.resources)), {
            requests: { cpu: '100m', memory: '1Gi' },
            limits: { cpu: '2', memory: '4Gi' },
          });
          break;
        }
        if (i > 100) assert.fail('the Job controller made no pod');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });

    it('is admitted without a priority class, and with quantities the apiserver rewrites', async () => {
      assert.equal(await create(jobOf('  priorityClassName: ""\n')), 'admitted');
      const job = structuredClone(jobOf(''));
      // Written back as 4Gi and 2 before admission reads them.
      job.spec.template.spec.containers[0]!.resources = {
        limits: { cpu: '2000m', memory: '4096Mi' },
      };
      assert.equal(await create(job), 'admitted');
    });

    const refused: [string, (job: Job) => void, RegExp][] = [
      [
        'another priority class',
        (job) => (job.spec.template.spec.priorityClassName = 'system-cluster-critical'),
        /runs with priority class system-node-critical \(or none\), not system-cluster-critical/,
      ],
      [
        'another image',
        (job) => (job.spec.template.spec.containers[0]!.image = 'docker.io/attacker/miner:1'),
        /is not one of ghcr.io\/kubemaint\/kubemaint/,
      ],
      [
        'a GPU',
        (job) =>
          (job.spec.template.spec.containers[0]!.resources = {
            limits: { memory: '256Mi', 'nvidia.com/gpu': '1' },
          }),
        /CPU and memory only/,
      ],
      [
        'more than 4Gi',
        (job) =>
          (job.spec.template.spec.containers[0]!.resources = { limits: { memory: '4097Mi' } }),
        /at most 4 cores and 4Gi/,
      ],
      [
        'more than 4 cores',
        (job) => (job.spec.template.spec.containers[0]!.resources = { requests: { cpu: '4500m' } }),
        /at most 4 cores and 4Gi/,
      ],
    ];
    for (const [what, change, why] of refused) {
      it(`with ${what} is refused`, async () => {
        const job = structuredClone(jobOf(''));
        change(job);
        const answer = await create(job);
        assert.match(answer, /^403: /, answer);
        assert.match(answer, why);
      });
    }
  });

  it('slot.ttl: 0 writes a slot Lease without a duration, which never expires', async () => {
    const executor = new KubeConfig();
    executor.loadFromFile(cluster.serviceAccountKubeconfig(NS, 'kubemaint-executor'));
    const client = createKubeClient(executor);
    const long = new Date(Date.now() - 400 * 86_400_000);
    // A slot of its own: another suite's run may have left kubemaint-slot-0 behind.
    cluster.kubectl(['delete', 'lease', SLOT, '-n', NS, '--ignore-not-found']);
    await createLease(client, NS, SLOT, {
      holder: `${NODE}/r-0d0d0d`,
      durationSeconds: 0,
      acquiredAt: long,
      renewedAt: long,
      transitions: 0,
    });
    const raw = JSON.parse(cluster.kubectl(['get', 'lease', SLOT, '-n', NS, '-o', 'json'])) as {
      spec: Record<string, unknown>;
    };
    assert.equal(raw.spec['leaseDurationSeconds'], undefined);
    const read = await getLease(client, NS, SLOT);
    assert.equal(read?.durationSeconds, 0);
    assert.equal(isExpired(read, new Date()), false, 'renewed 400 days ago, still held');
  });
});
