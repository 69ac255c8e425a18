/**
 * The node lifecycle controller with its taint manager: a node whose kubelet stopped heartbeating for
 * `nodeMonitorGraceMs` gets every condition set to Unknown; taints follow the Ready condition
 * (`not-ready` for False, `unreachable` for Unknown, NoSchedule and NoExecute) and `spec.unschedulable`;
 * pods on a NoExecute-tainted node are deleted when their tolerations run out (300 s by default).
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import {
  desiredTaints,
  evictionTime,
  lastHeartbeat,
  readyStatus,
  sameTaints,
} from './node-health.js';
import { podSpec, setCondition, type Condition, type PodStatus, type Taint } from './shapes.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/node-lifecycle';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

export function startNodeLifecycle(ctx: ControllerContext): Stop {
  const { store, clock, delays } = ctx;
  const record = recorderFor(store, () => clock.now(), 'node-controller', ACTOR);
  const recordEviction = recorderFor(store, () => clock.now(), 'taint-eviction-controller', ACTOR);
  const tainted = new Set<string>();
  /** When a NoExecute taint without `timeAdded` (put there by a user) was first seen, per node. */
  const firstSeen = new Map<string, Map<string, string>>();

  /** The taint manager counts tolerationSeconds from when it saw the taint appear. */
  const stamped = (name: string, taints: readonly Taint[], nowIso: string): Taint[] => {
    const seen = firstSeen.get(name) ?? new Map<string, string>();
    const next = new Map<string, string>();
    const out = taints.map((taint) => {
      if (taint.effect !== 'NoExecute' || taint.timeAdded) return taint;
      const key = `${taint.key}=${taint.value ?? ''}`;
      const at = seen.get(key) ?? nowIso;
      next.set(key, at);
      return { ...taint, timeAdded: at };
    });
    firstSeen.set(name, next);
    return out;
  };

  const markUnknown = (node: KObject, nowIso: string): void => {
    store.mutate(
      R.nodes,
      undefined,
      node.metadata.name ?? '',
      (n) => {
        const status = (n.status ??= {}) as { conditions?: Condition[] };
        const existing = status.conditions ?? [];
        const never = existing.length === 0;
        for (const type of CONDITION_TYPES) {
          const previous = existing.find((c) => c.type === type);
          setCondition(
            status,
            {
              type,
              status: 'Unknown',
              reason: never ? 'NodeStatusNeverUpdated' : 'NodeStatusUnknown',
              message: never
                ? 'Kubelet never posted node status.'
                : 'Kubelet stopped posting node status.',
              ...(previous?.lastHeartbeatTime
                ? { lastHeartbeatTime: previous.lastHeartbeatTime }
                : {}),
            },
            nowIso,
          );
        }
      },
      { actor: ACTOR, subresource: 'status' },
    );
  };

  /** `MarkPodsNotReady`: a node nobody hears from cannot vouch for its pods' readiness. */
  const markPodsNotReady = (name: string, nowIso: string): void => {
    for (const pod of store.list(R.pods, { fieldSelector: `spec.nodeName=${name}` })) {
      const status: PodStatus = pod.status ?? {};
      if (!status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      store.mutate(
        R.pods,
        pod.metadata.namespace,
        pod.metadata.name ?? '',
        (p) => {
          const next: PodStatus = (p.status ??= {});
          setCondition(next, { type: 'Ready', status: 'False', reason: 'NodeNotReady' }, nowIso);
          setCondition(
            next,
            { type: 'ContainersReady', status: 'False', reason: 'NodeNotReady' },
            nowIso,
          );
        },
        { actor: ACTOR, subresource: 'status' },
      );
      record({
        regarding: pod,
        reason: 'NodeNotReady',
        message: 'Node is not ready',
        type: 'Warning',
      });
    }
  };

  const evictPods = (name: string, taints: readonly Taint[], now: number): void => {
    let next: number | undefined;
    for (const pod of store.list(R.pods, { fieldSelector: `spec.nodeName=${name}` })) {
      if (pod.metadata.deletionTimestamp) continue;
      const due = evictionTime(pod, taints, now);
      if (due === undefined) continue;
      if (due > now) {
        next = next === undefined ? due : Math.min(next, due);
        continue;
      }
      const { namespace, name: podName } = pod.metadata;
      store.mutate(
        R.pods,
        namespace,
        podName ?? '',
        (p) =>
          setCondition(
            (p.status ??= {}),
            {
              type: 'DisruptionTarget',
              status: 'True',
              reason: 'DeletionByTaintManager',
              message: 'Taint manager: deleting due to NoExecute taint',
            },
            new Date(now).toISOString(),
          ),
        { actor: ACTOR, subresource: 'status' },
      );
      store.delete(R.pods, namespace, podName ?? '', { actor: ACTOR });
      recordEviction({
        regarding: pod,
        reason: 'TaintManagerEviction',
        message: `Marking for deletion Pod ${namespace ?? ''}/${podName ?? ''}`,
      });
    }
    if (next !== undefined) queue.addAfter(name, next - now);
  };

  const reconcile = (name: string): void => {
    let node = store.get(R.nodes, undefined, name);
    if (!node) {
      firstSeen.delete(name);
      return void tainted.delete(name);
    }
    const now = clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    const beat = lastHeartbeat(node, store.get(R.leases, NODE_LEASE_NAMESPACE, name));
    const since = beat ?? Date.parse(node.metadata.creationTimestamp ?? nowIso);
    if (now - since > delays.nodeMonitorGraceMs && readyStatus(node) !== 'Unknown') {
      markUnknown(node, nowIso);
      record({
        regarding: node,
        reason: 'NodeNotReady',
        message: `Node ${name} status is now: NodeNotReady`,
      });
      markPodsNotReady(name, nowIso);
      node = store.get(R.nodes, undefined, name) ?? node;
    }
    const taints = desiredTaints(node, nowIso);
    if (!sameTaints(taints, (node.spec?.['taints'] ?? []) as Taint[])) {
      store.mutate(
        R.nodes,
        undefined,
        name,
        (n) => {
          const spec = (n.spec ??= {});
          if (taints.length > 0) spec['taints'] = taints;
          else delete spec['taints'];
        },
        { actor: ACTOR },
      );
    }
    if (taints.some((t) => t.effect === 'NoExecute')) {
      tainted.add(name);
      evictPods(name, stamped(name, taints, nowIso), now);
    } else {
      tainted.delete(name);
    }
  };

  const queue = createWorkQueue({ name: 'node-lifecycle', clock, log: ctx.log, reconcile });
  const all = (): void => {
    for (const node of store.list(R.nodes)) queue.add(node.metadata.name ?? '');
  };
  const unwatchNodes = store.watch(R.nodes, (event) => {
    if (event.type !== 'DELETED') queue.add(event.object.metadata.name ?? '');
  });
  // A pod bound to a node that already has NoExecute taints is judged at once.
  const unwatchPods = store.watch(R.pods, (event) => {
    const node = podSpec(event.object).nodeName;
    if (event.type !== 'DELETED' && node && tainted.has(node)) queue.add(node);
  });
  const stopMonitor = clock.every(delays.nodeMonitorPeriodMs, all);
  all();
  return () => {
    unwatchNodes();
    unwatchPods();
    stopMonitor();
    queue.stop();
  };
}
