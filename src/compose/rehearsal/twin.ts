/**
 * The twin of `kubemaint rehearse` (issue 21): a fresh embedded cluster (`@kubemaint/kubesim`,
 * scenario `empty`) seeded with what the real cluster's snapshot holds. The objects go straight into
 * the sim's store in one synchronous pass, before its controllers get a turn: a ReplicaSet seeded
 * without its pods would otherwise be given new ones at once. The store gives every object a new
 * uid, so owner references are rewritten to the new uids as the owners are created (owners first,
 * the snapshot's order), or the garbage collector would take every pod for an orphan.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSim, R, type KObject, type Sim } from '@kubemaint/kubesim';
import {
  kindKey,
  snapshotKinds,
  type ClusterSnapshot,
  type PlainObject,
} from '../../adapters/kube/cluster-snapshot.js';
import { loadKubeConfig } from '../../adapters/kube/client.js';
import { DURATIONS_CONFIGMAP } from '../../adapters/kube/durations.js';
import { installKubemaintKinds } from '../sim-kinds.js';
import { kubemaintAccessObjects } from '../sim-access.js';
import { createHeldClock, type HeldClock } from './held-clock.js';

/** The sim's mark of a node whose kubelet runs elsewhere (`sim --attach`): the twin runs its own. */
const ATTACHED_KUBELET = 'sim.kubemaint.io/kubelet';

export interface TwinOptions {
  namespace: string;
  /** Where the twin's clock starts (`--at`). */
  start: Date;
  /** Twin seconds per wall second. */
  scale: number;
  /** How long a simulated machine stays down on a reboot (the expected duration's host part). */
  rebootDowntimeMs: number;
}

export interface Twin {
  sim: Sim;
  /** The twin's clock: the campaign holds it while a tick runs. */
  clock: HeldClock;
  /** How many objects of each kind the twin holds from the snapshot. */
  seeded: Record<string, number>;
  /** What the twin lacks, with why (added to the snapshot's own list). */
  skipped: { kind: string; why: string }[];
  close(): Promise<void>;
}

export async function startTwin(snapshot: ClusterSnapshot, options: TwinOptions): Promise<Twin> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-'));
  const clock = createHeldClock({ scale: options.scale, start: options.start });
  const sim = await createSim({
    scenario: 'empty',
    objects: kubemaintAccessObjects(),
    clock,
    kubeconfigPath: join(dir, 'kubeconfig'),
    delays: {
      // The executor runs in this process (compose/in-process-jobs.ts): its Job's pod stays active.
      jobPodRunMs: 24 * 3_600_000,
      rebootDowntimeMs: options.rebootDowntimeMs,
    },
  });
  const close = async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Still until the campaign's first tick: installing and seeding are not part of the night.
    clock.hold();
    await installKubemaintKinds(loadKubeConfig(sim.kubeconfigPath));
    const result = seed(sim, snapshot, options.namespace);
    return { sim, clock, ...result, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function seed(
  sim: Sim,
  snapshot: ClusterSnapshot,
  namespace: string,
): Pick<Twin, 'seeded' | 'skipped'> {
  const { store } = sim;
  const uids = new Map<string, string>();
  const seeded: Record<string, number> = {};
  const skipped: Twin['skipped'] = [];
  const refused = new Map<string, { count: number; why: string }>();
  const defs = store.resources.all();
  const ensureNamespace = (name: string | undefined) => {
    if (name && !store.get(R.namespaces, undefined, name))
      store.create(R.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  };
  ensureNamespace(namespace);
  for (const spec of snapshotKinds(namespace)) {
    const [group, version] = spec.apiVersion.includes('/')
      ? spec.apiVersion.split('/')
      : ['', spec.apiVersion];
    const def = defs.find(
      (d) => d.group === group && d.version === version && d.kind === spec.kind,
    );
    const objects = snapshot.objects.get(kindKey(spec.apiVersion, spec.kind)) ?? [];
    if (!def) {
      if (objects.length > 0)
        skipped.push({ kind: spec.kind, why: `the twin does not serve ${spec.apiVersion}` });
      continue;
    }
    for (const object of objects) {
      const why = unwanted(object, uids);
      if (why) {
        const entry = refused.get(why) ?? { count: 0, why };
        entry.count++;
        refused.set(why, entry);
        continue;
      }
      const name = object.metadata?.name ?? '';
      const ns = def.namespaced ? object.metadata?.namespace : undefined;
      if (def.namespaced) ensureNamespace(ns);
      // The scenario's own objects (the default namespaces, system priority classes) stay.
      if (store.get(def.key, ns, name)) continue;
      try {
        const created = store.create(def.key, twinOf(object, uids), {
          actor: 'kubemaint/rehearse',
        });
        uids.set(object.metadata?.uid ?? '', created.metadata.uid ?? '');
        if (object['status'] && def.key !== R.pods && def.key !== R.nodes)
          store.mutate(
            def.key,
            ns,
            name,
            (o) => void (o.status = twinStatus(object) as KObject['status']),
            {
              subresource: 'status',
            },
          );
        seeded[spec.kind] = (seeded[spec.kind] ?? 0) + 1;
      } catch (error) {
        const why = `${spec.kind} refused by the twin: ${error instanceof Error ? error.message : String(error)}`;
        const entry = refused.get(why) ?? { count: 0, why };
        entry.count++;
        refused.set(why, entry);
      }
    }
  }
  if (snapshot.durations) {
    store.create(R.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: DURATIONS_CONFIGMAP,
        namespace,
        labels: { 'app.kubernetes.io/managed-by': 'kubemaint' },
      },
      data: snapshot.durations,
    });
  }
  for (const { count, why } of refused.values())
    skipped.push({ kind: `${count} object${count === 1 ? '' : 's'}`, why });
  return { seeded, skipped };
}

/** Why an object of the snapshot stays out of the twin, or undefined. */
function unwanted(object: PlainObject, uids: ReadonlyMap<string, string>): string | undefined {
  const owners = object.metadata?.ownerReferences ?? [];
  // A Job's pods (batch work, kubemaint's own executors) would be collected at once: no Jobs here.
  if (object.kind === 'Pod' && owners.some((o) => o.kind === 'Job' && !uids.has(o.uid)))
    return 'pods of Jobs: Jobs are not copied (they finish on their own)';
  if (object.kind === 'Pod' && owners.some((o) => o.kind === 'Node'))
    return 'mirror pods: the twin has no static pods';
  const phase = (object['status'] as { phase?: string } | undefined)?.phase;
  if (object.kind === 'Pod' && (phase === 'Succeeded' || phase === 'Failed'))
    return 'finished pods: nothing to evict';
  return undefined;
}

/**
 * The status as the twin stores it. A request's `createdVersion` is the real apiserver's revision
 * (which of two requests for a node came first): next to the twin's own, far smaller revisions it
 * made last night's finished request look newer than tonight's, and the report showed that one.
 */
function twinStatus(object: PlainObject): unknown {
  const status = object['status'];
  if (object.kind !== 'MaintenanceRequest' || typeof status !== 'object' || status === null)
    return status;
  const { createdVersion: _real, ...rest } = status as Record<string, unknown>;
  return rest;
}

/** The object as the twin creates it: the real one's spec and labels, the twin's own identity. */
function twinOf(object: PlainObject, uids: ReadonlyMap<string, string>): KObject {
  const meta = object.metadata ?? {};
  const annotations = { ...(meta['annotations'] as Record<string, string> | undefined) };
  delete annotations[ATTACHED_KUBELET];
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  const owners = (meta.ownerReferences ?? []).map((o) => ({ ...o, uid: uids.get(o.uid) ?? o.uid }));
  const { status, metadata: _metadata, ...rest } = object;
  return {
    ...rest,
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta['labels'] ? { labels: meta['labels'] as Record<string, string> } : {}),
      annotations,
      ...(owners.length ? { ownerReferences: owners } : {}),
    },
    // Pods and nodes keep what their kubelet reported (the twin's kubelets take over from there);
    // other kinds get theirs through the status subresource, as the API would store it.
    ...(status !== undefined && (object.kind === 'Pod' || object.kind === 'Node')
      ? { status }
      : {}),
  } as KObject;
}
