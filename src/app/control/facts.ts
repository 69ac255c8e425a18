/**
 * Gathers the facts the policy gates decide on (pause, windows, node health, alerts, blocking pods,
 * slots, the PDB preflight). Each fact that cannot be read becomes `{ error }`, which the policy treats
 * as blocking: kubemaint fails closed, as kured does.
 */
import { DateTime } from 'luxon';
import { selectPodsToDrain, type DrainSelection } from '../../core/drain-filters.js';
import type { BudgetFacts, Readable, WindowFacts } from '../../core/policy.js';
import { activeFreeze, closesAt, isOpen, nextOpening, type Schedule } from '../../core/windows.js';
import type { AlertsPort, ClusterPort, NodeView } from './ports.js';
import type { PodInfo } from '../ports.js';
import type { DrainChoice } from './settings.js';

export async function readable<T>(read: () => Promise<T>): Promise<Readable<T>> {
  try {
    return await read();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

export function windowFacts(schedule: Schedule, now: Date, zone: string): WindowFacts {
  const at = DateTime.fromJSDate(now, { zone });
  const freeze = activeFreeze(schedule, at);
  const open = !freeze && isOpen(schedule, at);
  const closes = open ? closesAt(schedule, at) : undefined;
  const next = open ? undefined : nextOpening(schedule, at);
  return {
    open,
    ...(closes && closes !== 'never' ? { closesAt: closes.toJSDate() } : {}),
    ...(next ? { nextOpening: next.toJSDate() } : {}),
    ...(freeze
      ? { freeze: { reason: freeze.reason ?? freeze.description, until: freeze.until.toJSDate() } }
      : {}),
  };
}

/** Nodes not Ready, except those kubemaint itself is rebooting (they are expected to be down). */
export function unhealthyNodes(nodes: readonly NodeView[]): string[] {
  return nodes
    .filter((n) => n.ready !== 'True')
    .filter((n) => !(n.request && ['running', 'verifying'].includes(n.request.state)))
    .map((n) => n.name);
}

export async function alertFacts(alerts: AlertsPort | undefined) {
  if (!alerts) return undefined;
  return readable(async () => ({
    alerts: (await alerts.activeAlerts()).map((name) => ({ name })),
  }));
}

export async function blockingPodFacts(
  cluster: ClusterPort,
  node: string,
  selectors: readonly string[],
) {
  if (selectors.length === 0) return undefined;
  return readable(async () => {
    const found: { pod: string; phase: string; selector: string }[] = [];
    for (const selector of selectors) {
      for (const pod of await cluster.listPods({ node, labelSelector: selector })) {
        found.push({ pod: `${pod.namespace}/${pod.name}`, phase: pod.phase, selector });
      }
    }
    return { pods: found };
  });
}

/**
 * PDB preflight: a dry-run eviction (`dryRun=All`) of every pod the drain would evict. A refusal
 * names the budget in its cause ("The disruption budget web needs 2 healthy pods …").
 */
export async function pdbFacts(cluster: ClusterPort, node: string, now: Date, choice: DrainChoice) {
  return readable(async () => {
    const pods = await cluster.listPods({ node });
    const selection = drainSelection(pods, node, now, choice);
    const evictable = chosen(pods, selection);
    const budgets = new Map<string, BudgetFacts & { pods: string[] }>();
    const refusals = await Promise.all(
      evictable.map(async (pod) => ({
        pod,
        refusal: await cluster.dryRunEvict(pod.namespace, pod.name),
      })),
    );
    for (const { pod, refusal } of refusals) {
      if (refusal === undefined) continue;
      const name = `${pod.namespace}/${/disruption budget (\S+)/i.exec(refusal)?.[1] ?? 'unknown'}`;
      const budget = budgets.get(name) ?? { name, disruptionsAllowed: 0, pods: [] };
      budget.pods.push(`${pod.namespace}/${pod.name}`);
      budgets.set(name, budget);
    }
    return { budgets: [...budgets.values()], refusals: selection.errors.map(inConfigTerms) };
  });
}

/**
 * The drain's own choice with the executor's options (DaemonSets ignored, as the executor always
 * does; the rest from `drain:`), so the preflight and the preview name the pods the drain will evict
 * and the ones it would refuse to delete.
 */
export function drainSelection(
  pods: readonly PodInfo[],
  node: string,
  now: Date,
  choice: DrainChoice,
) {
  return selectPodsToDrain(
    pods.map((p) => ({
      metadata: {
        namespace: p.namespace,
        name: p.name,
        uid: p.uid,
        labels: p.labels,
        annotations: p.annotations,
        ownerReferences: p.owners,
        ...(p.deletionTimestamp ? { deletionTimestamp: p.deletionTimestamp.toISOString() } : {}),
      },
      spec: { nodeName: node, volumes: p.hasEmptyDir ? [{ name: 'data', emptyDir: {} }] : [] },
      status: { phase: p.phase },
    })),
    { node, ignoreDaemonSets: true, ...choice },
    now,
  );
}

/** kubectl's refusal names its flags; people here set the config key instead. */
function inConfigTerms(error: string): string {
  return error
    .replace(
      'use --delete-emptydir-data to override',
      'set drain.deleteEmptyDirData: true to override',
    )
    .replace('use --force to override', 'set drain.force: true to override');
}

function chosen(pods: readonly PodInfo[], selection: DrainSelection): PodInfo[] {
  const keep = new Set(selection.evict.map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
  return pods.filter((p) => keep.has(`${p.namespace}/${p.name}`));
}
