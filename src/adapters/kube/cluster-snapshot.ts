/**
 * The cluster as `kubemaint rehearse` copies it into a twin (issue 21): every object a maintenance
 * campaign's outcome depends on, read with list calls only (plus a get of the durations and pause
 * ConfigMaps), paginated as kubectl does. Nothing here writes: the rehearsal must leave the real
 * cluster exactly as it found it, and the real apiserver's audit log proves it (test/real).
 *
 * A kind the cluster does not serve, or that this identity may not list, is skipped with why, so
 * the report can say what the twin lacks instead of failing the whole rehearsal.
 */
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { GROUP, REQUESTS, VERSION } from './request-codec.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { customObjectsPage, listAll, type Page } from './paginate.js';
import { withRetry } from './retry.js';
import { DURATIONS_CONFIGMAP } from './durations.js';
import { PAUSE_CONFIGMAP } from '../../core/names.js';

/** An object as JSON, the shape the twin is seeded with. */
export type PlainObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown> & {
    name?: string;
    namespace?: string;
    uid?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  [field: string]: unknown;
};

export interface SnapshotKind {
  apiVersion: string;
  kind: string;
  /** Listed in this namespace only; all namespaces when absent. */
  namespace?: string;
  /** Why the rehearsal wants it, for the "skipped" line. */
  why: string;
  /** kubemaint's own kinds: listed as custom objects, whose list answers keep their `continue`. */
  plural?: string;
}

/** What a campaign depends on, in the order the twin creates them (owners before what they own). */
export function snapshotKinds(namespace: string): SnapshotKind[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', why: 'where pods live' },
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', why: 'pod priorities' },
    { apiVersion: 'v1', kind: 'Node', why: 'the fleet' },
    { apiVersion: 'apps/v1', kind: 'Deployment', why: 'rescheduling evicted pods' },
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', why: 'rescheduling evicted pods' },
    { apiVersion: 'apps/v1', kind: 'StatefulSet', why: 'rescheduling evicted pods' },
    { apiVersion: 'apps/v1', kind: 'DaemonSet', why: 'pods a drain leaves in place' },
    { apiVersion: 'v1', kind: 'Pod', why: 'what each drain evicts' },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', why: 'PDB waits' },
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'MaintenanceRequest',
      namespace,
      plural: REQUESTS,
      why: "kubemaint's requests in flight",
    },
    { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, why: 'slots held now' },
  ];
}

export interface ClusterSnapshot {
  /** Per kind (`apiVersion kind`), the objects as JSON. */
  objects: Map<string, PlainObject[]>;
  /** The observed-durations ConfigMap's data (ADR 0017), when the cluster has one. */
  durations?: Record<string, string>;
  /** The pause switch's ConfigMap data (`kubemaint pause`), when the cluster has one. */
  pause?: Record<string, string>;
  skipped: { kind: string; why: string }[];
}

export const kindKey = (apiVersion: string, kind: string): string => `${apiVersion} ${kind}`;

export async function readClusterSnapshot(
  client: KubeClient,
  namespace: string,
): Promise<ClusterSnapshot> {
  const api = client.config.makeApiClient(KubernetesObjectApi);
  const objects = new Map<string, PlainObject[]>();
  const skipped: ClusterSnapshot['skipped'] = [];
  for (const spec of snapshotKinds(namespace)) {
    try {
      const items = await listAll<KubernetesObject>(
        `list ${spec.kind}`,
        async (cont, limit): Promise<Page<KubernetesObject>> => {
          if (spec.plural && spec.namespace) {
            const list: unknown = await client.custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace: spec.namespace,
              plural: spec.plural,
              limit,
              ...(cont === undefined ? {} : { _continue: cont }),
            });
            return customObjectsPage(list);
          }
          const list = await api.list(
            spec.apiVersion,
            spec.kind,
            spec.namespace,
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
            limit,
            cont,
          );
          return { items: list.items, metadata: { _continue: list.metadata?._continue ?? '' } };
        },
        client.retry,
      );
      objects.set(
        kindKey(spec.apiVersion, spec.kind),
        items.map((o) => plain(o, spec)),
      );
    } catch (error) {
      const why = unservable(error);
      if (!why) throw error;
      skipped.push({ kind: spec.kind, why: `${why} (${spec.why} not rehearsed)` });
    }
  }
  const durations = await readConfigMap(client, namespace, skipped, {
    name: DURATIONS_CONFIGMAP,
    why: 'observed durations',
  });
  const pause = await readConfigMap(client, namespace, skipped, {
    name: PAUSE_CONFIGMAP,
    why: 'whether the cluster is paused',
  });
  return { objects, skipped, ...(durations ? { durations } : {}), ...(pause ? { pause } : {}) };
}

/** One of kubemaint's ConfigMaps (a get): its data, or undefined when there is none or no access. */
async function readConfigMap(
  client: KubeClient,
  namespace: string,
  skipped: ClusterSnapshot['skipped'],
  map: { name: string; why: string },
): Promise<Record<string, string> | undefined> {
  try {
    const found = await withRetry(
      `get ConfigMap ${map.name}`,
      () => client.core.readNamespacedConfigMap({ name: map.name, namespace }),
      client.retry,
    );
    return found.data;
  } catch (error) {
    if (isKubeError(error, 'not-found')) return undefined;
    const why = unservable(error);
    if (!why) throw error;
    skipped.push({ kind: `ConfigMap ${map.name}`, why: `${why} (${map.why})` });
    return undefined;
  }
}

/** Why a list could not be read that is the cluster's answer, not a failure: else undefined. */
function unservable(error: unknown): string | undefined {
  if (isKubeError(error, 'not-found')) return 'not served by this cluster';
  if (isKubeError(error, 'forbidden')) return 'this identity may not list it';
  // KubernetesObjectApi asks discovery first: a kind no group serves is a plain Error.
  if (
    error instanceof Error &&
    /Unrecognized API version and kind|resource .* not found/i.test(error.message)
  )
    return 'not served by this cluster';
  return undefined;
}

/** Back to the JSON the apiserver sent: the client's models carry Date objects. */
function plain(object: KubernetesObject, spec: SnapshotKind): PlainObject {
  const json = JSON.parse(JSON.stringify(object)) as PlainObject;
  return { ...json, apiVersion: spec.apiVersion, kind: spec.kind };
}
