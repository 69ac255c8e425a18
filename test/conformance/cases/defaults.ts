/**
 * What the apiserver fills in when a Pod or a Job is created with only what a person writes: the
 * scheme's defaulting (SetDefaults_Pod, _PodSpec, _Container, _Job), the registry's strategy
 * (generated Job selector and labels, pod status) and admission (DefaultTolerationSeconds, Priority).
 * Created with `dryRun=All`, so no controller, scheduler or kubelet moves anything, and compared as
 * whole objects: a default one backend adds and the other does not shows in the diff.
 */
import assert from 'node:assert/strict';
import type { CaseGroup } from '../case.js';
import { meta, podPath } from '../fixtures.js';

type Obj = Record<string, unknown>;

/** The ServiceAccount admission plugin's token volume (a random name): the sim does not mount one. */
function withoutTokenVolume(spec: Obj): Obj {
  const { volumes: _volumes, ...rest } = spec;
  const containers = (rest['containers'] as Obj[]).map((c) => {
    const { volumeMounts: _mounts, ...container } = c;
    return container;
  });
  return { ...rest, containers };
}

const CONTAINER_DEFAULTS = {
  resources: {},
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
};

/** SetDefaults_PodSpec, for pods and pod templates alike (enableServiceLinks is SetDefaults_Pod's). */
const POD_SPEC_DEFAULTS = {
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
};

export const defaultingCases: CaseGroup = {
  name: 'Defaulting of pods, containers and Jobs',
  cases: [
    {
      id: 'a Pod with only names and images: every defaulted field of its spec and status',
      async run(b) {
        const ns = await b.namespace();
        const created = await b.request('POST', `${podPath(ns)}?dryRun=All`, {
          body: {
            metadata: { name: 'defaults', labels: { app: 'defaults' } },
            spec: {
              containers: [
                { name: 'tagged', image: 'busybox:1.36', ports: [{ containerPort: 8080 }] },
                { name: 'untagged', image: 'busybox' },
                { name: 'latest', image: 'busybox:latest', resources: { limits: { cpu: '1' } } },
              ],
            },
          },
        });
        assert.equal(created.code, 201, created.text);
        assert.equal(meta(created.json)['resourceVersion'], undefined, 'a dry run stores nothing');
        assert.deepEqual(withoutTokenVolume(created.json['spec'] as Obj), {
          ...POD_SPEC_DEFAULTS,
          containers: [
            {
              name: 'tagged',
              image: 'busybox:1.36',
              ports: [{ containerPort: 8080, protocol: 'TCP' }],
              ...CONTAINER_DEFAULTS,
              imagePullPolicy: 'IfNotPresent',
            },
            {
              name: 'untagged',
              image: 'busybox',
              ...CONTAINER_DEFAULTS,
              imagePullPolicy: 'Always',
            },
            {
              name: 'latest',
              image: 'busybox:latest',
              ...CONTAINER_DEFAULTS,
              resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
              imagePullPolicy: 'Always',
            },
          ],
          enableServiceLinks: true,
          serviceAccountName: 'default',
          serviceAccount: 'default',
          tolerations: [
            {
              key: 'node.kubernetes.io/not-ready',
              operator: 'Exists',
              effect: 'NoExecute',
              tolerationSeconds: 300,
            },
            {
              key: 'node.kubernetes.io/unreachable',
              operator: 'Exists',
              effect: 'NoExecute',
              tolerationSeconds: 300,
            },
          ],
          priority: 0,
          preemptionPolicy: 'PreemptLowerPriority',
        });
        assert.deepEqual(created.json['status'], { phase: 'Pending', qosClass: 'Burstable' });
      },
    },
    {
      id: 'a Job with only a template: its defaults, generated selector and labels, and the template defaulted as a pod spec',
      async run(b) {
        const ns = await b.namespace();
        const jobs = `/apis/batch/v1/namespaces/${ns}/jobs?dryRun=All`;
        const template = {
          metadata: { labels: { app: 'defaults' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] },
        };
        const created = await b.request('POST', jobs, {
          body: { metadata: { name: 'defaults' }, spec: { template } },
        });
        assert.equal(created.code, 201, created.text);
        const uid = String(meta(created.json)['uid']);
        const generated = {
          'batch.kubernetes.io/controller-uid': uid,
          'batch.kubernetes.io/job-name': 'defaults',
          'controller-uid': uid,
          'job-name': 'defaults',
        };
        assert.deepEqual(meta(created.json)['labels'], { app: 'defaults', ...generated });
        assert.deepEqual(created.json['spec'], {
          parallelism: 1,
          completions: 1,
          backoffLimit: 6,
          completionMode: 'NonIndexed',
          suspend: false,
          podReplacementPolicy: 'TerminatingOrFailed',
          manualSelector: false,
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
          template: {
            metadata: { labels: { app: 'defaults', ...generated } },
            spec: {
              ...POD_SPEC_DEFAULTS,
              restartPolicy: 'Never',
              containers: [
                {
                  name: 'c',
                  image: 'busybox:1.36',
                  ...CONTAINER_DEFAULTS,
                  imagePullPolicy: 'IfNotPresent',
                },
              ],
            },
          },
        });
        // Parallelism alone is a work queue: completions stays unset.
        const queue = await b.request('POST', jobs, {
          body: { metadata: { name: 'queue' }, spec: { parallelism: 2, template } },
        });
        assert.equal(queue.code, 201, queue.text);
        assert.equal((queue.json['spec'] as Obj)['completions'], undefined);
        assert.equal((queue.json['spec'] as Obj)['parallelism'], 2);
      },
    },
  ],
};
