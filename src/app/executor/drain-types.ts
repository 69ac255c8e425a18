/**
 * What a drain is given and what it reports: shared by the drain (drain.ts) and its run (drain-run.ts)
 * without either importing the other.
 */
import type { DrainDecision, DrainProgress } from '../../core/request.js';
import type { Logger } from '../../log.js';
import type { DrainSettings } from './settings.js';

export interface DrainInput {
  node: string;
  settings: DrainSettings;
  /** The executor's own pod (`namespace/name`), never evicted by its own drain. */
  selfPod?: string;
  /** List and filter only: report what would be evicted. */
  dryRun?: boolean;
}

export interface DrainHooks {
  /** Every change of progress; the caller throttles writes. */
  onProgress?: (progress: DrainProgress) => void | Promise<void>;
  /** Asked while stalled: an operator's decision recorded on the request. */
  decision?: () => Promise<DrainDecision | undefined>;
  /** Stops the drain (outcome `skipped`) when aborted, e.g. because the request ended meanwhile. */
  abort?: AbortSignal;
  /**
   * `onTimeout: force` only: the timeout passed and the remaining pods are deleted at `forceAt`
   * (said once), then again when they are (`forced`: the pods deleted).
   */
  onTimeout?: (what: { forceAt: Date; remaining: string[] }) => void | Promise<void>;
  onForce?: (what: { pods: string[]; by: 'config' | 'decision' }) => void | Promise<void>;
  log?: Logger;
}

export interface DrainReport {
  outcome: 'drained' | 'blocked' | 'skipped' | 'dry-run';
  progress: DrainProgress;
  /** Pods chosen for eviction, `namespace/name`. */
  evict: string[];
  /** Pods left in place on purpose (DaemonSet, mirror, ourselves, selector), each with why. */
  skipped: { pod: string; reason: string }[];
  warnings: string[];
  /** Filter errors (nothing was evicted) or the eviction failures. */
  errors: string[];
  /** Pods still there when the drain stopped, each with why. */
  remaining: { pod: string; reason: string }[];
  durationMs: number;
  message: string;
  /** The drain ran into `drain.timeout` (outcome `blocked`, or `drained` after a force). */
  timedOut?: boolean;
  /** Pods deleted past their PDBs by a force (an operator's, or `drain.onTimeout: force`). */
  forced?: string[];
}
