/**
 * `KubeletApi` on a real apiserver, as the node (its client carries the node's identity): reads come
 * from what this kubelet last saw (its Node from its own writes' answers, its pods from the pod
 * watch), writes land in that view at once and go out in the background through one latest-wins
 * writer per object, the way the kubelet's status manager syncs pod statuses:
 *
 * - node status: strategic merge PATCH of `nodes/<name>/status` (conditions merge by type);
 * - Lease `kube-node-lease/<name>`: created once (owned by the Node), then renewed by PUT with the
 *   resourceVersion it read (a Lease refuses unconditional updates), re-read on a conflict;
 * - pod status: strategic merge PATCH of `pods/<name>/status` carrying the pod's uid, so a pod deleted
 *   and created again under the same name never gets the old one's status (the apiserver refuses);
 * - pod removal: DELETE with grace 0 and a uid precondition; Events: POST, best effort.
 *
 * Watch events older than a write this kubelet already saw answered are ignored (status-patch.ts
 * `isNotOlder`), so a slow watch never shows the kubelet its own past.
 */
import { once, withRetry } from './api-errors.js';
import { isApiError } from './api-errors.js';
import type { Logger } from '../log.js';
import type { KubeletApi } from '../kubelet-api.js';
import { NODE_LEASE_NAMESPACE, NODE_LEASE_SECONDS, nodeLease } from '../kubelet-objects.js';
import { clone, deepEqual } from '../store-meta.js';
import type { KObject } from '../types.js';
import { STRATEGIC_MERGE, type KubeJson } from './kube-json.js';
import { latestWriter, type LatestWriter } from './latest-writer.js';
import { isNotOlder, statusPatch } from './status-patch.js';
import { KUBELET_NODE_CONDITIONS } from '../kubelet-node-status.js';

type Status = Record<string, unknown>;

/**
 * A pod as the server last showed it, the status this kubelet wants it to have (if different) and
 * the status it last asked for (its status manager's cache, put back by `resyncPods`).
 */
interface PodEntry {
  server: KObject;
  wanted?: Status;
  ours?: Status;
  writer: LatestWriter;
}

/** The pod conditions a kubelet owns; the others (PodScheduled, DisruptionTarget) are other writers'. */
const KUBELET_CONDITIONS = new Set([
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
]);

type PodCondition = { type: string; status?: string };
const conditionsOf = (status: Status | undefined): PodCondition[] =>
  (status?.['conditions'] as PodCondition[] | undefined) ?? [];
const ownedOf = (status: Status | undefined): string =>
  conditionsOf(status)
    .filter((c) => KUBELET_CONDITIONS.has(c.type))
    .map((c) => `${c.type}=${c.status ?? ''}`)
    .sort()
    .join(',');

/** The server's status with the kubelet's own conditions as it last wrote them. */
function reasserted(server: Status | undefined, ours: Status): Status {
  return {
    ...clone(server ?? {}),
    conditions: [
      ...conditionsOf(server).filter((c) => !KUBELET_CONDITIONS.has(c.type)),
      ...clone(conditionsOf(ours).filter((c) => KUBELET_CONDITIONS.has(c.type))),
    ],
  };
}

export interface PodSync {
  pod: KObject;
  deleted: boolean;
}

export interface HttpKubeletApi extends KubeletApi {
  /** A pod watch event: updates the view, returns what the kubelet should sync (maybe nothing). */
  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: KObject): PodSync[];
  /** Resolves once every write asked for so far has been answered. */
  flushed(): Promise<void>;
  stop(): void;
}

const keyOf = (pod: KObject): string =>
  `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
const rv = (o: KObject | undefined): string | undefined => o?.metadata.resourceVersion;

/** Gone, or replaced by another object under the same name: nothing of ours left to write. */
const isGone = (error: unknown): boolean =>
  isApiError(error, 'not-found') || isApiError(error, 'conflict') || isApiError(error, 'invalid');

export function httpKubeletApi(client: KubeJson, registered: KObject, log: Logger): HttpKubeletApi {
  const name = registered.metadata.name ?? '';
  const nodePath = `/api/v1/nodes/${encodeURIComponent(name)}`;
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;
  let node: KObject | undefined = registered;
  let nodeWanted: Status | undefined;
  let lease: KObject | undefined;
  let renewWanted: string | undefined;
  const pods = new Map<string, PodEntry>();
  let stopped = false;
  const background = new Set<Promise<unknown>>();
  const track = (what: string, work: Promise<unknown>): void => {
    const done = work.then(
      () => undefined,
      (error: unknown) =>
        log.warn(
          { node: name, what, err: error instanceof Error ? error.message : String(error) },
          'sim kubelet request failed',
        ),
    );
    background.add(done);
    void done.finally(() => background.delete(done));
  };

  const withStatus = (object: KObject, status: Status | undefined): KObject => {
    const view = clone(object);
    if (status !== undefined) view.status = clone(status);
    return view;
  };

  const nodeWriter = latestWriter(
    `node ${name} status`,
    async () => {
      const want = nodeWanted;
      if (!want || !node) return;
      const body = {
        metadata: { uid: node.metadata.uid },
        status: statusPatch(node.status, want, KUBELET_NODE_CONDITIONS),
      };
      try {
        node = await once(`patch node ${name} status`, () =>
          client.request<KObject>('PATCH', `${nodePath}/status`, {
            body,
            contentType: STRATEGIC_MERGE,
          }),
        );
        if (nodeWanted === want) nodeWanted = undefined;
      } catch (error) {
        if (!isApiError(error, 'not-found')) throw error;
        // Deleted under us: a real kubelet would go on failing; this one stops posting.
        log.warn({ node: name }, 'sim node was deleted; its kubelet stops posting');
        node = undefined;
        nodeWanted = undefined;
      }
    },
    log,
  );

  const leaseWriter = latestWriter(
    `lease ${name}`,
    async () => {
      const renewTime = renewWanted;
      if (!renewTime || !node) return;
      const path = `${leases}/${encodeURIComponent(name)}`;
      if (!lease) {
        try {
          lease = await withRetry(`get lease ${name}`, () => client.request<KObject>('GET', path));
        } catch (error) {
          if (!isApiError(error, 'not-found')) throw error;
          lease = await once(`create lease ${name}`, () =>
            client.request<KObject>('POST', leases, {
              body: nodeLease(name, renewTime, node?.metadata.uid),
            }),
          );
          if (renewWanted === renewTime) renewWanted = undefined;
          return;
        }
      }
      const next = clone(lease);
      next.spec = {
        ...next.spec,
        holderIdentity: name,
        leaseDurationSeconds: NODE_LEASE_SECONDS,
        renewTime,
      };
      try {
        lease = await once(`renew lease ${name}`, () =>
          client.request<KObject>('PUT', path, { body: next }),
        );
        if (renewWanted === renewTime) renewWanted = undefined;
      } catch (error) {
        // Someone else wrote it (or removed it): read it again and retry.
        if (isApiError(error, 'conflict') || isApiError(error, 'not-found')) lease = undefined;
        throw error;
      }
    },
    log,
  );

  const podWriter = (key: string): LatestWriter =>
    latestWriter(
      `pod ${key} status`,
      async () => {
        const entry = pods.get(key);
        const want = entry?.wanted;
        if (!entry || !want) return;
        const { namespace = '', name: pod = '', uid } = entry.server.metadata;
        const body = { metadata: { uid }, status: statusPatch(entry.server.status, want) };
        try {
          const written = await once(`patch pod ${key} status`, () =>
            client.request<KObject>(
              'PATCH',
              `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/status`,
              { body, contentType: STRATEGIC_MERGE },
            ),
          );
          if (isNotOlder(rv(written), rv(entry.server))) entry.server = written;
        } catch (error) {
          if (!isGone(error)) throw error;
        }
        if (entry.wanted === want) delete entry.wanted;
      },
      log,
    );

  const forget = (key: string): void => {
    pods.get(key)?.writer.stop();
    pods.delete(key);
  };

  return {
    node: () => node && withStatus(node, nodeWanted),
    pods: () => [...pods.values()].map((e) => withStatus(e.server, e.wanted)),
    pod(namespace, pod) {
      const entry = pods.get(`${namespace ?? ''}/${pod}`);
      return entry && withStatus(entry.server, entry.wanted);
    },
    writeNodeStatus(mutate) {
      if (!node) return;
      const view = withStatus(node, nodeWanted);
      mutate(view);
      if (deepEqual(view.status, nodeWanted ?? node.status)) return;
      nodeWanted = view.status ?? {};
      nodeWriter.kick();
    },
    renewLease(renewTime) {
      renewWanted = renewTime;
      leaseWriter.kick();
    },
    writePodStatus(pod, mutate) {
      const entry = pods.get(keyOf(pod));
      if (!entry || entry.server.metadata.uid !== pod.metadata.uid) return undefined;
      const view = withStatus(entry.server, entry.wanted);
      mutate(view);
      if (!deepEqual(view.status, entry.wanted ?? entry.server.status)) {
        entry.wanted = view.status ?? {};
        entry.ours = entry.wanted;
        entry.writer.kick();
      }
      return view;
    },
    resyncPods() {
      for (const entry of pods.values()) {
        const { ours } = entry;
        if (!ours || entry.wanted || ownedOf(entry.server.status) === ownedOf(ours)) continue;
        entry.wanted = reasserted(entry.server.status, ours);
        entry.writer.kick();
      }
    },
    deletePod(pod) {
      const { namespace = '', name: podName = '', uid } = pod.metadata;
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(podName)}`;
      const body = {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        preconditions: { uid },
      };
      // A real kubelet's pod worker removes a pod it terminated until the pod is gone; given up
      // after eight tries, an apiserver away for longer (a restart, etcd stopped) left the pod
      // Terminating for ever, and a drain waiting for it stuck (the faults test on kube-apiserver).
      track(
        `delete pod ${keyOf(pod)}`,
        withRetry(
          `delete pod ${keyOf(pod)}`,
          () =>
            client.request('DELETE', path, { body }).catch((error: unknown) => {
              // Already gone, or a new pod took the name: nothing of ours left to remove.
              if (!isGone(error)) throw error;
            }),
          () => !stopped,
        ),
      );
    },
    recordEvent(event) {
      const namespace = event.metadata.namespace ?? 'default';
      track(
        `event ${String(event['reason'])}`,
        once('record event', () =>
          client.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, {
            body: event,
          }),
        ),
      );
    },
    observe(type, pod) {
      const key = keyOf(pod);
      const entry = pods.get(key);
      if (type === 'DELETED') {
        if (entry?.server.metadata.uid !== pod.metadata.uid) return [];
        forget(key);
        return [{ pod, deleted: true }];
      }
      const synced: PodSync[] = [];
      if (entry && entry.server.metadata.uid !== pod.metadata.uid) {
        // The old pod's DELETED was missed (the watch re-listed): it is gone all the same.
        forget(key);
        synced.push({ pod: entry.server, deleted: true });
      } else if (entry) {
        if (!isNotOlder(rv(pod), rv(entry.server))) return [];
        entry.server = pod;
        return [{ pod: withStatus(pod, entry.wanted), deleted: false }];
      }
      pods.set(key, { server: pod, writer: podWriter(key) });
      synced.push({ pod, deleted: false });
      return synced;
    },
    async flushed() {
      while (!stopped) {
        const pending = [nodeWriter, leaseWriter, ...[...pods.values()].map((e) => e.writer)];
        await Promise.all([...pending.map((w) => w.idle()), ...background]);
        const busy =
          nodeWanted !== undefined ||
          renewWanted !== undefined ||
          background.size > 0 ||
          [...pods.values()].some((e) => e.wanted !== undefined);
        if (!busy) return;
      }
    },
    stop() {
      stopped = true;
      nodeWriter.stop();
      leaseWriter.stop();
      for (const entry of pods.values()) entry.writer.stop();
    },
  };
}
