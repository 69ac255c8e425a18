/**
 * `clusters:` — several clusters from one control plane (issue 22, ADR 0026). Each entry names a
 * cluster (a DNS label: it is shown in every message and is the `cluster` label of the metrics),
 * says how to reach it with the same keys as `cluster:` (`type` may be left out when one block
 * says it), and may set `windows`, `freezes`, `slot`, `approval` and `slack` for itself. Those
 * sections are merged over the top-level ones before this schema sees them (cluster-sections.ts),
 * so what an entry leaves out it inherits. `blockers.clusters` is the policy across them.
 */
import { z } from 'zod';
import { checkedText, describeValue, dnsLabel, duration, int } from './fields.js';
import {
  BLOCKS,
  CLUSTER_TYPES,
  EksSchema,
  KubeconfigSchema,
  SimSchema,
  reachIssues,
  reachOf,
  type ClusterConfig,
  type ClusterType,
} from './schema-cluster.js';
import { ApprovalSchema, SlackSchema } from './schema-people.js';
import { SlotSchema } from './schema-rollout.js';
import { FreezeSchema, WindowSchema } from './schema-schedule.js';

/** The sections an entry of `clusters:` may set for itself; every other section is shared. */
export const CLUSTER_SECTIONS = ['windows', 'freezes', 'slot', 'approval', 'slack'] as const;
export type ClusterSection = (typeof CLUSTER_SECTIONS)[number];

/** One Slack app serves every cluster: its slash command is the app's, not a cluster's. */
export const ClusterSlackSchema = SlackSchema.omit({ command: true });

const sections = {
  windows: z.array(WindowSchema).optional(),
  freezes: z.array(FreezeSchema).optional(),
  slot: SlotSchema.optional(),
  approval: ApprovalSchema.optional(),
  slack: ClusterSlackSchema.optional(),
};

export interface ClusterEntry {
  name: string;
  /** How to reach it; its `name` is the entry's. */
  cluster: ClusterConfig;
  /** Sections it sets for itself, each already merged over the top-level one. */
  overrides: {
    windows?: z.output<typeof WindowSchema>[];
    freezes?: z.output<typeof FreezeSchema>[];
    slot?: z.output<typeof SlotSchema>;
    approval?: z.output<typeof ApprovalSchema>;
    slack?: z.output<typeof ClusterSlackSchema>;
  };
}

/** Request and campaign ids (templates/slack/ids.ts): a cluster so named could not be told apart. */
const ID_SHAPED = /^[rc]-[0-9a-f]{6}$/;

/** Where an entry's sim writes its kubeconfig: one file per cluster, for kubectl and the CLI. */
export const simKubeconfigPath = (name: string): string => `.kubemaint/sim-${name}.kubeconfig`;

const ClusterEntrySchema = z
  .strictObject({
    name: dnsLabel('staging'),
    type: z.enum(CLUSTER_TYPES).optional(),
    sim: SimSchema.optional(),
    kubeconfig: KubeconfigSchema.optional(),
    eks: EksSchema.optional(),
    ...sections,
  })
  .superRefine((entry, ctx) => {
    if (ID_SHAPED.test(entry.name))
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: `"${entry.name}" is shaped like a request or campaign id: a button's value ${entry.name}/r-… would be read as an id, not as this cluster`,
        params: { hint: 'name the cluster by what it is, e.g. staging or prod-eu' },
      });
    const type = typeOf(entry);
    if (type !== undefined) {
      reachIssues({ ...entry, type }, ctx, 'its type');
      return;
    }
    const written = BLOCKS.filter((block) => entry[block] !== undefined);
    ctx.addIssue({
      code: 'custom',
      message:
        written.length === 0
          ? `does not say how to reach cluster ${entry.name}`
          : `has ${written.join(' and ')}: a cluster is reached one way`,
      params: {
        hint: 'give kubeconfig: {context: …}, eks: {name, region, endpoint, caData}, or type: in-cluster',
      },
    });
  })
  .transform((entry): ClusterEntry => {
    // superRefine guarantees a type; the transform only runs without issues.
    const type = typeOf(entry) as ClusterType;
    const reached = reachOf({ ...entry, type });
    const cluster: ClusterConfig =
      reached.type === 'sim'
        ? { ...reached, name: entry.name, kubeconfigPath: simKubeconfigPath(entry.name) }
        : { ...reached, name: entry.name };
    const overrides: ClusterEntry['overrides'] = {};
    if (entry.windows) overrides.windows = entry.windows;
    if (entry.freezes) overrides.freezes = entry.freezes;
    if (entry.slot) overrides.slot = entry.slot;
    if (entry.approval) overrides.approval = entry.approval;
    if (entry.slack) overrides.slack = entry.slack;
    return { name: entry.name, cluster, overrides };
  });

/** `type`, or the one block that says it (`kubeconfig:` alone means type kubeconfig). */
function typeOf(entry: {
  type?: ClusterType | undefined;
  sim?: unknown;
  kubeconfig?: unknown;
  eks?: unknown;
}): ClusterType | undefined {
  if (entry.type !== undefined) return entry.type;
  const written = BLOCKS.filter((block) => entry[block] !== undefined);
  return written.length === 1 ? written[0] : undefined;
}

export const ClustersSchema = z
  .array(ClusterEntrySchema)
  .min(1, 'lists no cluster: list at least one, or remove clusters: for the one of cluster:')
  .superRefine((entries, ctx) => {
    const seen = new Map<string, number>();
    const reached = new Map<string, number>();
    let inCluster: number | undefined;
    entries.forEach((entry: ClusterEntry | undefined, i) => {
      // An entry with problems of its own is not parsed; they are reported at its path.
      if (entry?.cluster === undefined) return;
      const first = seen.get(entry.name);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [i, 'name'],
          message: `"${entry.name}" is already the name of clusters[${first}]`,
          params: {
            hint: 'each cluster has a name of its own: it is how messages and --cluster name it',
          },
        });
      else seen.set(entry.name, i);
      const reach = reachKey(entry.cluster);
      const same = reach === undefined ? undefined : reached.get(reach);
      if (reach !== undefined && same !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `reaches the cluster clusters[${same}] reaches (${reach}): one cluster listed twice would be worked by two control loops, each with its own approvers, windows and slots`,
          params: {
            hint: 'list each cluster once, each entry with its own kubeconfig.context, eks.endpoint or sim.port',
          },
        });
      else if (reach !== undefined) reached.set(reach, i);
      if (entry.cluster.type !== 'in-cluster') return;
      if (inCluster !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [i, 'type'],
          message: `is in-cluster, as clusters[${inCluster}] is: only the cluster kubemaint runs in is`,
          params: { hint: 'reach the other cluster with kubeconfig: or eks:' },
        });
      else inCluster = i;
    });
  });

/**
 * How an entry reaches its cluster, written so that two equal ones reach the same apiserver;
 * undefined where the config alone cannot tell (an in-cluster entry is checked on its own; a sim
 * on a port picked at start is a cluster of its own). Two different ones may still reach the same
 * apiserver (two contexts with one server): openClusters compares the servers once connected.
 */
function reachKey(cluster: ClusterConfig): string | undefined {
  switch (cluster.type) {
    case 'kubeconfig': {
      const { path, context } = cluster.kubeconfig;
      const file = path === undefined ? 'the default kubeconfig' : `kubeconfig ${path}`;
      return `${context === undefined ? 'the current context' : `context "${context}"`} of ${file}`;
    }
    case 'eks':
      return `EKS endpoint ${cluster.eks.endpoint.toLowerCase().replace(/\/+$/, '')}`;
    case 'sim':
      return cluster.sim.port ? `sim port ${cluster.sim.port}` : undefined;
    case 'in-cluster':
      return undefined;
  }
}

/** A cluster's name as `blockers.clusters.order` lists it. */
const clusterName = checkedText((text) =>
  /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(text)
    ? undefined
    : { message: `${describeValue(text)} is not a cluster's name`, hint: 'a name from clusters:' },
);

/**
 * `blockers.clusters`: how maintenance moves across the clusters (ADR 0027). `order` lists waves,
 * each a name or a list of names: a request in a later wave does not start while an earlier wave's
 * cluster has unfinished maintenance, finished less than `soak` ago, had a request fail, or cannot
 * be read. `maxInMaintenance` caps the clusters with a request running at once.
 */
export const ClusterGateSchema = z.strictObject({
  maxInMaintenance: int(1, 1000).optional(),
  order: z
    .array(z.union([clusterName, z.array(clusterName).min(1)]))
    .default([])
    .transform((waves) => waves.map((wave) => (typeof wave === 'string' ? [wave] : wave))),
  soak: duration().default(0),
});

export type ClusterGateConfig = z.output<typeof ClusterGateSchema>;

interface Issue {
  path: (string | number)[];
  message: string;
  hint: string;
}

/** What `blockers.clusters` gets wrong against `clusters:`: a name it lacks, one named twice. */
export function clusterGateProblems(
  gate: ClusterGateConfig | undefined,
  entries: readonly ClusterEntry[] | undefined,
): Issue[] {
  if (gate === undefined) return [];
  if (entries === undefined)
    return [
      {
        path: ['blockers', 'clusters'],
        message: 'is the policy across several clusters, but clusters: lists none',
        hint: 'list the clusters under clusters:, or remove blockers.clusters',
      },
    ];
  const names = entries.map((e) => e.name);
  const issues: Issue[] = [];
  const placed = new Map<string, string>();
  gate.order.forEach((wave, i) =>
    wave.forEach((name, j) => {
      const path = ['blockers', 'clusters', 'order', i, ...(wave.length > 1 ? [j] : [])];
      if (!names.includes(name))
        issues.push({
          path,
          message: `"${name}" is not a cluster of clusters:`,
          hint: `the clusters: ${names.join(', ')}`,
        });
      else if (placed.has(name))
        issues.push({
          path,
          message: `"${name}" is already in the order at ${placed.get(name)}`,
          hint: 'each cluster is in one wave',
        });
      else placed.set(name, `order[${i}]`);
    }),
  );
  if (gate.soak > 0 && gate.order.length < 2)
    issues.push({
      path: ['blockers', 'clusters', 'soak'],
      message: 'is the wait between waves of order, and order has fewer than two',
      hint: 'list the waves, e.g. order: [staging, production]; blockers.soak is the wait between nodes',
    });
  return issues;
}
