/**
 * The DaemonSet controller: one pod per eligible node (node selector and taints, with the tolerations
 * the real controller adds: not-ready/unreachable NoExecute forever, unschedulable and pressure
 * NoSchedule), pinned through required node affinity on `metadata.name` so the scheduler binds it even
 * to a cordoned node. Pods on nodes that no longer qualify, or gone nodes, are deleted. Each template
 * is a ControllerRevision (controller-revisions.ts) whose hash labels its pods; a changed template
 * replaces them as `updateStrategy` says (daemonset-update.ts: RollingUpdate with maxUnavailable or
 * maxSurge; OnDelete only when someone deletes a pod), and the status counts the updated and
 * available pods `kubectl rollout status` waits for.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { podFromTemplate } from './pod-template.js';
import { ownedPods } from './replicaset.js';
import { isTolerated } from './selectors.js';
import {
  isPodReady,
  isPodTerminal,
  keyOf,
  controllerRef,
  podSpec,
  splitKey,
  type Taint,
  type Toleration,
} from './shapes.js';
import { REVISION_HASH, syncRevisions } from './controller-revisions.js';
import {
  isPodAvailable,
  planRollingUpdate,
  scaledValue,
  type NodePods,
} from './daemonset-update.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/daemonset';

/** `pkg/controller/daemon/util/daemonset_util.go` AddOrUpdateDaemonPodTolerations. */
export const DAEMON_TOLERATIONS: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

function daemonTolerations(own: Toleration[] | undefined): Toleration[] {
  const out = [...(own ?? [])];
  for (const t of DAEMON_TOLERATIONS) {
    if (!out.some((o) => o.key === t.key && o.effect === t.effect)) out.push({ ...t });
  }
  return out;
}

/**
 * Whether a node should run the daemon pod (`NodeShouldRunDaemonPod`): a new pod needs every
 * NoSchedule and NoExecute taint tolerated; a running one stays while its NoExecute taints are, so a
 * node going NotReady keeps its daemon pods. The template is read once per DaemonSet: a reconcile
 * asks about every node of the fleet, several times.
 */
function daemonPlacement(ds: KObject): (node: KObject, running?: boolean) => boolean {
  const template = ((ds.spec ?? {})['template'] ?? {}) as {
    spec?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
  };
  const templateSpec = template.spec ?? {};
  const selector = Object.entries(templateSpec.nodeSelector ?? {});
  const tolerations = daemonTolerations(templateSpec.tolerations);
  return (node, running = false) => {
    const labels = node.metadata.labels ?? {};
    if (!selector.every(([k, v]) => labels[k] === v)) return false;
    const taints = (node.spec?.['taints'] ?? []) as Taint[];
    return taints.every(
      (taint) =>
        taint.effect === 'PreferNoSchedule' ||
        (running && taint.effect === 'NoSchedule') ||
        isTolerated(tolerations, taint),
    );
  };
}

const nodeSignature = (node: KObject): string =>
  JSON.stringify([node.metadata.labels, node.spec?.['taints'], node.spec?.['unschedulable']]);

const byAge = (a: KObject, b: KObject): number =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '');

/**
 * Of several running pods on one node, which go (podsShouldBeOnNode): without surge, all but the
 * oldest; with it, extra pods of each kind, and the old pod once the new one is available (or when
 * the old one is not even ready).
 */
function manyOnNode(
  n: NodePods,
  hash: string,
  at: { maxSurge: number; minReadySeconds: number; now: number },
): KObject[] {
  if (at.maxSurge === 0) return n.running.slice(1);
  const fresh = n.running.filter((p) => p.metadata.labels?.[REVISION_HASH] === hash);
  const stale = n.running.filter((p) => p.metadata.labels?.[REVISION_HASH] !== hash);
  const extra = [...fresh.slice(1), ...stale.slice(1)];
  const [newest, oldest] = [fresh[0], stale[0]];
  if (
    newest &&
    oldest &&
    (!isPodReady(oldest) || isPodAvailable(newest, at.minReadySeconds, at.now))
  )
    extra.push(oldest);
  return extra;
}

const nodeOfPod = (pod: KObject): string | undefined => {
  const terms =
    podSpec(pod).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms;
  return podSpec(pod).nodeName ?? terms?.[0]?.matchFields?.[0]?.values?.[0];
};

export function startDaemonSetController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  const record = recorderFor(store, () => clock.now(), 'daemonset-controller', ACTOR);

  const deletePod = (ds: KObject, pod: KObject): void => {
    store.delete(R.pods, ds.metadata.namespace, pod.metadata.name ?? '', { actor: ACTOR });
    record({
      regarding: ds,
      reason: 'SuccessfulDelete',
      message: `Deleted pod: ${pod.metadata.name ?? ''}`,
    });
  };

  const createPod = (ds: KObject, node: string, hash: string): void => {
    const templateSpec = podSpec({
      metadata: {},
      spec: (ds.spec?.['template'] as { spec?: Record<string, unknown> } | undefined)?.spec ?? {},
    });
    const pod = podFromTemplate(ds, {
      labels: { [REVISION_HASH]: hash },
      spec: {
        tolerations: daemonTolerations(templateSpec.tolerations),
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
              ],
            },
          },
        },
      },
    });
    const made = store.create(R.pods, pod, { actor: ACTOR });
    record({
      regarding: ds,
      reason: 'SuccessfulCreate',
      message: `Created pod: ${made.metadata.name ?? ''}`,
    });
  };

  /** Pods by the node they are (or will be) on: running ones and those being deleted. */
  const podsByNode = (ds: KObject, nodes: Map<string, KObject>): NodePods[] => {
    const shouldRun = daemonPlacement(ds);
    const out = new Map<string, NodePods>();
    const at = (node: string) => {
      let entry = out.get(node);
      if (!entry) {
        const n = nodes.get(node);
        entry = {
          node,
          shouldRun: n ? shouldRun(n, true) : false,
          running: [],
          terminating: [],
        };
        out.set(node, entry);
      }
      return entry;
    };
    for (const node of nodes.values()) {
      if (shouldRun(node)) at(node.metadata.name ?? '');
    }
    for (const pod of ownedPods(ctx, ds)) {
      const entry = at(nodeOfPod(pod) ?? '');
      if (isPodTerminal(pod)) {
        // A finished daemon pod is replaced (upstream: failed pods are killed, with a backoff).
        if (!pod.metadata.deletionTimestamp) deletePod(ds, pod);
      } else if (pod.metadata.deletionTimestamp) entry.terminating.push(pod);
      else entry.running.push(pod);
    }
    for (const entry of out.values()) entry.running.sort(byAge);
    return [...out.values()];
  };

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const ds = store.get(R.daemonsets, namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const nodes = new Map(
      store.listPage(R.nodes, {}, { shared: true }).items.map((n) => [n.metadata.name ?? '', n]),
    );
    let placed = podsByNode(ds, nodes);
    const inUse = new Set(
      placed.flatMap((n) => n.running.map((p) => p.metadata.labels?.[REVISION_HASH] ?? '')),
    );
    const { hash } = syncRevisions(store, ds, {
      actor: ACTOR,
      inUse,
      ...(ds.metadata.annotations ? { annotations: ds.metadata.annotations } : {}),
    });
    const spec = ds.spec ?? {};
    const strategy = (spec['updateStrategy'] ?? {}) as {
      type?: string;
      rollingUpdate?: { maxUnavailable?: unknown; maxSurge?: unknown };
    };
    const minReadySeconds = Number(spec['minReadySeconds'] ?? 0);
    const now = clock.now().getTime();
    const desired = placed.filter((n) => n.shouldRun).length;
    const maxSurge = scaledValue(strategy.rollingUpdate?.maxSurge ?? 0, desired);
    const maxUnavailable =
      scaledValue(strategy.rollingUpdate?.maxUnavailable ?? 1, desired) || (maxSurge === 0 ? 1 : 0);

    // The manage loop: a pod where one should run and none is, none where none should, one per node.
    for (const n of placed) {
      if (!n.shouldRun) {
        for (const pod of n.running) deletePod(ds, pod);
      } else if (n.running.length === 0 && n.terminating.length === 0) {
        createPod(ds, n.node, hash);
      } else if (n.running.length > 1) {
        manyOnNode(n, hash, { maxSurge, minReadySeconds, now }).forEach((p) => deletePod(ds, p));
      }
    }
    if (strategy.type !== 'OnDelete') {
      placed = podsByNode(ds, nodes);
      const plan = planRollingUpdate(placed, {
        hash,
        maxUnavailable,
        maxSurge,
        minReadySeconds,
        now,
      });
      for (const podName of plan.remove) {
        const pod = placed.flatMap((n) => n.running).find((p) => p.metadata.name === podName);
        if (pod) deletePod(ds, pod);
      }
      for (const node of plan.create) createPod(ds, node, hash);
    }
    writeStatus(ds, podsByNode(ds, nodes), { hash, minReadySeconds, now });
  };

  const writeStatus = (
    ds: KObject,
    placed: NodePods[],
    at: { hash: string; minReadySeconds: number; now: number },
  ): void => {
    let desired = 0;
    let scheduled = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    let waitMs = 0;
    for (const n of placed) {
      // The oldest pod on a node speaks for it, being deleted or not (updateDaemonSetStatus).
      const oldest = [...n.running, ...n.terminating].sort(byAge)[0];
      if (!n.shouldRun) {
        if (oldest) misscheduled++;
        continue;
      }
      desired++;
      if (!oldest) continue;
      scheduled++;
      if (isPodReady(oldest)) {
        ready++;
        if (isPodAvailable(oldest, at.minReadySeconds, at.now)) available++;
        else waitMs = Math.max(waitMs, at.minReadySeconds * 1000);
      }
      if (oldest.metadata.labels?.[REVISION_HASH] === at.hash) updated++;
    }
    if (waitMs > 0) queue.addAfter(keyOf(ds), waitMs);
    store.mutate(
      R.daemonsets,
      ds.metadata.namespace,
      ds.metadata.name ?? '',
      (object) => {
        object.status = {
          ...object.status,
          desiredNumberScheduled: desired,
          currentNumberScheduled: scheduled,
          updatedNumberScheduled: updated,
          numberReady: ready,
          numberAvailable: available,
          numberUnavailable: Math.max(0, desired - available),
          numberMisscheduled: misscheduled,
          observedGeneration: object.metadata.generation ?? 1,
        };
        if (object.status['numberUnavailable'] === 0) delete object.status['numberUnavailable'];
        if (object.status['numberAvailable'] === 0) delete object.status['numberAvailable'];
        if (object.status['updatedNumberScheduled'] === 0)
          delete object.status['updatedNumberScheduled'];
      },
      { actor: ACTOR, subresource: 'status' },
    );
  };

  /** node → what about it decides where daemons run, to skip heartbeat-only changes. */
  const seen = new Map<string, string>();
  const queue = createWorkQueue({ name: 'daemonset', clock, log: ctx.log, reconcile });
  const allDaemonSets = (): void => {
    for (const ds of store.listPage(R.daemonsets, {}, { shared: true }).items) queue.add(keyOf(ds));
  };
  const stops = [
    store.watch(R.daemonsets, (e) => {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object));
    }),
    store.watch(R.pods, (e) => {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'DaemonSet') queue.add(`${e.object.metadata.namespace ?? ''}/${ref.name}`);
    }),
    store.watch(R.controllerrevisions, (e) => {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'DaemonSet' && e.type === 'DELETED')
        queue.add(`${e.object.metadata.namespace ?? ''}/${ref.name}`);
    }),
    store.watchFrom(
      R.nodes,
      undefined,
      (e) => {
        // Heartbeats rewrite node status all the time; only membership, labels and taints matter here.
        const name = e.object.metadata.name ?? '';
        const signature = e.type === 'DELETED' ? '' : nodeSignature(e.object);
        if (seen.get(name) === signature) return;
        if (signature) seen.set(name, signature);
        else seen.delete(name);
        allDaemonSets();
      },
      { shared: true },
    ),
  ];
  allDaemonSets();
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
