/**
 * Pods: the paginated node listing, evictions through the Eviction API (policy/v1), deletes with a UID
 * precondition, and a watch on the node's pods so the drain learns of deletions without polling.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { EvictionResult, PodInfo, PodWatchEvent, PodsPort } from '../../app/ports.js';
import type { DisruptionBudget } from '../../core/eviction-lanes.js';
import type { KubeClient } from './client.js';
import { translate } from './errors.js';
import { listAll } from './paginate.js';
import { isDisruptionBudgetRefusal, undefinedOn, withRetry } from './retry.js';

/** Pure mapper from the API object; also used on raw watch objects (dates are strings there). */
export function toPodInfo(pod: V1Pod): PodInfo {
  const deletion = pod.metadata?.deletionTimestamp as Date | string | undefined;
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    nodeName: pod.spec?.nodeName ?? '',
    phase: pod.status?.phase ?? 'Unknown',
    labels: { ...(pod.metadata?.labels ?? {}) },
    annotations: { ...(pod.metadata?.annotations ?? {}) },
    owners: (pod.metadata?.ownerReferences ?? []).map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.name,
      controller: o.controller ?? false,
    })),
    hasEmptyDir: (pod.spec?.volumes ?? []).some((v) => v.emptyDir != null),
    ...(deletion === undefined || deletion === null
      ? {}
      : { deletionTimestamp: new Date(deletion) }),
  };
}

export async function listPodsOnNode(
  client: KubeClient,
  node: string,
  labelSelector?: string,
): Promise<PodInfo[]> {
  const pods = await listAll(
    `list pods on node ${node}`,
    (cont, limit) =>
      client.core.listPodForAllNamespaces({
        fieldSelector: `spec.nodeName=${node}`,
        limit,
        ...(cont === undefined ? {} : { _continue: cont }),
        ...(labelSelector ? { labelSelector } : {}),
      }),
    client.retry,
  );
  return pods.map(toPodInfo);
}

export async function evictPod(
  client: KubeClient,
  pod: { namespace: string; name: string; uid: string },
  options: { gracePeriodSeconds?: number; dryRun?: boolean },
): Promise<EvictionResult> {
  const { namespace, name, uid } = pod;
  const deleteOptions = {
    // The UID precondition keeps a same-name replacement (StatefulSet) from being evicted by mistake.
    ...(uid ? { preconditions: { uid } } : {}),
    ...(options.gracePeriodSeconds === undefined
      ? {}
      : { gracePeriodSeconds: options.gracePeriodSeconds }),
    ...(options.dryRun ? { dryRun: ['All'] } : {}),
  };
  try {
    // Overload (429 with Retry-After, 5xx, no answer) is retried inside a while; a PDB refusal comes
    // back here at once, an outage longer than the retries as `unavailable`.
    await withRetry(
      `evict pod ${namespace}/${name}`,
      () =>
        client.core.createNamespacedPodEviction({
          name,
          namespace,
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name, namespace },
            deleteOptions,
          },
          ...(options.dryRun ? { dryRun: 'All' } : {}),
        }),
      client.retry,
    );
    return { outcome: 'evicting' };
  } catch (raw) {
    const error = translate(raw, `evict pod ${namespace}/${name}`);
    if (error.kind === 'not-found') return { outcome: 'gone' };
    // A UID precondition failing means the pod we meant is already gone and replaced.
    if (error.kind === 'conflict') return { outcome: 'gone' };
    const detail = error.causes.map((c) => c.message).find(Boolean);
    const message = detail ?? error.message;
    if (
      error.kind === 'throttled' ||
      error.causes.some((c) => c.reason === 'NamespaceTerminating')
    ) {
      return {
        outcome: 'refused',
        message,
        pdbBlocked: isDisruptionBudgetRefusal(error),
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      };
    }
    // The apiserver restarting or its etcd away: an answer may come later, a verdict never came.
    if (error.kind === 'unavailable') return { outcome: 'unavailable', message };
    return { outcome: 'failed', message };
  }
}

export async function deletePod(
  client: KubeClient,
  pod: { namespace: string; name: string; uid: string },
  options: { gracePeriodSeconds?: number },
): Promise<void> {
  // Gone, or (the UID precondition failing) already replaced: either way the pod we meant is not there.
  await undefinedOn(
    ['not-found', 'conflict'],
    `delete pod ${pod.namespace}/${pod.name}`,
    () =>
      client.core.deleteNamespacedPod({
        name: pod.name,
        namespace: pod.namespace,
        body: {
          ...(pod.uid ? { preconditions: { uid: pod.uid } } : {}),
          ...(options.gracePeriodSeconds === undefined
            ? {}
            : { gracePeriodSeconds: options.gracePeriodSeconds }),
        },
      }),
    client.retry,
  );
}

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED']);

export async function watchPodsOnNode(
  client: KubeClient,
  node: string,
  handler: (event: PodWatchEvent) => void,
  onEnd: (error?: unknown) => void,
): Promise<() => void> {
  let ended = false;
  const end = (error?: unknown): void => {
    if (ended) return;
    ended = true;
    onEnd(error);
  };
  const controller = await client.watch.watch(
    '/api/v1/pods',
    { fieldSelector: `spec.nodeName=${node}`, allowWatchBookmarks: false },
    (type, object) => {
      if (WATCH_TYPES.has(type)) {
        handler({ type: type as PodWatchEvent['type'], pod: toPodInfo(object as V1Pod) });
      } else if (type === 'ERROR') {
        end(new Error(`pod watch on ${node} ended with an error event`));
      }
    },
    (error: unknown) => end(error ?? undefined),
  );
  return () => {
    ended = true;
    controller.abort();
  };
}

/** Every PDB of the cluster, paginated: which pods each guards (core/eviction-lanes.ts). */
export async function listDisruptionBudgets(client: KubeClient): Promise<DisruptionBudget[]> {
  const budgets = await listAll(
    'list poddisruptionbudgets',
    (cont, limit) =>
      client.policy.listPodDisruptionBudgetForAllNamespaces({
        limit,
        ...(cont === undefined ? {} : { _continue: cont }),
      }),
    client.retry,
  );
  return budgets.map((pdb) => ({
    namespace: pdb.metadata?.namespace ?? '',
    name: pdb.metadata?.name ?? '',
    selector: pdb.spec?.selector,
  }));
}

export function kubePodsPort(client: KubeClient): PodsPort {
  return {
    listPodsOnNode: (node, labelSelector) => listPodsOnNode(client, node, labelSelector),
    evictPod: (pod, options) => evictPod(client, pod, options),
    deletePod: (pod, options) => deletePod(client, pod, options),
    watchPodsOnNode: (node, handler, onEnd) => watchPodsOnNode(client, node, handler, onEnd),
    listDisruptionBudgets: () => listDisruptionBudgets(client),
  };
}
