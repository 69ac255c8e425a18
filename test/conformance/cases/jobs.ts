/**
 * A Job shaped like kubemaint's executor (backoffLimit 0, restartPolicy Never, pinned to a node): the
 * apiserver's generated selector and pod labels, the pod the Job controller creates for it (owned by
 * the Job), and how the Job ends when the pod succeeds or fails — the kubelet's part played here.
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  conditionsOf,
  fakeNode,
  field,
  markFinished,
  markRunning,
  meta,
  objectWhen,
  podPath,
} from '../fixtures.js';

type Obj = Record<string, unknown>;

async function startJob(b: Backend, extraSpec: Obj = {}) {
  const ns = await b.namespace();
  const node = await fakeNode(b);
  const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
  const created = await b.request('POST', jobs, {
    body: {
      metadata: { name: 'reboot' },
      spec: {
        backoffLimit: 0,
        ...extraSpec,
        template: {
          metadata: { labels: { 'app.kubernetes.io/managed-by': 'kubemaint' } },
          spec: {
            nodeName: node,
            restartPolicy: 'Never',
            tolerations: [{ operator: 'Exists' }],
            terminationGracePeriodSeconds: 5,
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        },
      },
    },
  });
  assert.equal(created.code, 201, created.text);
  const list = await objectWhen(
    b,
    `${podPath(ns)}?labelSelector=job-name%3Dreboot`,
    'the Job pod',
    (l) => (l['items'] as unknown[]).length > 0,
  );
  const pod = (list['items'] as Obj[])[0]!;
  return {
    ns,
    node,
    job: created.json,
    jobPath: `${jobs}/reboot`,
    pod,
    podName: String(meta(pod)['name']),
  };
}

const condition = (job: Obj, type: string) => conditionsOf(job).find((c) => c['type'] === type);

export const jobCases: CaseGroup = {
  name: 'Jobs and pod lifecycle',
  cases: [
    {
      id: 'a Job gets a generated selector and labels; its controller creates one pod it owns, on the pinned node',
      async run(b) {
        const { job, pod, node } = await startJob(b);
        const uid = String(meta(job).uid);
        assert.deepEqual(field(job, 'spec', 'selector'), {
          matchLabels: { 'batch.kubernetes.io/controller-uid': uid },
        });
        const labels = meta(pod)['labels'] as Record<string, string>;
        assert.equal(labels['batch.kubernetes.io/controller-uid'], uid);
        assert.equal(labels['batch.kubernetes.io/job-name'], 'reboot');
        assert.equal(labels['job-name'], 'reboot');
        assert.equal(labels['controller-uid'], uid);
        assert.equal(labels['app.kubernetes.io/managed-by'], 'kubemaint');
        assert.equal(String(meta(pod)['name']).startsWith('reboot-'), true);
        const owner = (meta(pod)['ownerReferences'] as Obj[])[0];
        assert.deepEqual(
          {
            kind: owner?.['kind'],
            name: owner?.['name'],
            uid: owner?.['uid'],
            controller: owner?.['controller'],
          },
          { kind: 'Job', name: 'reboot', uid, controller: true },
        );
        assert.equal(field(pod, 'spec', 'nodeName'), node);
        assert.equal(field(pod, 'spec', 'restartPolicy'), 'Never');
        assert.equal(field(job, 'spec', 'completions'), 1);
        assert.equal(field(job, 'spec', 'parallelism'), 1);
      },
    },
    {
      id: 'the pod succeeds: the Job is Complete (CompletionsReached) with succeeded 1 and a completionTime',
      async run(b) {
        const { ns, podName, jobPath } = await startJob(b);
        await markRunning(b, ns, podName);
        await objectWhen(b, jobPath, 'the Job active', (j) => field(j, 'status', 'active') === 1);
        await markFinished(b, ns, podName, 'Succeeded');
        const job = await objectWhen(
          b,
          jobPath,
          'the Job complete',
          (j) => condition(j, 'Complete')?.['status'] === 'True',
        );
        assert.equal(condition(job, 'Complete')?.['reason'], 'CompletionsReached');
        assert.equal(condition(job, 'SuccessCriteriaMet')?.['status'], 'True');
        assert.equal(field(job, 'status', 'succeeded'), 1);
        assert.ok(field(job, 'status', 'completionTime'));
        assert.equal(condition(job, 'Failed'), undefined);
      },
    },
    {
      id: 'the pod fails with backoffLimit 0: the Job is Failed (BackoffLimitExceeded), no second pod',
      async run(b) {
        const { ns, podName, jobPath } = await startJob(b);
        await markRunning(b, ns, podName);
        await markFinished(b, ns, podName, 'Failed');
        const job = await objectWhen(
          b,
          jobPath,
          'the Job failed',
          (j) => condition(j, 'Failed')?.['status'] === 'True',
        );
        assert.equal(condition(job, 'Failed')?.['reason'], 'BackoffLimitExceeded');
        assert.equal(
          condition(job, 'Failed')?.['message'],
          'Job has reached the specified backoff limit',
        );
        assert.equal(condition(job, 'FailureTarget')?.['status'], 'True');
        assert.equal(field(job, 'status', 'failed'), 1);
        assert.equal(field(job, 'status', 'completionTime'), undefined);
        const pods = await b.request('GET', `${podPath(ns)}?labelSelector=job-name%3Dreboot`);
        assert.deepEqual(
          (pods.json['items'] as Obj[]).map((p) => [meta(p)['name'], field(p, 'status', 'phase')]),
          [[podName, 'Failed']],
        );
      },
    },
    {
      id: 'restartPolicy Always in a Job template is 422 Invalid',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
          body: {
            metadata: { name: 'bad' },
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Always',
                  containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
                },
              },
            },
          },
        });
        assert.equal(reply.code, 422, reply.text);
        assert.equal(reply.json['reason'], 'Invalid');
        const causes = field(reply.json, 'details', 'causes') as Obj[];
        assert.ok(
          causes.some((c) => c['field'] === 'spec.template.spec.restartPolicy'),
          JSON.stringify(causes),
        );
      },
    },
  ],
};
