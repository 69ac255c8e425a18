/**
 * What individual kinds add to the generic store: defaults the apiserver (and its admission plugins)
 * fills in on create, validation that real clients hit (Job restartPolicy, MicroTime precision,
 * workload selectors), and the pod grace-period rule. Each hook is small and pure apart from `now`.
 */
import type { KObject } from './types.js';
import { StatusError } from './types.js';
import type { StatusCause } from './status-errors.js';
import { qosClassOf } from './controllers/scheduler-requests.js';
import { podSpecDefaults } from './pod-defaults.js';

type Obj = Record<string, unknown>;

export const asObj = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};

function ensureObj(parent: Obj, key: string): Obj {
  const current = parent[key];
  if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
    return current as Obj;
  }
  const created: Obj = {};
  parent[key] = created;
  return created;
}

function setDefault(target: Obj, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

const required = (field: string, message = 'Required value'): StatusCause => ({
  reason: 'FieldValueRequired',
  message,
  field,
});

/** DefaultTolerationSeconds admission: pods are evicted 300 s after their node goes NotReady/Unreachable. */
const DEFAULT_TOLERATION_KEYS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

export function podDefaults(pod: KObject): void {
  const spec = ensureObj(pod, 'spec');
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'serviceAccountName', 'default');
  const tolerations = Array.isArray(spec['tolerations']) ? (spec['tolerations'] as Obj[]) : [];
  for (const key of DEFAULT_TOLERATION_KEYS) {
    const covered = tolerations.some(
      (t) =>
        (t['key'] === key || (t['key'] === undefined && t['operator'] === 'Exists')) &&
        (t['effect'] === undefined || t['effect'] === '' || t['effect'] === 'NoExecute'),
    );
    if (!covered) {
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    }
  }
  spec['tolerations'] = tolerations;
  // SetDefaults_Pod (not a template's): service environment variables on.
  setDefault(spec, 'enableServiceLinks', true);
  podSpecDefaults(spec);
  for (const field of ['initContainers', 'containers']) {
    for (const c of Array.isArray(spec[field]) ? (spec[field] as unknown[]) : []) {
      requestsFromLimits(asObj(c));
    }
  }
  const status = ensureObj(pod, 'status');
  setDefault(status, 'phase', 'Pending');
  // The pod strategy's PrepareForCreate: kubectl describe and the kubelet's preemption read it.
  setDefault(status, 'qosClass', qosClassOf(pod));
}

/** `SetDefaults_Pod`: a container that limits a resource and does not request it requests its limit. */
function requestsFromLimits(container: Obj): void {
  const resources = asObj(container['resources']);
  const limits = asObj(resources['limits']);
  if (Object.keys(limits).length === 0) return;
  const requests = ensureObj(ensureObj(container, 'resources'), 'requests');
  for (const [name, value] of Object.entries(limits)) setDefault(requests, name, value);
}

export function podValidate(pod: KObject): StatusCause[] {
  const containers = asObj(pod.spec)['containers'];
  if (!Array.isArray(containers) || containers.length === 0) return [required('spec.containers')];
  const causes: StatusCause[] = [];
  containers.forEach((c, i) => {
    if (typeof asObj(c)['name'] !== 'string') causes.push(required(`spec.containers[${i}].name`));
    if (typeof asObj(c)['image'] !== 'string') causes.push(required(`spec.containers[${i}].image`));
  });
  return causes;
}

/**
 * `podStrategy.CheckGracefulDelete`: the request's period, else the pod's, else 30; 0 for pods that
 * never reached a node or already finished; negative becomes 1.
 */
export function podGracePeriod(pod: KObject, requested: number | undefined): number {
  const spec = asObj(pod.spec);
  const phase = asObj(pod.status)['phase'];
  if (!spec['nodeName'] || phase === 'Succeeded' || phase === 'Failed') return 0;
  const own = spec['terminationGracePeriodSeconds'];
  const period = requested ?? (typeof own === 'number' ? own : 30);
  return period < 0 ? 1 : period;
}

/** The apiserver generates a Job's selector and labels its pods so they can be found (k8s §8). */
/**
 * SetDefaults_Job, then the Job strategy's generated selector and template labels. Completions
 * default only with parallelism (a work queue has none); a Job without labels takes its template's
 * (the same map upstream, so it carries the generated ones too).
 */
export function jobDefaults(job: KObject): void {
  const spec = ensureObj(job, 'spec');
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (spec['completions'] === undefined && spec['parallelism'] === undefined)
    spec['completions'] = 1;
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', spec['backoffLimitPerIndex'] === undefined ? 6 : 2147483647);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  setDefault(
    spec,
    'podReplacementPolicy',
    spec['podFailurePolicy'] === undefined ? 'TerminatingOrFailed' : 'Failed',
  );
  setDefault(spec, 'manualSelector', false);
  const template = ensureObj(spec, 'template');
  const meta = ensureObj(template, 'metadata');
  const hadLabels = meta['labels'] !== undefined && meta['labels'] !== null;
  if (spec['manualSelector'] !== true) {
    spec['selector'] = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
    meta['labels'] = {
      ...asObj(meta['labels']),
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    };
  }
  if (hadLabels && Object.keys(asObj(job.metadata.labels)).length === 0)
    job.metadata.labels = { ...asObj(meta['labels']) } as Record<string, string>;
  podSpecDefaults(ensureObj(template, 'spec'));
}

export function jobValidate(job: KObject): StatusCause[] {
  const policy = asObj(asObj(asObj(job.spec)['template'])['spec'])['restartPolicy'];
  if (policy !== 'Never' && policy !== 'OnFailure') {
    return [
      required(
        'spec.template.spec.restartPolicy',
        'Required value: valid values: "OnFailure", "Never"',
      ),
    ];
  }
  return [];
}

/** apps/v1 workloads must have a selector that selects their own template. */
export function workloadValidate(obj: KObject): StatusCause[] {
  const spec = asObj(obj.spec);
  const selector = asObj(spec['selector']);
  if (spec['selector'] === undefined) return [required('spec.selector')];
  const labels = asObj(asObj(asObj(spec['template'])['metadata'])['labels']);
  const wanted = asObj(selector['matchLabels']);
  const mismatch = Object.entries(wanted).some(([k, v]) => labels[k] !== v);
  return mismatch
    ? [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.template.metadata.labels',
          message: `Invalid value: ${JSON.stringify(labels)}: \`selector\` does not match template \`labels\``,
        },
      ]
    : [];
}

export function replicasDefaults(obj: KObject): void {
  setDefault(ensureObj(obj, 'spec'), 'replicas', 1);
}

export function deploymentDefaults(obj: KObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  setDefault(spec, 'strategy', {
    type: 'RollingUpdate',
    rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
  });
}

export function daemonSetDefaults(obj: KObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'revisionHistoryLimit', 10);
  const strategy = ensureObj(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = ensureObj(strategy, 'rollingUpdate');
    setDefault(rolling, 'maxUnavailable', 1);
    setDefault(rolling, 'maxSurge', 0);
  }
}

export function statefulSetDefaults(obj: KObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  setDefault(spec, 'persistentVolumeClaimRetentionPolicy', {
    whenDeleted: 'Retain',
    whenScaled: 'Retain',
  });
  const strategy = ensureObj(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate')
    setDefault(ensureObj(strategy, 'rollingUpdate'), 'partition', 0);
}

export function namespaceDefaults(ns: KObject): void {
  ns.metadata.labels = {
    ...ns.metadata.labels,
    'kubernetes.io/metadata.name': ns.metadata.name ?? '',
  };
  setDefault(ensureObj(ns, 'spec'), 'finalizers', ['kubernetes']);
  setDefault(ensureObj(ns, 'status'), 'phase', 'Active');
}

/**
 * A Node always has a spec and a status, empty or not: kube-apiserver serializes the Go structs, so
 * admission policies (and clients) can read `object.spec` of a Node created without one.
 */
export function nodeDefaults(node: KObject): void {
  ensureObj(node, 'spec');
  ensureObj(node, 'status');
}

export function secretDefaults(secret: KObject): void {
  setDefault(secret, 'type', 'Opaque');
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/**
 * kube-apiserver parses MicroTime with a fixed 6-digit layout and answers 400 otherwise
 * (client-node's plain `Date` sends 3 digits: k8s §4.3). Mirroring that catches the bug in tests.
 */
export function checkMicroTimes(obj: Obj, paths: readonly string[]): void {
  for (const path of paths) {
    let value: unknown = obj;
    for (const part of path.split('.')) value = asObj(value)[part];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      const layout = '2006-01-02T15:04:05.000000Z07:00';
      throw new StatusError(
        400,
        'BadRequest',
        `${path}: parsing time ${JSON.stringify(value)} as "${layout}": MicroTime needs exactly 6 fractional digits (use V1MicroTime, e.g. "2026-01-01T00:00:00.000000Z")`,
      );
    }
  }
}

export function eventsV1Validate(event: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (event['eventTime'] === undefined) causes.push(required('eventTime'));
  for (const field of ['reportingController', 'reportingInstance', 'action', 'reason']) {
    if (typeof event[field] !== 'string' || event[field] === '') causes.push(required(field));
  }
  if (event['type'] !== 'Normal' && event['type'] !== 'Warning') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'type',
      message: `Unsupported value: ${JSON.stringify(event['type'])}: supported values: "Normal", "Warning"`,
    });
  }
  return causes;
}
