/**
 * What about a watched Node or Job counts as a change worth a tick. Everything else (heartbeat
 * times, image lists, resourceVersion) moves constantly and would wake `serve` for nothing.
 */
import { DOMAIN, isSlotName } from '../../core/names.js';
import type { KubeObject } from './watch-stream.js';

interface NodeShape {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { unschedulable?: boolean };
  status?: {
    conditions?: { type: string; status: string }[];
    nodeInfo?: { bootID?: string; kubeletVersion?: string };
  };
}

/** What the tick decides on: kubemaint's keys, cordon, condition statuses, boot id, kubelet version. */
export function nodeFingerprint(object: KubeObject): string {
  const node = object as NodeShape;
  const ours = (map: Record<string, string> | undefined) =>
    Object.entries(map ?? {})
      .filter(([key]) => key.startsWith(`${DOMAIN}/`))
      .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([
    ours(node.metadata?.labels),
    ours(node.metadata?.annotations),
    node.spec?.unschedulable === true,
    (node.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort(),
    node.status?.nodeInfo?.bootID ?? '',
    node.status?.nodeInfo?.kubeletVersion ?? '',
  ]);
}

/**
 * A node Ready again with another boot id or kubelet version, or Ready again at all: what a request
 * in verification waits for, and what hands its slot to the next node. Judged on the fingerprints.
 */
export function nodeBack(before: string, after: string): boolean {
  const [, , , conditionsBefore, bootBefore, kubeletBefore] = JSON.parse(before) as NodePrint;
  const [, , , conditions, boot, kubelet] = JSON.parse(after) as NodePrint;
  if (!conditions.includes('Ready=True')) return false;
  return (
    !conditionsBefore.includes('Ready=True') || boot !== bootBefore || kubelet !== kubeletBefore
  );
}

type NodePrint = [unknown, unknown, boolean, string[], string, string];

interface JobShape {
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    conditions?: { type: string; status: string }[];
  };
}

/** A Job matters when its pod counts or its Complete/Failed conditions move. */
export function jobFingerprint(object: KubeObject): string {
  const status = (object as JobShape).status ?? {};
  return JSON.stringify([
    status.active ?? 0,
    status.succeeded ?? 0,
    status.failed ?? 0,
    (status.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort(),
  ]);
}

interface PdbShape {
  status?: { disruptionsAllowed?: number };
}

/**
 * A PDB matters only when it flips between refusing and allowing a disruption: that is what a
 * request held by the PDB preflight waits for. Its pod counts move with every rollout and would
 * wake `serve` for nothing.
 */
export function pdbFingerprint(object: KubeObject): string {
  return ((object as PdbShape).status?.disruptionsAllowed ?? 0) > 0 ? 'allows' : 'refuses';
}

interface RequestShape {
  status?: {
    state?: string;
    hostCommandIssuedAt?: string;
    drain?: { stalledSince?: string };
  };
}

/**
 * A MaintenanceRequest matters when someone asked (a new one, no status yet) or its state moved (the
 * executor wrote `verifying`), or its drain stalled. Drain progress counts move often and do not.
 */
export function requestFingerprint(object: KubeObject): string {
  const status = (object as RequestShape).status;
  return JSON.stringify([
    status?.state ?? 'asked',
    status?.hostCommandIssuedAt ?? '',
    status?.drain?.stalledSince ?? '',
  ]);
}

/** A decision never changes (it is immutable): that it appeared is the change. */
export const decisionFingerprint = (): string => 'made';

/** The pause switch matters whole: paused or not, by whom, why. */
export function pauseFingerprint(object: KubeObject): string {
  return JSON.stringify((object as { data?: Record<string, string> }).data ?? {});
}

/**
 * A slot matters when its holder changes (taken, handed over, released); renewals move only the
 * renew time. Other Leases in the namespace never matter.
 */
export function slotFingerprint(object: KubeObject): string {
  if (!isSlotName(object.metadata?.name ?? '')) return '';
  return (object as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? '';
}
