/**
 * PersistentVolumeClaims in a cluster without volumes or a provisioner (the sim's, and the real
 * control plane of `npm run real-cluster`, which has no default StorageClass): a claim stays Pending
 * and the PV controller says why once (`FailedBinding`, or `ProvisioningFailed` for a class that does
 * not exist). The pvc-protection controller's half: a claim being deleted loses its
 * `kubernetes.io/pvc-protection` finalizer once no unfinished pod of its namespace mounts it. The
 * scheduler leaves a pod whose claims are not bound Pending (`claimsBlocking`).
 */
import { R, type KObject, type Store } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { PVC_PROTECTION } from '../claim-hooks.js';
import { isPodTerminal, keyOf, podSpec, splitKey } from './shapes.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/persistentvolume';

const claimsOf = (pod: KObject): string[] =>
  (podSpec(pod).volumes ?? []).flatMap((v) => {
    const claim = (v as { persistentVolumeClaim?: { claimName?: string } }).persistentVolumeClaim;
    return claim?.claimName ? [claim.claimName] : [];
  });

/**
 * Why the scheduler cannot place `pod` yet because of its claims (the VolumeBinding plugin's
 * PreFilter): a claim that does not exist, or one not bound to a volume (with no provisioner, every
 * claim is "immediate"). Undefined when its claims are all bound, or it has none.
 */
export function claimsBlocking(pod: KObject, store: Store): string | undefined {
  for (const claim of claimsOf(pod)) {
    const found = store.get(R.pvcs, pod.metadata.namespace, claim);
    if (!found) return `persistentvolumeclaim "${claim}" not found`;
    if (!found.spec?.['volumeName']) return 'pod has unbound immediate PersistentVolumeClaims';
  }
  return undefined;
}

export function startVolumeClaimController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  const record = recorderFor(store, () => clock.now(), 'persistentvolume-controller', ACTOR);
  /** Claims (by uid) whose Pending reason was recorded. */
  const told = new Set<string>();

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const claim = store.get(R.pvcs, namespace, name);
    if (!claim) return;
    if (claim.metadata.deletionTimestamp) {
      if (!claim.metadata.finalizers?.includes(PVC_PROTECTION)) return;
      const inUse = store
        .list(R.pods, { namespace })
        .some((pod) => !isPodTerminal(pod) && claimsOf(pod).includes(name));
      if (inUse) return;
      store.mutate(
        R.pvcs,
        namespace,
        name,
        (c) => {
          c.metadata.finalizers = (c.metadata.finalizers ?? []).filter((f) => f !== PVC_PROTECTION);
        },
        { actor: 'controller/pvc-protection' },
      );
      return;
    }
    const uid = claim.metadata.uid ?? '';
    if (told.has(uid) || claim.spec?.['volumeName']) return;
    told.add(uid);
    const storageClass = claim.spec?.['storageClassName'];
    if (typeof storageClass === 'string' && storageClass !== '') {
      record({
        regarding: claim,
        type: 'Warning',
        reason: 'ProvisioningFailed',
        message: `storageclass.storage.k8s.io "${storageClass}" not found`,
      });
    } else {
      record({
        regarding: claim,
        reason: 'FailedBinding',
        message: 'no persistent volumes available for this claim and no storage class is set',
      });
    }
  };

  const queue = createWorkQueue({ name: 'volume-claims', clock, log: ctx.log, reconcile });
  const stops = [
    store.watch(R.pvcs, (e) => {
      if (e.type === 'DELETED') told.delete(e.object.metadata.uid ?? '');
      else queue.add(keyOf(e.object));
    }),
    // A pod that finishes or goes may free a claim being deleted.
    store.watch(R.pods, (e) => {
      if (e.type === 'ADDED') return;
      for (const claim of claimsOf(e.object)) {
        queue.add(`${e.object.metadata.namespace ?? ''}/${claim}`);
      }
    }),
  ];
  for (const claim of store.list(R.pvcs)) queue.add(keyOf(claim));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
