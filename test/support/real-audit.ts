/**
 * The real control plane's audit log (scripts/real-cluster writes `logs/audit.log`, one JSON event a
 * line): what tests in test/real read to prove who did what and when, from the apiserver's own
 * record rather than from what a component says of itself. Metadata for everything; the bodies of
 * node writes, of Leases and request status writes in kubemaint's namespace (the policy in
 * scripts/real-cluster/control-plane.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AuditEntry {
  verb: string;
  /** `extra` names the pod of a pod-bound token (`authentication.kubernetes.io/pod-name`). */
  user: { username: string; extra?: Record<string, string[]> };
  objectRef?: { resource?: string; subresource?: string; name?: string; namespace?: string };
  responseStatus?: { code?: number };
  /** The body sent, where the policy records it (level Request). */
  requestObject?: unknown;
  stageTimestamp: string;
  stage: string;
  /** One request's id, the same in each of its stages. */
  auditID?: string;
}

const WRITES = new Set(['create', 'update', 'patch', 'delete']);

/** Every entry of the audit log, each stage of a request its own (ResponseStarted, ResponseComplete). */
export function readAuditStages(cluster: { dir: string }): AuditEntry[] {
  return readFileSync(join(cluster.dir, 'logs', 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditEntry);
}

/** Completed requests since `since` (an ISO time), in the order the apiserver answered them. */
export function readAudit(cluster: { dir: string }, since: string): AuditEntry[] {
  return completedSince(readAuditStages(cluster), since);
}

export const completedSince = (stages: readonly AuditEntry[], since: string): AuditEntry[] =>
  stages
    .filter((e) => e.stage === 'ResponseComplete' && e.stageTimestamp >= since)
    .sort((x, y) => x.stageTimestamp.localeCompare(y.stageTimestamp));

/** A write the apiserver accepted (2xx): something that changed the cluster. */
export const isWrite = (e: AuditEntry): boolean =>
  WRITES.has(e.verb) && (e.responseStatus?.code ?? 500) < 300;

/** `pods/eviction`, `nodes`, `leases`: the resource and subresource an entry is about. */
export const resourceOf = (e: AuditEntry): string =>
  `${e.objectRef?.resource ?? ''}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`;

/** One line a person can read in an assertion message. */
export const describeEntry = (e: AuditEntry): string =>
  `${e.stageTimestamp} ${e.user.username} ${e.verb} ${resourceOf(e)} ${e.objectRef?.name ?? ''} → ${e.responseStatus?.code ?? '?'}`;

/** Milliseconds since the epoch of an entry's answer. */
export const timeOf = (e: AuditEntry): number => Date.parse(e.stageTimestamp);
