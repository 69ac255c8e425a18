/**
 * The disruption controller's arithmetic, pure (`pkg/controller/disruption/disruption.go`): expected and
 * desired healthy pods from `minAvailable` / `maxUnavailable` (integers or percentages), the healthy
 * count, stale `disruptedPods` entries dropped, and `disruptionsAllowed`.
 */
import type { KObject } from '../types.js';
import { isPodReady, type Condition } from './shapes.js';

/** Evictions the controller has not yet seen complete are trusted this long (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

export interface PdbStatus {
  observedGeneration: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: Condition[];
}

type IntOrString = number | string | undefined;

/** `3` → 3; `"50%"` of 5 → 3 when rounding up (as maxUnavailable and minAvailable both do). */
export function scaled(value: IntOrString, total: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (match) return Math.ceil((Number(match[1]) * total) / 100);
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

export interface PdbInputs {
  pdb: KObject;
  /** Pods of the PDB's namespace that its selector matches. */
  pods: readonly KObject[];
  /** Σ replicas of the pods' controllers, or undefined when a pod has no scalable controller. */
  controllerReplicas: number | undefined;
  now: number;
}

export type PdbResult =
  { ok: true; status: Omit<PdbStatus, 'conditions'> } | { ok: false; message: string };

export function computePdbStatus({ pdb, pods, controllerReplicas, now }: PdbInputs): PdbResult {
  const spec = (pdb.spec ?? {}) as { minAvailable?: IntOrString; maxUnavailable?: IntOrString };
  let expected: number;
  let desired: number;
  if (spec.maxUnavailable !== undefined || typeof spec.minAvailable === 'string') {
    if (controllerReplicas === undefined) {
      return { ok: false, message: 'found no controllers for pods matched by this budget' };
    }
    expected = controllerReplicas;
    desired =
      spec.maxUnavailable !== undefined
        ? expected - (scaled(spec.maxUnavailable, expected) ?? 0)
        : (scaled(spec.minAvailable, expected) ?? 0);
  } else {
    expected = pods.length;
    desired = scaled(spec.minAvailable, expected) ?? 0;
  }
  desired = Math.max(0, desired);

  const previous = ((pdb.status ?? {})['disruptedPods'] ?? {}) as Record<string, string>;
  const disrupted: Record<string, string> = {};
  const byName = new Map(pods.map((pod) => [pod.metadata.name ?? '', pod]));
  for (const [name, at] of Object.entries(previous)) {
    const pod = byName.get(name);
    if (!pod || pod.metadata.deletionTimestamp) continue;
    if (Date.parse(at) + DELETION_TIMEOUT_MS < now) continue;
    disrupted[name] = at;
  }
  const healthy = pods.filter(
    (pod) =>
      pod.metadata.deletionTimestamp === undefined &&
      disrupted[pod.metadata.name ?? ''] === undefined &&
      isPodReady(pod),
  ).length;
  const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
  return {
    ok: true,
    status: {
      observedGeneration: pdb.metadata.generation ?? 1,
      ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
      disruptionsAllowed: allowed,
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
    },
  };
}
