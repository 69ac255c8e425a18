/**
 * Storage-version migration (ADR 0051): whether a kind's objects must be rewritten before its CRD's
 * `status.storedVersions` can say only the version kubemaint stores now. The apiserver adds a
 * version to that list whenever it becomes the storage version and never removes one: an object
 * written back then may still be in etcd at it. Only after every object was written again (any
 * write stores at today's storage version) may the list be trimmed, and only then can a later CRD
 * stop serving the old version. Pure: the adapter reads the CRD, this decides, the app rewrites.
 */

export interface StoredKind {
  /** The CRD's name, `<plural>.<group>`. */
  crd: string;
  /** The version its spec stores now (`storage: true`); undefined if none is. */
  storage: string | undefined;
  /** `status.storedVersions`: every version an object may still be stored at. */
  storedVersions: readonly string[];
}

export type StoragePlan =
  | { kind: 'done'; crd: string }
  /** Rewrite every object, then trim storedVersions to `[to]`. */
  | { kind: 'rewrite'; crd: string; from: string[]; to: string }
  /** The CRDs in the cluster are not the ones this kubemaint ships: nothing to do but say so. */
  | { kind: 'wait'; crd: string; why: string };

export function storagePlan(kind: StoredKind, wanted: string): StoragePlan {
  const { crd } = kind;
  if (kind.storage !== wanted) {
    return {
      kind: 'wait',
      crd,
      why:
        `${crd} stores ${kind.storage ?? 'no version'}, not ${wanted}: apply this kubemaint's ` +
        `CRDs (infra/k8s/crds.yaml, or the chart's crds/) so objects are stored as ${wanted}`,
    };
  }
  const from = kind.storedVersions.filter((v) => v !== wanted);
  if (from.length === 0) return { kind: 'done', crd };
  return { kind: 'rewrite', crd, from, to: wanted };
}
