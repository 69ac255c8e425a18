/**
 * admission-hooks.yaml judged with the sim's CEL (ADR 0021): the hook Job the control plane builds
 * is admitted once its image's repository is listed, and every way of making a hook Job into
 * something else — privileged, host namespaces or paths, another account, another image, another
 * node, taints, no deadline — is refused with a message that says what. The executor-shaped policy
 * leaves hook Jobs to this one, and this one does not let a hook label launder an executor Job.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { buildHookJob } from '../../../templates/hook-job.js';
import { buildExecutorJob } from '../../../templates/executor-job.js';
import { judge, type PolicySpec } from '../../support/admission-policy.js';

const NS = 'kubemaint';
const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';
const REPO = 'registry.example.com/ops/backup';

const policyIn = (file: string, name: string): PolicySpec =>
  parseAllDocuments(readFileSync(`infra/k8s/${file}`, 'utf8'))
    .map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: PolicySpec })
    .find((d) => d.kind === 'ValidatingAdmissionPolicy' && d.metadata.name === name)!.spec;

const shipped = policyIn('admission-hooks.yaml', 'kubemaint-hook-jobs');
/** The policy as an operator using hooks edits it: their repository listed. */
const listed: PolicySpec = {
  ...shipped,
  variables: shipped.variables!.map((v) =>
    v.name === 'hookRepositories' ? { ...v, expression: `['${REPO}']` } : v,
  ),
};
const executorShape = policyIn('admission-requests.yaml', 'kubemaint-jobs-of-the-executors-shape');

const hookJob = (onNode = false): V1Job =>
  buildHookJob({
    node: 'node-1',
    requestId: 'r-abc123',
    action: 'reboot',
    phase: 'beforeDrain',
    namespace: NS,
    template: {
      spec: { containers: [{ name: 'hook', image: `${REPO}:1.2`, args: ['--dump', '/backup'] }] },
    },
    timeoutSeconds: 600,
    ttlSecondsAfterFinished: 3_600,
    onNode,
  });

const create = (policy: PolicySpec, job: unknown, username = SERVE) =>
  judge(policy, {
    operation: 'CREATE',
    group: 'batch',
    resource: 'jobs',
    namespace: NS,
    user: { username, groups: ['system:serviceaccounts'] },
    object: job,
  });

/** The hook Job with its pod spec changed by `change` (what an attacker would send). */
function tampered(change: (pod: Record<string, unknown>, job: Record<string, unknown>) => void) {
  const job = structuredClone(hookJob(true)) as unknown as Record<string, unknown>;
  const spec = job['spec'] as { template: { spec: Record<string, unknown> } };
  change(spec.template.spec, job);
  return job;
}
const container = (pod: Record<string, unknown>) =>
  (pod['containers'] as Record<string, unknown>[])[0]!;

describe('admission-hooks.yaml: what a hook Job may be', () => {
  it('admits the hook Job kubemaint builds, unpinned or pinned to its node, once its repository is listed', () => {
    assert.deepEqual(create(listed, hookJob(false)), []);
    assert.deepEqual(create(listed, hookJob(true)), []);
    assert.equal(create(listed, hookJob(), 'alice'), 'skipped');
  });

  it('admits no hook until its repository is listed, and says where to list it', () => {
    assert.deepEqual(create(shipped, hookJob()), [
      `hook image ${REPO}:1.2 is not from this policy's hookRepositories (): add its repository there`,
    ]);
  });

  const attacks: { what: string; change: Parameters<typeof tampered>[0]; refusal: RegExp }[] = [
    {
      what: 'a privileged container',
      change: (pod) => (container(pod)['securityContext'] = { privileged: true }),
      refusal: /a hook container is not privileged/,
    },
    {
      what: 'privilege escalation',
      change: (pod) => (container(pod)['securityContext'] = { allowPrivilegeEscalation: true }),
      refusal: /cannot escalate/,
    },
    {
      what: 'an added capability',
      change: (pod) =>
        (container(pod)['securityContext'] = { capabilities: { add: ['SYS_ADMIN'] } }),
      refusal: /adds no capabilities/,
    },
    {
      what: 'a privileged init container',
      change: (pod) =>
        (pod['initContainers'] = [
          { name: 'x', image: `${REPO}:1.2`, securityContext: { privileged: true } },
        ]),
      refusal: /a hook container is not privileged/,
    },
    {
      what: "the host's PID namespace (nsenter into PID 1)",
      change: (pod) => (pod['hostPID'] = true),
      refusal: /shares no host namespace/,
    },
    {
      what: "the host's network",
      change: (pod) => (pod['hostNetwork'] = true),
      refusal: /shares no host namespace/,
    },
    {
      what: 'a host path',
      change: (pod) => (pod['volumes'] = [{ name: 'root', hostPath: { path: '/' } }]),
      refusal: /never a host path/,
    },
    {
      what: 'a host port',
      change: (pod) => (container(pod)['ports'] = [{ containerPort: 22, hostPort: 22 }]),
      refusal: /opens no host port/,
    },
    {
      what: 'an unconfined seccomp profile',
      change: (pod) => (pod['securityContext'] = { seccompProfile: { type: 'Unconfined' } }),
      refusal: /keeps the default seccomp/,
    },
    {
      what: "the executor's account (node patch, evictions, request status)",
      change: (pod) => (pod['serviceAccountName'] = 'kubemaint-executor'),
      refusal: /runs as kubemaint-hook, never as the executor/,
    },
    {
      what: "serve's account",
      change: (pod) => (pod['serviceAccountName'] = 'kubemaint-serve'),
      refusal: /runs as kubemaint-hook/,
    },
    {
      what: 'another image',
      change: (pod) => (container(pod)['image'] = 'docker.io/attacker/rootkit:1'),
      refusal:
        /hook image docker.io\/attacker\/rootkit:1 is not from this policy's hookRepositories/,
    },
    {
      what: 'an image that only starts like a listed repository',
      change: (pod) => (container(pod)['image'] = `${REPO}-evil:1`),
      refusal: /is not from this policy's hookRepositories/,
    },
    {
      what: 'another node by name (around the scheduler and its taints)',
      change: (pod) => (pod['nodeName'] = 'control-plane-1'),
      refusal: /names no node/,
    },
    {
      what: 'every taint tolerated (onto control-plane nodes)',
      change: (pod) => (pod['tolerations'] = [{ operator: 'Exists' }]),
      refusal: /tolerates no taint, but the cordon of the node it is pinned to/,
    },
    {
      what: 'the cordon tolerated on another node',
      change: (pod) =>
        ((pod['affinity'] as { nodeAffinity: unknown }).nodeAffinity = {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-9'] }] },
            ],
          },
        }),
      refusal: /pinned to by affinity \(node-1\)/,
    },
    {
      what: 'the cordon tolerated without being pinned',
      change: (pod) => delete pod['affinity'],
      refusal: /pinned to by affinity/,
    },
    {
      what: 'no deadline',
      change: (_pod, job) =>
        delete (job['spec'] as Record<string, unknown>)['activeDeadlineSeconds'],
      refusal: /has a deadline/,
    },
  ];
  for (const a of attacks) {
    it(`refuses ${a.what}`, () => {
      const verdict = create(listed, tampered(a.change));
      assert.ok(Array.isArray(verdict) && verdict.length > 0, `admitted: ${a.what}`);
      assert.ok(
        verdict.some((m) => a.refusal.test(m)),
        `${a.what}: ${JSON.stringify(verdict)}`,
      );
    });
  }
});

describe('the two Job policies between them', () => {
  const executorJob = buildExecutorJob({
    node: 'node-1',
    requestId: 'r-abc123',
    namespace: NS,
    image: 'ghcr.io/kubemaint/kubemaint:0.1.0',
    serviceAccountName: 'kubemaint-executor',
    rebootMethod: 'command',
    activeDeadlineSeconds: 3_600,
    ttlSecondsAfterFinished: 3_600,
    settingsJson: '{}',
  });

  it('leave the hook Job to the hook policy and the executor Job to the executor policy', () => {
    assert.equal(create(executorShape, hookJob()), 'skipped');
    assert.equal(create(listed, executorJob), 'skipped');
    assert.deepEqual(create(executorShape, executorJob), []);
  });

  it('do not let a hook label launder an executor Job (privileged, hostPID, its account)', () => {
    const laundered = structuredClone<V1Job>(executorJob);
    laundered.metadata!.labels = {
      ...laundered.metadata!.labels,
      'kubemaint.io/hook': 'before-drain',
    };
    const verdict = create(listed, laundered);
    assert.ok(Array.isArray(verdict));
    for (const refusal of [
      /runs as kubemaint-hook/,
      /not privileged/,
      /shares no host namespace/,
      /names no node/,
    ]) {
      assert.ok(
        verdict.some((m) => refusal.test(m)),
        `${refusal}: ${JSON.stringify(verdict)}`,
      );
    }
  });

  it('judge only the control plane: a person’s Jobs are their RBAC’s business', () => {
    assert.equal(
      create(
        listed,
        tampered((pod) => (pod['hostPID'] = true)),
        'alice',
      ),
      'skipped',
    );
  });
});
