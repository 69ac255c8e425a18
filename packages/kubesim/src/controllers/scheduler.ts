/**
 * The scheduler: binds every pod that has no `spec.nodeName` to a node chosen by `placePod`, or marks it
 * `PodScheduled=False/Unschedulable` and tries again when nodes or pods change. Pods created with
 * `spec.nodeName` (the executor Job, DaemonSet pods of old) never pass through here, as in Kubernetes.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { placePod, type Placement } from './scheduling.js';
import { addPod, NO_USAGE, type NodeUsage } from './scheduler-fit.js';
import { podRequests, type Requests } from './scheduler-requests.js';
import { isPodTerminal, keyOf, podSpec, setCondition, splitKey, type PodStatus } from './shapes.js';
import { claimsBlocking } from './volume-claims.js';
import { createWorkQueue } from './work-queue.js';
import { createEventSink, schedulerEvent } from '../events.js';

const ACTOR = 'controller/scheduler';
const ALL = '*';

export function startScheduler(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  /** podKey → node and requests, for active pods already bound: each node's usage comes from this. */
  const boundTo = new Map<string, { node: string; requests: Requests }>();
  /** podKey → the pod's priority, for pods waiting for a node. */
  const pending = new Map<string, number>();
  const sink = createEventSink(store, ACTOR);
  const record = (pod: KObject, input: Parameters<typeof schedulerEvent>[1]) =>
    sink(schedulerEvent(pod, input, clock.now()));

  const track = (pod: KObject, deleted: boolean): void => {
    const key = keyOf(pod);
    const node = podSpec(pod).nodeName;
    boundTo.delete(key);
    pending.delete(key);
    if (deleted || isPodTerminal(pod)) return;
    if (node) boundTo.set(key, { node, requests: podRequests(pod) });
    else if (pod.metadata.deletionTimestamp === undefined)
      pending.set(key, Number(pod.spec?.['priority'] ?? 0));
  };

  const usage = (): Map<string, NodeUsage> => {
    const out = new Map<string, NodeUsage>();
    for (const { node, requests } of boundTo.values())
      out.set(node, addPod(out.get(node) ?? NO_USAGE, requests));
    return out;
  };

  const bind = (key: string, nodes: KObject[], used: Map<string, NodeUsage>): void => {
    const [namespace, name] = splitKey(key);
    const pod = store.get(R.pods, namespace, name);
    if (!pod || podSpec(pod).nodeName || pod.metadata.deletionTimestamp) return;
    // Unbound claims stop a pod before any node is looked at (VolumeBinding's PreFilter).
    const blocked = claimsBlocking(pod, store);
    const placement: Placement = blocked
      ? { message: `0/${nodes.length} nodes are available: ${blocked}.` }
      : placePod(pod, nodes, used);
    const now = clock.now().toISOString();
    if (placement.node === undefined) {
      const known = (
        pod.status?.['conditions'] as { type: string; message?: string }[] | undefined
      )?.find((c) => c.type === 'PodScheduled')?.message;
      // The real scheduler's events.k8s.io recorder turns repeats into a series; the sim records
      // an attempt only when its reason changed.
      if (known !== placement.message) {
        record(pod, {
          reason: 'FailedScheduling',
          action: 'Scheduling',
          note: placement.message,
          type: 'Warning',
        });
      }
      store.mutate(
        R.pods,
        namespace,
        name,
        (p) => {
          const status = (p.status ??= {}) as PodStatus;
          setCondition(
            status,
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: placement.message,
              lastProbeTime: null,
            },
            now,
          );
        },
        { actor: ACTOR, subresource: 'status' },
      );
      return;
    }
    const node = placement.node;
    store.mutate(R.pods, namespace, name, (p) => void ((p.spec ??= {}).nodeName = node), {
      actor: ACTOR,
      subresource: 'binding',
    });
    store.mutate(
      R.pods,
      namespace,
      name,
      (p) => {
        const status = (p.status ??= {}) as PodStatus;
        setCondition(status, { type: 'PodScheduled', status: 'True', lastProbeTime: null }, now);
      },
      { actor: ACTOR, subresource: 'status' },
    );
    used.set(node, addPod(used.get(node) ?? NO_USAGE, podRequests(pod)));
    record(pod, {
      reason: 'Scheduled',
      action: 'Binding',
      note: `Successfully assigned ${namespace}/${name} to ${node}`,
    });
  };

  const queue = createWorkQueue({
    name: 'scheduler',
    clock,
    log: ctx.log,
    reconcile: () => {
      if (pending.size === 0) return;
      const nodes = store.list(R.nodes);
      const used = usage();
      // PrioritySort, as kube-scheduler's queue: higher priority first, then by name (the sim's
      // stand-in for arrival order), so a critical pod takes the last free slot.
      const order = [...pending].sort(([a, pa], [b, pb]) => pb - pa || (a < b ? -1 : 1));
      for (const [key] of order) bind(key, nodes, used);
    },
  });

  for (const pod of store.listPage(R.pods, {}, { shared: true }).items) track(pod, false);
  const unwatchPods = store.watch(R.pods, (event) => {
    track(event.object, event.type === 'DELETED');
    if (pending.size > 0) queue.add(ALL);
  });
  const unwatchNodes = store.watch(R.nodes, () => {
    if (pending.size > 0) queue.add(ALL);
  });
  const stopResync = clock.every(ctx.delays.resyncMs, () => {
    if (pending.size > 0) queue.add(ALL);
  });
  queue.add(ALL);
  return () => {
    unwatchPods();
    unwatchNodes();
    stopResync();
    queue.stop();
  };
}
