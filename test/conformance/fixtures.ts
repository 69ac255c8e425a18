/**
 * Objects and checks the conformance cases share: minimal pods, a Status-body assertion (what
 * kubemaint's kube adapter reads from every failure), and a stand-in kubelet. Neither backend runs
 * kubelets, so a case that needs a Ready node or a Running pod does what a kubelet would: register the
 * Node, post its status, renew its Lease in kube-node-lease, and write `pods/<name>/status`.
 */
import assert from 'node:assert/strict';
import { V1MicroTime } from '@kubernetes/client-node';
import { eventually, type Backend, type Reply } from './backend.js';

type Obj = Record<string, unknown>;
export const MERGE = 'application/merge-patch+json';
export const STRATEGIC = 'application/strategic-merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

export const podPath = (ns: string, name = '') =>
  `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;

export function podBody(name: string, extra: { labels?: Obj; spec?: Obj } = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: {
      containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
      terminationGracePeriodSeconds: 30,
      ...extra.spec,
    },
  };
}

export async function createPod(
  b: Backend,
  ns: string,
  name: string,
  extra: { labels?: Obj; spec?: Obj } = {},
): Promise<Obj> {
  const reply = await b.request('POST', podPath(ns), { body: podBody(name, extra) });
  assert.equal(reply.code, 201, reply.text);
  return reply.json;
}

export interface StatusShape {
  code: number;
  /** Absent: the body must have no reason (the multi-PDB eviction 500). */
  reason?: string;
  message?: string | RegExp;
  details?: Obj;
}

/** A failure answer is a `Status` object with the code in the body too, as the API sends it. */
export function assertStatus(reply: Reply, want: StatusShape): void {
  assert.equal(reply.code, want.code, reply.text);
  const body = reply.json;
  assert.equal(body['kind'], 'Status', reply.text);
  assert.equal(body['apiVersion'], 'v1');
  assert.equal(body['status'], 'Failure');
  assert.equal(body['code'], want.code);
  assert.equal(body['reason'], want.reason, reply.text);
  if (typeof want.message === 'string') assert.equal(body['message'], want.message);
  else if (want.message) assert.match(String(body['message']), want.message);
  if (want.details) assert.deepEqual(body['details'], want.details);
}

const READY = (now: string) => [
  {
    type: 'Ready',
    status: 'True',
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  },
];

/**
 * Registers a Node as its kubelet would (Ready, room for 110 pods) and keeps its Lease renewed until
 * the case's cleanup, which deletes both. Returns the node's name.
 */
export async function fakeNode(b: Backend, spec: Obj = {}): Promise<string> {
  const name = b.unique('node');
  await b.core.createNode({
    body: {
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
      spec,
    },
  });
  b.defer(() => b.core.deleteNode({ name }));
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const status = await b.request('PATCH', `/api/v1/nodes/${name}/status`, {
    contentType: MERGE,
    body: {
      status: {
        conditions: READY(now),
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        nodeInfo: { bootID: `boot-${name}`, kubeletVersion: 'v1.34.4' },
      },
    },
  });
  assert.equal(status.code, 200, status.text);
  const lease = await b.coordination.createNamespacedLease({
    namespace: 'kube-node-lease',
    body: {
      metadata: { name },
      spec: {
        holderIdentity: name,
        leaseDurationSeconds: 40,
        renewTime: new V1MicroTime(Date.now()),
      },
    },
  });
  let rv = lease.metadata?.resourceVersion ?? '';
  const renew = setInterval(() => {
    void b.coordination
      .replaceNamespacedLease({
        namespace: 'kube-node-lease',
        name,
        body: {
          metadata: { name, resourceVersion: rv },
          spec: {
            holderIdentity: name,
            leaseDurationSeconds: 40,
            renewTime: new V1MicroTime(Date.now()),
          },
        },
      })
      .then((l) => (rv = l.metadata?.resourceVersion ?? rv))
      .catch(() => undefined);
  }, 4_000);
  b.defer(async () => {
    clearInterval(renew);
    await b.coordination.deleteNamespacedLease({ namespace: 'kube-node-lease', name });
  });
  return name;
}

/** What a kubelet writes once a pod's containers run and pass their readiness probe. */
export async function markRunning(b: Backend, ns: string, name: string, ready = true) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const reply = await b.request('PATCH', `${podPath(ns, name)}/status`, {
    contentType: STRATEGIC,
    body: {
      status: {
        phase: 'Running',
        startTime: now,
        conditions: [
          { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now },
          { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now },
        ],
        containerStatuses: [
          {
            name: 'main',
            image: 'registry.k8s.io/pause:3.10',
            imageID: '',
            ready,
            restartCount: 0,
            started: true,
            state: { running: { startedAt: now } },
          },
        ],
      },
    },
  });
  assert.equal(reply.code, 200, reply.text);
}

/** What a kubelet writes when a restartPolicy Never pod's only container exits. */
export async function markFinished(
  b: Backend,
  ns: string,
  name: string,
  phase: 'Succeeded' | 'Failed',
) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const exitCode = phase === 'Succeeded' ? 0 : 1;
  const reply = await b.request('PATCH', `${podPath(ns, name)}/status`, {
    contentType: MERGE,
    body: {
      status: {
        phase,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: now },
        ],
        containerStatuses: [
          {
            name: 'main',
            image: 'registry.k8s.io/pause:3.10',
            imageID: '',
            ready: false,
            restartCount: 0,
            started: false,
            state: {
              terminated: {
                exitCode,
                reason: phase === 'Succeeded' ? 'Completed' : 'Error',
                startedAt: now,
                finishedAt: now,
              },
            },
          },
        ],
      },
    },
  });
  assert.equal(reply.code, 200, reply.text);
}

/** Reads an object until `test` holds for it; returns it then. */
export function objectWhen(
  b: Backend,
  path: string,
  what: string,
  test: (object: Obj) => boolean,
  timeoutMs = 20_000,
): Promise<Obj> {
  return eventually(
    what,
    async () => {
      const reply = await b.request('GET', path);
      return reply.code === 200 && test(reply.json) ? reply.json : undefined;
    },
    timeoutMs,
  );
}

export const meta = (o: Obj): Obj & { resourceVersion?: string; uid?: string } =>
  (o['metadata'] ?? {}) as Obj;
export const field = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Obj)[k] : undefined),
    o,
  );
export const conditionsOf = (o: Obj, at = 'status'): Obj[] =>
  (field(o, at, 'conditions') as Obj[] | undefined) ?? [];
