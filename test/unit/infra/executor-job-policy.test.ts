/**
 * `kubemaint-jobs-of-the-executors-shape` and the executor's scheduling settings: the Job kubemaint
 * builds from any valid `executor.resources` is admitted (the config's bounds are the policy's), and
 * a stolen control-plane token cannot give it another priority class, GPUs, claims or more than
 * 4 cores / 4Gi. Judged with the sim's CEL here; test/real/kured-parity.test.ts asks kube-apiserver.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig } from '../../../src/compose/control-settings.js';
import { parseConfig } from '../../../src/config/parse.js';
import { judge, policyIn } from '../../support/admission-policy.js';

const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';

const policy = policyIn(
  'infra/k8s/admission-requests.yaml',
  'kubemaint-jobs-of-the-executors-shape',
);

type Job = {
  metadata: { name: string };
  spec: {
    template: {
      spec: {
        priorityClassName?: string;
        containers: { resources?: Record<string, unknown> }[];
      };
    };
  };
};

/** The Job kubemaint builds from this executor: section. */
function jobOf(executor: string): Job {
  const parsed = parseConfig(`executor:\n${executor}`, 'k.yaml');
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return controlSettingsFromConfig(parsed.config).jobFor('node-1', 'r-abcdef', 'reboot') as Job;
}

const create = (job: Job) =>
  judge(policy.spec, {
    operation: 'CREATE',
    group: 'batch',
    resource: 'jobs',
    name: job.metadata.name,
    namespace: 'kubemaint',
    user: { username: SERVE },
    object: JSON.parse(JSON.stringify(job)),
  });

describe('the executor Job shape policy and executor.resources / priorityClassName', () => {
  const admitted: [string, string][] = [
    ['the defaults', '  image: ghcr.io/kubemaint/kubemaint:0.1.0\n'],
    [
      'the largest resources the config takes',
      '  image: ghcr.io/kubemaint/kubemaint:0.1.0\n  resources:\n    requests: {cpu: 4, memory: 4Gi}\n    limits: {cpu: 4000m, memory: 4096Mi}\n',
    ],
    [
      'fractions written back as the apiserver does',
      '  image: ghcr.io/kubemaint/kubemaint:0.1.0\n  resources:\n    requests: {cpu: 0.25, memory: 1536Mi}\n    limits: {cpu: 3999m, memory: 3Gi}\n',
    ],
    [
      'no priority class',
      '  image: ghcr.io/kubemaint/kubemaint:0.1.0\n  priorityClassName: ""\n  imagePullPolicy: Always\n',
    ],
  ];
  for (const [name, executor] of admitted) {
    it(`admits ${name}`, () => assert.deepEqual(create(jobOf(executor)), []));
  }

  const image = '  image: ghcr.io/kubemaint/kubemaint:0.1.0\n';
  const refused: [string, (job: Job) => void, RegExp][] = [
    [
      'another priority class',
      (job) => (job.spec.template.spec.priorityClassName = 'preempt-everything'),
      /runs with priority class system-node-critical \(or none\), not preempt-everything/,
    ],
    [
      'GPUs',
      (job) =>
        (job.spec.template.spec.containers[0]!.resources = {
          limits: { memory: '256Mi', 'nvidia.com/gpu': '1' },
        }),
      /CPU and memory only/,
    ],
    [
      'more than 4 cores',
      (job) => (job.spec.template.spec.containers[0]!.resources = { requests: { cpu: '5' } }),
      /at most 4 cores and 4Gi/,
    ],
    [
      'more than 4000m',
      (job) => (job.spec.template.spec.containers[0]!.resources = { limits: { cpu: '4500m' } }),
      /at most 4 cores and 4Gi/,
    ],
    [
      'more than 4Gi',
      (job) => (job.spec.template.spec.containers[0]!.resources = { limits: { memory: '5000Mi' } }),
      /at most 4 cores and 4Gi/,
    ],
    [
      'memory in other units',
      (job) => (job.spec.template.spec.containers[0]!.resources = { limits: { memory: '64G' } }),
      /at most 4 cores and 4Gi/,
    ],
    [
      'resource claims',
      (job) =>
        (job.spec.template.spec.containers[0]!.resources = {
          limits: { memory: '256Mi' },
          claims: [{ name: 'gpu' }],
        }),
      /no claims/,
    ],
  ];
  for (const [name, change, message] of refused) {
    it(`refuses ${name}`, () => {
      const job = structuredClone(jobOf(image));
      change(job);
      assert.match(String(create(job)), message);
    });
  }
});
