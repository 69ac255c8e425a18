/**
 * Node reads and writes. Every patch goes out as a JSON merge patch (client-node 2.x would otherwise
 * send json-patch+json, which the API rejects for an object body); conditional writes carry
 * `metadata.resourceVersion` in the patch, which the API compares and answers 409 when stale.
 */
import { PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import type { NodeInfo, NodesPort } from '../../app/ports.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { setMaintenanceConditions } from './node-conditions.js';
import { listAll } from './paginate.js';
import { withRetry } from './retry.js';

export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Pure mapper: the one place that knows where bootID, kubelet version and readiness live. */
export function toNodeInfo(node: V1Node): NodeInfo {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  return {
    name: node.metadata?.name ?? '',
    uid: node.metadata?.uid ?? '',
    resourceVersion: node.metadata?.resourceVersion ?? '',
    unschedulable: node.spec?.unschedulable ?? false,
    bootId: node.status?.nodeInfo?.bootID ?? '',
    kubeletVersion: node.status?.nodeInfo?.kubeletVersion ?? '',
    ...(node.status?.nodeInfo?.osImage ? { osImage: node.status.nodeInfo.osImage } : {}),
    ready,
    labels: { ...(node.metadata?.labels ?? {}) },
    annotations: { ...(node.metadata?.annotations ?? {}) },
    taints: (node.spec?.taints ?? []).map((t) => ({
      key: t.key,
      effect: t.effect,
      ...(t.value === undefined ? {} : { value: t.value }),
    })),
  };
}

/** The Node as the API returns it, or undefined when there is none. */
export async function readNodeObject(
  client: KubeClient,
  name: string,
): Promise<V1Node | undefined> {
  try {
    return await withRetry(`get node ${name}`, () => client.core.readNode({ name }), client.retry);
  } catch (error) {
    if (isKubeError(error, 'not-found')) return undefined;
    throw error;
  }
}

export async function getNode(client: KubeClient, name: string): Promise<NodeInfo | undefined> {
  const node = await readNodeObject(client, name);
  return node && toNodeInfo(node);
}

/**
 * Nodes per page. Twice kubectl's 500: whoever lists every node (the skew scan, hourly) keeps them
 * all in memory anyway, and each page is a round trip and a read of its own on the apiserver; 5,000
 * nodes are 5 pages, not 10 (issue 20). A Node is ~2 KB, so a page stays a few MB.
 */
export const NODE_PAGE_SIZE = 1_000;

/** Every Node (paginated), as the API returns them; `labelSelector` narrows the list server-side. */
export async function listNodeObjects(
  client: KubeClient,
  labelSelector?: string,
): Promise<V1Node[]> {
  return listAll(
    'list nodes',
    (cont, limit) =>
      client.core.listNode({
        limit,
        ...(cont === undefined ? {} : { _continue: cont }),
        ...(labelSelector === undefined ? {} : { labelSelector }),
      }),
    client.retry,
    NODE_PAGE_SIZE,
  );
}

export async function listNodes(client: KubeClient, labelSelector?: string): Promise<NodeInfo[]> {
  return (await listNodeObjects(client, labelSelector)).map(toNodeInfo);
}

/** Merge-patch a node. With `resourceVersion` the write is conditional (409 → `conflict`). */
export async function patchNode(
  client: KubeClient,
  name: string,
  patch: Record<string, unknown>,
  resourceVersion?: string,
): Promise<NodeInfo> {
  const body =
    resourceVersion === undefined
      ? patch
      : {
          ...patch,
          metadata: { ...(patch.metadata as Record<string, unknown>), resourceVersion },
        };
  const node = await withRetry(
    `patch node ${name}`,
    () => client.core.patchNode({ name, body }, MERGE_PATCH),
    client.retry,
  );
  return toNodeInfo(node);
}

export function kubeNodesPort(client: KubeClient): NodesPort {
  return {
    getNode: (name) => getNode(client, name),
    writeNodeMeta: (name, resourceVersion, meta) =>
      patchNode(client, name, { metadata: { ...meta } }, resourceVersion),
    // null, not false: kubectl's uncordon removes the field (omitempty) rather than setting false.
    setUnschedulable: (name, unschedulable) =>
      patchNode(client, name, { spec: { unschedulable: unschedulable ? true : null } }),
    setMaintenanceConditions: (name, conditions) =>
      setMaintenanceConditions(client, name, conditions),
  };
}
