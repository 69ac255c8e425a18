/**
 * Hook Jobs on the real kube-apiserver (issue 18, ADR 0021), infra/k8s applied with the operator's
 * hook repository listed in kubemaint-hook-jobs. The hook Job kubemaint builds from a config is
 * admitted as serve creates it (unpinned and pinned to its node), and its pod runs as kubemaint-hook
 * without a token. Then serve's own token — the one identity that may create hook Jobs — tries to
 * make a hook Job into something else: privileged, the host's PID namespace or root path, the
 * executor's account, another node by name, every taint tolerated, the cordon of another node,
 * another image, no deadline, an executor Job relabelled as a hook. Each is refused with a message
 * that says why. Nobody else may create Jobs there at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  type V1Job,
} from '@kubernetes/client-node';
import { controlSettingsFromConfig } from '../../src/compose/control-settings.js';
import { parseConfig } from '../../src/config/parse.js';
import { buildExecutorJob } from '../../templates/executor-job.js';
import { applyAll, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';

const NS = 'kubemaint';
const NODE = 'hook-a';
const REPO = 'registry.example.com/ops/backup';

describe('hook Jobs on the real apiserver', { timeout: 180_000 }, () => {
  let cluster: RealCluster;
  let admin: KubeConfig;
  let serveJobs: BatchV1Api;

  /** infra/k8s as an operator using hooks applies it: their repository in hookRepositories. */
  const infra = () =>
    manifests(INFRA_K8S).map((o) => {
      if (o.kind !== 'ValidatingAdmissionPolicy' || o.metadata?.name !== 'kubemaint-hook-jobs')
        return o;
      const spec = (o as unknown as { spec: { variables: { name: string; expression: string }[] } })
        .spec;
      for (const v of spec.variables)
        if (v.name === 'hookRepositories') v.expression = `['${REPO}']`;
      return o;
    });

  const hookJob = (onNode: boolean, id = 'r-1a1a1a'): V1Job => {
    const parsed = parseConfig(
      [
        'cluster:',
        '  type: kubeconfig',
        'hooks:',
        '  beforeDrain:',
        `    container: {image: '${REPO}:1.2', args: [--dump]}`,
        '    timeout: 5m',
        `    onNode: ${onNode}`,
      ].join('\n'),
      'kubemaint.yaml',
    );
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const hook = controlSettingsFromConfig(parsed.config).hooks?.beforeDrain;
    return hook!.jobFor(NODE, id, 'reboot');
  };

  /** 'admitted', or the refusal's code and message. */
  const create = async (jobs: BatchV1Api, body: V1Job, dryRun = true) => {
    try {
      await jobs.createNamespacedJob({ namespace: NS, body, ...(dryRun ? { dryRun: 'All' } : {}) });
      return 'admitted';
    } catch (error) {
      if (!(error instanceof ApiException)) throw error;
      const text = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not JSON
      }
      return `${error.code}: ${message}`;
    }
  };
  const as = (kubeconfig: string) => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    return kc.makeApiClient(BatchV1Api);
  };

  before(async () => {
    cluster = await realCluster();
    admin = new KubeConfig();
    admin.loadFromFile(cluster.kubeconfig);
    await applyAll(admin, [
      ...infra(),
      { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } },
    ]);
    serveJobs = as(cluster.serviceAccountKubeconfig(NS, 'kubemaint-serve'));
    // Enforced once an unlisted image is refused (the policy informer takes a moment).
    const unlisted = hookJob(false);
    unlisted.spec!.template.spec!.containers[0]!.image = 'docker.io/library/busybox:1';
    for (let i = 0; (await create(serveJobs, unlisted)) === 'admitted'; i++) {
      if (i > 100) assert.fail('kubemaint-hook-jobs was never enforced');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => {
    await cleanKubemaint(admin, { nodes: [NODE] });
  });

  it('admits the hook Job kubemaint builds, as serve; its pod runs as kubemaint-hook with no token', async () => {
    assert.equal(await create(serveJobs, hookJob(true)), 'admitted');
    const job = hookJob(false, 'r-2b2b2b');
    assert.equal(await create(serveJobs, job, false), 'admitted');
    const core = admin.makeApiClient(CoreV1Api);
    for (let i = 0; ; i++) {
      const pod = (
        await core.listNamespacedPod({
          namespace: NS,
          labelSelector: `job-name=${job.metadata!.name!}`,
        })
      ).items[0];
      if (pod) {
        assert.equal(pod.spec?.serviceAccountName, 'kubemaint-hook');
        assert.ok(
          !(pod.spec?.volumes ?? []).some((v) =>
            v.projected?.sources?.some((s) => s.serviceAccountToken),
          ),
          'no service account token is mounted',
        );
        assert.equal(pod.spec?.containers[0]?.terminationMessagePolicy, 'FallbackToLogsOnError');
        break;
      }
      if (i > 100) assert.fail('the Job controller made no pod');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  const attacks: [string, (job: V1Job) => void, RegExp][] = [
    [
      'privileged',
      (job) => (job.spec!.template.spec!.containers[0]!.securityContext = { privileged: true }),
      /a hook container is not privileged/,
    ],
    [
      "the host's PID namespace",
      (job) => (job.spec!.template.spec!.hostPID = true),
      /shares no host namespace/,
    ],
    [
      "the host's root",
      (job) => {
        const pod = job.spec!.template.spec!;
        pod.volumes = [{ name: 'root', hostPath: { path: '/' } }];
        pod.containers[0]!.volumeMounts = [{ name: 'root', mountPath: '/host' }];
      },
      /never a host path/,
    ],
    [
      "the executor's account",
      (job) => (job.spec!.template.spec!.serviceAccountName = 'kubemaint-executor'),
      /runs as kubemaint-hook, never as the executor/,
    ],
    [
      'another image',
      (job) => (job.spec!.template.spec!.containers[0]!.image = 'docker.io/attacker/rootkit:1'),
      /hook image docker.io\/attacker\/rootkit:1 is not from this policy's hookRepositories \(registry.example.com\/ops\/backup\)/,
    ],
    [
      'another node by name',
      (job) => (job.spec!.template.spec!.nodeName = 'control-plane-1'),
      /names no node/,
    ],
    [
      'every taint tolerated',
      (job) => (job.spec!.template.spec!.tolerations = [{ operator: 'Exists' }]),
      /tolerates no taint, but the cordon of the node it is pinned to/,
    ],
    [
      'the cordon of another node',
      (job) =>
        (job.spec!.template.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms =
          [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['other-node'] }] }]),
      /pinned to by affinity \(hook-a\)/,
    ],
    ['no deadline', (job) => delete job.spec!.activeDeadlineSeconds, /has a deadline/],
  ];
  for (const [what, change, why] of attacks) {
    it(`refuses serve's token a hook Job with ${what}`, async () => {
      const job = structuredClone(hookJob(true));
      change(job);
      const answer = await create(serveJobs, job);
      assert.match(answer, /^403: /, what);
      assert.match(answer, why);
    });
  }

  it('refuses an executor Job relabelled as a hook, and leaves real executor Jobs to their own policy', async () => {
    const executor = buildExecutorJob({
      node: NODE,
      requestId: 'r-3c3c3c',
      namespace: NS,
      image: 'ghcr.io/kubemaint/kubemaint:0.1.0',
      serviceAccountName: 'kubemaint-executor',
      rebootMethod: 'command',
      activeDeadlineSeconds: 600,
      ttlSecondsAfterFinished: 600,
      settingsJson: '{}',
    });
    assert.equal(await create(serveJobs, executor), 'admitted');
    const laundered = structuredClone(executor);
    laundered.metadata!.labels = {
      ...laundered.metadata!.labels,
      'kubemaint.io/hook': 'before-drain',
    };
    // kube-apiserver names the first rule that failed: the account comes first.
    assert.match(
      await create(serveJobs, laundered),
      /^403: .*kubemaint-hook-jobs.*runs as kubemaint-hook, never as the executor/,
    );
  });

  it('lets no one else create a Job in kubemaint (RBAC), hook or not', async () => {
    const alice = as(cluster.userKubeconfig('alice', ['sre']));
    assert.match(await create(alice, hookJob(false)), /^403: .*cannot create resource "jobs"/);
  });
});
