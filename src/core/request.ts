/**
 * The maintenance request: the one record kubemaint keeps per request, stored as a
 * `MaintenanceRequest` custom resource (DESIGN §3, §4; ADR 0012: spec is what was asked, status what
 * kubemaint derived). Every part reads and writes this shape; the state machine that moves it lives in
 * `approval.ts`, the codec to and from the object in the kube adapter. Pure types and constants only.
 */
import type { HookPhase, HookRun } from './hooks.js';

/** What a request does to its node. */
export type Action = 'reboot' | 'upgrade';

/**
 * Where a request came from: `detection` (agent marks, node conditions, the skew scan) or `person`
 * (typed in Slack or the CLI). Auto-approval applies to detection only unless a rule says otherwise.
 */
export type Origin = 'detection' | 'person';

/**
 * DESIGN §4: proposed → approved → running → verifying → done, or one of the end states. `skipped`
 * is a node kubemaint gave back unmaintained on purpose (its drain timed out under
 * `drain.onTimeout: uncordon`): nothing went wrong, and nothing was done.
 */
export const ACTIVE_STATES = ['proposed', 'approved', 'running', 'verifying'] as const;
export const FINAL_STATES = [
  'done',
  'rejected',
  'expired',
  'cancelled',
  'failed',
  'skipped',
] as const;
export type ActiveState = (typeof ACTIVE_STATES)[number];
export type FinalState = (typeof FINAL_STATES)[number];
export type RequestState = ActiveState | FinalState;

/** An operator's answer to a stalled drain, read by the running executor. */
export type DrainDecision = 'wait' | 'skip' | 'force';

/**
 * What a drain still waiting at `drain.timeout` does (AKS `undrainableNodeBehavior`): `ask` gives
 * the node back and fails (people were asked while it stalled), `uncordon` gives it back and ends
 * `skipped`, `force` deletes the remaining pods at a second deadline.
 */
export const DRAIN_TIMEOUT_BEHAVIOURS = ['ask', 'uncordon', 'force'] as const;
export type DrainTimeoutBehaviour = (typeof DRAIN_TIMEOUT_BEHAVIOURS)[number];

export interface Approval {
  /** Who approved: a Slack user ID, `k8s:<username>`, or `policy:<rule>` for auto-approval. */
  by: string;
  /** ISO-8601 instant. */
  at: string;
  /** The MaintenanceApproval object that records it (ADR 0012): an approval no object backs is forged. */
  record?: string;
}

export interface Transition {
  from: RequestState | null;
  to: RequestState;
  at: string;
  by: string;
  note?: string;
}

/** Drain progress the executor writes so people can see where it is. */
export interface DrainProgress {
  total: number;
  evicted: number;
  /** Pods still in the way, `namespace/name`, each with why ("PDB payments-api allows 0 disruptions"). */
  waitingOn: { pod: string; reason: string }[];
  /** ISO instant since which the drain waits on the same blocker. */
  stalledSince?: string;
  /** The drain timed out under `drain.onTimeout: force`: when the remaining pods are deleted. */
  forceAt?: string;
  /** When every pod was off the node (the drain finished): the node's `Drained` condition (ADR 0041). */
  completedAt?: string;
  message: string;
}

export interface MaintenanceRequest {
  /** Stable short id, e.g. `r-7f3a9c`; unique per node and request. */
  id: string;
  node: string;
  action: Action;
  /** For upgrades: the kubelet version to reach, e.g. `v1.31.4`. */
  targetVersion?: string;
  state: RequestState;
  /** Why it exists: "reboot-required label since …", "kubelet v1.29.8 behind apiserver v1.30.2". */
  reason: string;
  /** Who or what proposed it: `detector`, a Slack user ID, or `k8s:<username>`. */
  requestedBy: string;
  /** Detection or a person; absent on requests written before origins were recorded (= person). */
  origin?: Origin;
  /** The groups the requester held when asking (`k8s:<group>`), checked by admission; for `proposers`. */
  requestedByGroups?: string[];
  createdAt: string;
  updatedAt: string;
  /** Shared by requests proposed together for the same reason. */
  campaign?: string;
  /** Pool the node belongs to (value of the configured pool label), for per-pool concurrency. */
  pool?: string;
  approvals: Approval[];
  /** Why the request is not moving now (policy gates), refreshed every tick. */
  blockedReasons?: string[];
  /** Set when the executor starts: whether the node was already unschedulable before we touched it. */
  wasCordoned?: boolean;
  /** True once kubemaint (not someone else) cordoned the node. */
  cordonedByUs?: boolean;
  /** `status.nodeInfo.bootID` read before the host command was issued: the proof of a reboot. */
  bootIdBefore?: string;
  /** kubelet version read before an upgrade. */
  kubeletVersionBefore?: string;
  /** When the host command was issued; set once, never twice (invariant 5). */
  hostCommandIssuedAt?: string;
  /** The hooks' runs (`hooks:`, ADR 0021): their Jobs, how they ended and why. */
  hooks?: Partial<Record<HookPhase, HookRun>>;
  /** Lease slot held while running, `kubemaint-slot-<i>`. */
  slot?: string;
  /** Executor Job name (deterministic per request). */
  job?: string;
  drain?: DrainProgress;
  drainDecision?: { decision: DrainDecision; by: string; at: string };
  /** Where the prompt lives in Slack, so replies thread under it and the prompt is edited in place. */
  slack?: { channel: string; ts: string };
  /** Progress already reported to people (`host`, `drain-stall`), so each is said once. */
  announced?: string[];
  /**
   * When the node was proven back, and the proof: set while the slot is held for
   * `lock.releaseDelay` after the node went back into service.
   */
  proven?: { at: string; proof: string; warning?: boolean };
  /**
   * When verification proved the node back (new bootID or kubelet version, Ready): the end of the
   * host step, kept once the request is done (`proven` is not), for the status page's timeline.
   */
  backAt?: string;
  /**
   * The Alertmanager silences quieting the node's alerts while it is maintained (`alertmanager:`):
   * made before the Job, extended while the work runs, expired once the request ends. `warning`
   * says why there is none when `alertmanager.onFailure: warn` let the work start without.
   */
  silences?: { ids: string[]; startsAt: string; endsAt: string; warning?: string };
  /** Human explanation of a failure, including the state the node was left in. */
  failure?: string;
  /**
   * The resourceVersion at which the request's object was created: the order in which two requests
   * for one node came to be (two serves proposing at once), which only the apiserver can tell.
   */
  createdVersion?: string;
  /** Decision objects already applied to this request (each counts once), with what came of them. */
  decisions?: AppliedDecision[];
  history: Transition[];
}

/** What a person (or Slack user, or policy) decided about a request: a MaintenanceApproval's spec. */
export const DECISION_KINDS = ['approve', 'reject', 'cancel', 'wait', 'skip', 'force'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** A decision the control plane applied: its object, and whether it moved the request (and why not). */
export interface AppliedDecision {
  name: string;
  ok: boolean;
  message: string;
}

/** One recorded decision, as the apiserver admitted it (bound to its author by admission). */
export interface Decision {
  /** The object's name: deterministic per request, decision and author, so deciding twice is once. */
  name: string;
  request: string;
  /** Core identity: `k8s:<username>`, a Slack user ID, or `policy:<rule>`. */
  by: string;
  decision: DecisionKind;
  /** Groups the author held when deciding (`k8s:<group>` or Slack `S…`), checked by admission. */
  groups: string[];
  /** A Slack author's workspace (`T…`): part of how the decision object names them. */
  team?: string;
  reason?: string;
  at: string;
}

export const isActive = (state: RequestState): state is ActiveState =>
  (ACTIVE_STATES as readonly string[]).includes(state);

/** Who the executor is in a request's history: it ends a running request itself (failed, skipped). */
export const EXECUTOR_ACTOR = 'executor';

/**
 * A request the executor ended that people have not been told about. The executor may not speak
 * to Slack or relabel the node (it holds neither), so the control plane reports the end once, as it
 * reports the ends it writes itself.
 */
export const endedUnreported = (request: MaintenanceRequest): boolean =>
  !isActive(request.state) &&
  request.history.at(-1)?.by === EXECUTOR_ACTOR &&
  !(request.announced ?? []).includes('ended');
