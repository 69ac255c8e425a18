/**
 * The DaemonSet controller: one pod per eligible node (node selector and taints, with the tolerations
 * the real controller adds: not-ready/unreachable NoExecute forever, unschedulable and pressure
 * NoSchedule), pinned through required node affinity on `metadata.name` so the scheduler binds it even
 * to a cordoned node. Pods on nodes that no longer qualify, or gone nodes, are deleted.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { podFromTemplate } from './pod-template.js';
import { ownedPods } from './replicaset.js';
import { isTolerated } from './selectors.js';
import {
  isPodActive,
  isPodReady,
  keyOf,
  controllerRef,
  podSpec,
  splitKey,
  type Taint,
  type Toleration,
} from './shapes.js';
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
 * Whether `node` should run the daemon pod (`NodeShouldRunDaemonPod`): a new pod needs every
 * NoSchedule and NoExecute taint tolerated; a running one stays while its NoExecute taints are, so a
 * node going NotReady keeps its daemon pods.
 */
export function shouldRun(ds: KObject, node: KObject, running = false): boolean {
  const template = ((ds.spec ?? {})['template'] ?? {}) as {
    spec?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
  };
  const templateSpec = template.spec ?? {};
  const labels = node.metadata.labels ?? {};
  const selected = Object.entries(templateSpec.nodeSelector ?? {}).every(
    ([k, v]) => labels[k] === v,
  );
  if (!selected) return false;
  const tolerations = daemonTolerations(templateSpec.tolerations);
  const taints = (node.spec?.['taints'] ?? []) as Taint[];
  return taints.every(
    (taint) =>
      taint.effect === 'PreferNoSchedule' ||
      (running && taint.effect === 'NoSchedule') ||
      isTolerated(tolerations, taint),
  );
}

const nodeSignature = (node: KObject): string =>
  JSON.stringify([node.metadata.labels, node.spec?.['taints'], node.spec?.['unschedulable']]);

const nodeOfPod = (pod: KObject): string | undefined => {
  const terms =
    podSpec(pod).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms;
  return podSpec(pod).nodeName ?? terms?.[0]?.matchFields?.[0]?.values?.[0];
};

export function startDaemonSetController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  const record = recorderFor(store, () => clock.now(), 'daemonset-controller', ACTOR);

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const ds = store.get(R.daemonsets, namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const nodes = new Map(
      store.listPage(R.nodes, {}, { shared: true }).items.map((n) => [n.metadata.name ?? '', n]),
    );
    const pods = ownedPods(ctx, ds).filter(isPodActive);
    const byNode = new Map<string, KObject>();
    for (const pod of pods) {
      const nodeName = nodeOfPod(pod) ?? '';
      const node = nodes.get(nodeName);
      if (!node || !shouldRun(ds, node, true) || byNode.has(nodeName)) {
        store.delete(R.pods, namespace, pod.metadata.name ?? '', { actor: ACTOR });
        record({
          regarding: ds,
          reason: 'SuccessfulDelete',
          message: `Deleted pod: ${pod.metadata.name ?? ''}`,
        });
      } else {
        byNode.set(nodeName, pod);
      }
    }
    const wanted = new Set(byNode.keys());
    for (const node of nodes.values()) {
      if (shouldRun(ds, node)) wanted.add(node.metadata.name ?? '');
    }
    const templateSpec = podSpec({
      metadata: {},
      spec: (ds.spec?.['template'] as { spec?: Record<string, unknown> } | undefined)?.spec ?? {},
    });
    for (const node of wanted) {
      if (byNode.has(node)) continue;
      const pod = podFromTemplate(ds, {
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
    }
    const current = [...byNode.values()];
    const ready = current.filter(isPodReady).length;
    store.mutate(
      R.daemonsets,
      namespace,
      name,
      (object) => {
        object.status = {
          ...object.status,
          desiredNumberScheduled: wanted.size,
          currentNumberScheduled: current.length,
          updatedNumberScheduled: current.length,
          numberReady: ready,
          numberAvailable: ready,
          numberUnavailable: Math.max(0, wanted.size - ready),
          numberMisscheduled: 0,
          observedGeneration: object.metadata.generation ?? 1,
        };
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
