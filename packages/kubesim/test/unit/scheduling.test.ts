import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placePod } from '../../src/controllers/scheduling.js';
import type { NodeUsage } from '../../src/controllers/scheduler-fit.js';
import type { KObject } from '../../src/types.js';

const node = (
  name: string,
  extra: { labels?: Record<string, string>; spec?: Record<string, unknown>; pods?: number } = {},
): KObject => ({
  metadata: { name, labels: extra.labels ?? {} },
  spec: extra.spec ?? {},
  status: { allocatable: { pods: String(extra.pods ?? 110), cpu: '4', memory: '8Gi' } },
});
const pod = (spec: Record<string, unknown> = {}): KObject => ({ metadata: { name: 'p' }, spec });
const requesting = (requests: Record<string, string>): KObject =>
  pod({ containers: [{ name: 'c', image: 'x', resources: { requests } }] });
/** What the node's bound pods use: a pod count, or pods and their CPU and memory requests. */
type Used = number | { pods: number; milliCPU?: number; memory?: number };
const usage = (used: Record<string, Used>): Map<string, NodeUsage> =>
  new Map(
    Object.entries(used).map(([name, u]) => [
      name,
      typeof u === 'number'
        ? { pods: u, milliCPU: 0, memory: 0 }
        : { milliCPU: 0, memory: 0, ...u },
    ]),
  );

describe('placePod', () => {
  const cases: {
    why: string;
    pod: KObject;
    nodes: KObject[];
    counts?: Record<string, Used>;
    want: string | RegExp;
  }[] = [
    {
      why: 'picks the least loaded node',
      pod: pod(),
      nodes: [node('a'), node('b')],
      counts: { a: 3, b: 1 },
      want: 'b',
    },
    { why: 'breaks ties by name', pod: pod(), nodes: [node('b'), node('a')], want: 'a' },
    {
      why: 'skips cordoned nodes',
      pod: pod(),
      nodes: [node('a', { spec: { unschedulable: true } }), node('b')],
      counts: { b: 50 },
      want: 'b',
    },
    {
      why: 'lets pods that tolerate unschedulable onto cordoned nodes',
      pod: pod({
        tolerations: [
          { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
        ],
      }),
      nodes: [node('a', { spec: { unschedulable: true } })],
      want: 'a',
    },
    {
      why: 'honours the node selector',
      pod: pod({ nodeSelector: { pool: 'gpu' } }),
      nodes: [node('a'), node('b', { labels: { pool: 'gpu' } })],
      want: 'b',
    },
    {
      why: 'skips NoSchedule taints the pod does not tolerate',
      pod: pod(),
      nodes: [
        node('a', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }),
        node('b'),
      ],
      counts: { b: 9 },
      want: 'b',
    },
    {
      why: 'ignores PreferNoSchedule',
      pod: pod(),
      nodes: [node('a', { spec: { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] } })],
      want: 'a',
    },
    {
      why: 'follows required node affinity on metadata.name (DaemonSet pods)',
      pod: pod({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] },
              ],
            },
          },
        },
      }),
      nodes: [node('a'), node('b')],
      counts: { b: 10 },
      want: 'b',
    },
    {
      why: 'respects pod capacity',
      pod: pod(),
      nodes: [node('a', { pods: 2 })],
      counts: { a: 2 },
      want: /0\/1 nodes are available: 1 Too many pods\./,
    },
    {
      why: "counts CPU requests against the node's allocatable",
      pod: requesting({ cpu: '1500m' }),
      nodes: [node('a'), node('b')],
      counts: { a: { pods: 1, milliCPU: 3000 }, b: { pods: 5, milliCPU: 2000 } },
      want: 'b',
    },
    {
      why: 'names every resource a node lacks, as NodeResourcesFit does',
      pod: requesting({ cpu: '2', memory: '1Gi' }),
      nodes: [node('a'), node('b')],
      counts: {
        a: { pods: 1, milliCPU: 3000, memory: 8 * 2 ** 30 },
        b: { pods: 1, milliCPU: 3000 },
      },
      want: '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.',
    },
    {
      why: 'explains every reason when nothing fits',
      pod: pod({ nodeSelector: { pool: 'x' } }),
      nodes: [node('a'), node('b', { labels: { pool: 'x' }, spec: { unschedulable: true } })],
      want: "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable.",
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const placement = placePod(c.pod, c.nodes, usage(c.counts ?? {}));
      if (typeof c.want === 'string' && placement.node !== undefined)
        assert.equal(placement.node, c.want);
      else if (placement.node === undefined) {
        if (c.want instanceof RegExp) assert.match(placement.message, c.want);
        else assert.equal(placement.message, c.want);
      } else assert.fail(`placed on ${placement.node}, wanted ${String(c.want)}`);
    });
  }
});
