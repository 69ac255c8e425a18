/**
 * What the control plane needs from the config, already parsed: compose.ts maps the YAML config onto
 * this, tests build it directly.
 */
import type { RetentionSettings } from '../../core/retention.js';
import type { ApprovalPolicy } from '../../core/approval.js';
import type { DrainFilterOptions } from '../../core/drain-filters.js';
import type { DetectSettings } from '../../core/detect.js';
import type { DurationLearning } from '../../core/durations.js';
import type { HookFailurePolicy, HookPhase } from '../../core/hooks.js';
import type { Selector } from '@kubemaint/label-selector';
import type { Schedule } from '../../core/windows.js';
import type { WaitingTaintSettings } from '../../core/waiting-taint.js';
import type { QueryGate } from '../../core/query-gate.js';
import type { Matcher } from '../../core/silence.js';

export interface ControlSettings {
  /** Display name of the cluster in messages. */
  cluster: string;
  namespace: string;
  detection: Omit<DetectSettings, 'kubelet'>;
  kubelet: { enabled: boolean; target?: string };
  approval: ApprovalPolicy;
  /**
   * Nodes matching it are approved by the `autoApprove` rule as soon as they are proposed: requests
   * detection proposed (`origin: 'detection'`), and those typed by hand only with `autoApproveManual`.
   */
  autoApprove?: Selector;
  /** Auto-approve hand-typed requests too (`approval.autoApprove.manual`). @default false */
  autoApproveManual?: boolean;
  lock: {
    concurrency: number;
    poolLabel?: string;
    pools: Record<string, number>;
    /** After a node is proven back, its slot stays taken this long (0: handed on at once). */
    releaseDelayMs?: number;
  };
  /** How long a node may take to come back (reboot) or report the new kubelet (upgrade). */
  nodeTimeoutMs: { reboot: number; upgrade: number };
  /** Expected drain + host command + verify time, to check it fits before a window closes. */
  expectedDurationMs: { reboot: number; upgrade: number };
  /**
   * Once requests were proven back, expect what they took instead (a percentile of the last
   * samples of the action and pool, app/control/durations.ts). @default 90th of the last 20
   */
  durations?: DurationLearning;
  /** A drain waiting this long on the same blocker asks people to wait, skip or force. */
  drainStallAfterMs: number;
  /**
   * The executor's drain filter options (from `drain:`), so the preview and the preflight choose the
   * pods the executor will, and see a drain it would refuse before a node is cordoned for nothing.
   */
  drain: DrainChoice;
  /** Compiled windows and freezes; zone for the times shown in messages. */
  schedule: Schedule;
  timeZone: string;
  blockers: {
    podSelectors: readonly string[];
    /** Other NotReady nodes allowed before a request waits: a count, or a percentage of the fleet. */
    maxUnhealthyNodes: { count: number } | { percent: number };
    /** Prometheus query gates (`blockers.prometheus.queries`), judged before each node. */
    queries?: readonly QueryGate[];
    /** Another node that went NotReady more than `times` times within `withinMs` blocks. */
    flapping?: { times: number; withinMs: number };
    /** After a node came back, the next one waits this long (`blockers.soak`). */
    soakMs?: number;
  };
  /**
   * Alertmanager silences for a node in maintenance (`alertmanager:`): one per matcher set; each
   * ends `marginMs` after the expected end of the work and is extended to stay so.
   */
  silences?: { matchers: Matcher[][]; marginMs: number; onFailure: 'block' | 'warn' };
  /**
   * Labels set on a node when its executor Job is created (`before`, ahead of the cordon) and once
   * it is proven back (`after`): kured's pre/post-reboot node labels.
   */
  nodeLabels?: { before: Record<string, string>; after: Record<string, string> };
  /**
   * `<key>:PreferNoSchedule` on a node while its request waits (kured --prefer-no-schedule-taint);
   * with `enabled: false` the key is still swept off nodes an earlier config tainted.
   */
  waitingTaint?: WaitingTaintSettings;
  /** `agent:` as the data of the ConfigMap kubemaint-agent (app/control/agent-settings.ts). */
  agentSettings?: Record<string, string>;
  /** Ended requests kept (`retention:`, app/control/retention.ts); absent: none deleted. */
  retention?: RetentionSettings;
  /** People's Jobs before the drain and after the node is back (`hooks:`, ADR 0021). */
  hooks?: Partial<Record<HookPhase, HookSettings>>;
  /** Builds the executor Job manifest for a request (templates/executor-job.ts, bound to config). */
  jobFor: (
    node: string,
    requestId: string,
    action: 'reboot' | 'upgrade',
  ) => Record<string, unknown>;
}

export type DrainChoice = Required<
  Pick<
    DrainFilterOptions,
    'force' | 'deleteEmptyDirData' | 'podSelector' | 'skipWaitForDeleteTimeoutSeconds'
  >
>;

/** One hook: how long it may take, what its failure means, and its Job (templates/hook-job.ts). */
export interface HookSettings {
  timeoutMs: number;
  onFailure: HookFailurePolicy;
  jobFor: (
    node: string,
    requestId: string,
    action: 'reboot' | 'upgrade',
  ) => Record<string, unknown>;
}

/** The name of the auto-approval rule in approvals (`policy:autoApprove`). */
export const AUTO_APPROVE_RULE = 'autoApprove';
