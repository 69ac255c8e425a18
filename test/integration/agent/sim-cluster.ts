/**
 * The sim as the agent sees it from a pod: its HTTPS URL, its CA and its bearer token (read back
 * from the kubeconfig the sim writes), one node of the `demo` scenario, the audit log filtered to
 * the writes that came over HTTP, and fault injection.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createSim, type Sim } from '@kubemaint/kubesim';
import { R, type KObject } from '@kubemaint/kubesim';
import { kubemaintAccessObjects } from '../../../src/compose/sim-access.js';

export interface NodeMeta {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface AgentWrite {
  before: KObject;
  after: KObject;
}

export interface AgentCluster {
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
  readonly sim: Sim;
  /** The node's kubemaint.io/ labels and annotations only. */
  node(name: string): NodeMeta;
  /** Sets the node's kubemaint.io/ keys to exactly `meta`, leaving every other key alone. */
  setKubemaint(name: string, meta: NodeMeta): void;
  /** Writes to `name` that arrived over HTTP since the last clearWrites(), with the state before. */
  writes(name: string): AgentWrite[];
  clearWrites(): void;
  stop(): Promise<void>;
}

const OURS = 'kubemaint.io/';
const ours = (map: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => k.startsWith(OURS)));

export async function startSimCluster(): Promise<AgentCluster> {
  const kubeconfigPath = join(mkdtempSync(join(tmpdir(), 'kubemaint-agent-sim-')), 'kubeconfig');
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: 'demo',
    kubeconfigPath,
  });
  const kubeconfig = parse(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  const caPem = Buffer.from(
    kubeconfig.clusters[0]!.cluster['certificate-authority-data'],
    'base64',
  ).toString();
  const token = kubeconfig.users[0]!.user.token;
  let mark = 0;
  const get = (name: string): KObject => {
    const node = sim.store.get(R.nodes, undefined, name);
    if (!node) throw new Error(`the demo scenario has no node ${name}`);
    return node;
  };
  return {
    url: sim.url,
    caPem,
    token,
    sim,
    node: (name) => {
      const { labels, annotations } = get(name).metadata;
      return { labels: ours(labels), annotations: ours(annotations) };
    },
    setKubemaint: (name, meta) => {
      sim.store.mutate(
        R.nodes,
        undefined,
        name,
        (node) => {
          const keep = (map: Record<string, string> | undefined) =>
            Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => !k.startsWith(OURS)));
          node.metadata.labels = { ...keep(node.metadata.labels), ...meta.labels };
          node.metadata.annotations = { ...keep(node.metadata.annotations), ...meta.annotations };
        },
        { actor: 'test/setup' },
      );
    },
    writes: (name) => {
      const entries = sim.admin.audit().filter((e) => e.resource === R.nodes && e.name === name);
      const result: AgentWrite[] = [];
      entries.forEach((entry, i) => {
        if (entry.rv > mark && entry.actor.startsWith('http:')) {
          result.push({ before: entries[i - 1]!.object, after: entry.object });
        }
      });
      return result;
    },
    clearWrites: () => {
      mark = sim.admin.audit().at(-1)?.rv ?? 0;
    },
    stop: () => sim.stop(),
  };
}
