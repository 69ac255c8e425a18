/**
 * One tick of the control plane (DESIGN §2): reconcile every active request (verify, follow Jobs,
 * expire, auto-approve), dispatch what may start, then detect new needs and propose them, grouped into
 * campaigns. Idle, it makes two API requests: the requests (none active), and nodes carrying the
 * reboot-required label. The full, paginated node list (conditions and kubelet skew) is read only on
 * a skew scan, which runs on its own slower schedule.
 */
import { fail, propose } from '../../core/approval.js';
import { apiserverBound, type BoundReading } from '../../core/apiserver-bound.js';
import { detectNeeds, type Need, type Violation } from '../../core/detect.js';
import type { Decision } from '../../core/request.js';
import { requestId } from '../../core/request-id.js';
import { applyPending } from './decisions.js';
import { dispatchApproved, type DispatchDeps } from './dispatch.js';
import { intake } from './intake.js';
import { migrateAnnotations } from './migrate.js';
import { persist } from './persist.js';
import type { NodeView, RandomBytes } from './ports.js';
import { recordNotReady } from './not-ready.js';
import { reconcileRequest, reportExecutorEnd } from './reconcile.js';
import { keepSilences } from './silences.js';
import { SYSTEM } from './restore.js';
import { sweepWaitingTaints } from './waiting-taint.js';
import { publishAgentSettings, type AgentSettingsPort } from './agent-settings.js';
import { keepRetention, type RetentionPort } from './retention.js';
import { migrateStorage, type StorageVersionPort } from './storage-migration.js';

export interface TickDeps extends DispatchDeps {
  randomBytes: RandomBytes;
  /** Where the reporter agents read kubemaint.yaml's `agent:` (a ConfigMap); absent: not published. */
  agentSettings?: AgentSettingsPort;
  /** Ended requests deleted beyond `retention:` on skew scans; absent: none deleted. */
  retention?: RetentionPort;
  /** Objects stored at an older version rewritten on skew scans (ADR 0051); absent: not done. */
  storageVersions?: StorageVersionPort;
}

export interface TickReport {
  at: string;
  reconciled: string[];
  dispatched: string[];
  proposed: string[];
  skipped: string[];
  /** Requests carried over from the first release's node annotation (skew scans only). */
  migrated?: string[];
  /** Waiting taints a skew scan added or removed (a node that disagreed with its request). */
  taints?: string[];
  /** The agent settings a skew scan published (when they differed), or why it could not. */
  agent?: string[];
  /** A skew scan's apiserver bound (and its source) and every kubelet newer than it. */
  skew?: string[];
  /** What a skew scan's retention sweep deleted and relabelled, or why it could not. */
  retention?: string[];
  /** What a skew scan's storage-version migration rewrote, or why it could not. */
  storage?: string[];
}

export async function runTick(
  deps: TickDeps,
  options: { skewScan?: boolean } = {},
): Promise<TickReport> {
  // One read of the requests serves the whole tick unless it writes one: an idle skew scan reads
  // them once, not once for the active requests and again to join the node list.
  const tick = () => tickOnce(deps, options);
  return deps.cluster.onePass ? deps.cluster.onePass(tick) : tick();
}

async function tickOnce(deps: TickDeps, options: { skewScan?: boolean }): Promise<TickReport> {
  const report: TickReport = {
    at: deps.clock.now().toISOString(),
    reconciled: [],
    dispatched: [],
    proposed: [],
    skipped: [],
  };
  const active = await deps.cluster.listRequestNodes('active');
  const decisions = active.length > 0 ? await deps.cluster.decisions() : [];
  report.reconciled.push(...(await stepAll(deps, active, decisions)));
  // Reconciling changed some requests; dispatch works on what the cluster says now. It also
  // re-checks approvals against the decisions as they are now: reconciling may have recorded some
  // (an auto-approval's), which the list read before it does not have. Both reads at once: a slot
  // a node just gave back is handed on after them, so they are on every hand-off's path (issue 34).
  const [current, decided] =
    active.length > 0
      ? await Promise.all([deps.cluster.listRequestNodes('active'), deps.cluster.decisions()])
      : [[], decisions];
  report.dispatched = await dispatchApproved(
    deps,
    current.filter((n) => n.requestAccepted !== false),
    decided,
  );
  // What the executor ended since the last pass is said once (it cannot tell Slack itself). After
  // dispatch, which does not depend on it: saying it is not on the way of the next node's start.
  for (const node of await deps.cluster.listRequestNodes('unreported'))
    report.reconciled.push(`${node.name}: ${await reportExecutorEnd(deps, node)}`);
  // The silences in-flight requests hold are extended; any no request holds any more, expired.
  // What dispatch started just now is not in `current` as in flight: its fresh silences are left
  // alone by the sweep's grace (SWEEP_GRACE_MS), as another control plane's just made ones are.
  report.reconciled.push(...(await keepSilences(deps, current)));
  await detectAndPropose(deps, options.skewScan === true, report);
  return report;
}

/** How many nodes' requests are stepped at once. */
const NODES_AT_ONCE = 8;

/**
 * Every active request's step, nodes side by side (issue 20): a wave of nodes back from their
 * reboots is proven, and its slots handed on, in about the time of one node rather than of all of
 * them one after another. Each step reads and writes its own request, node and slot alone; the
 * requests of one node (a person's new one beside the active one) still go one after another, in
 * the list's order, as intake compares them. The report keeps the list's order. A step that throws
 * starts no other node's, lets those under way finish (a tick never ends with work still running),
 * and then fails the tick with its error, as before.
 */
async function stepAll(
  deps: TickDeps,
  active: readonly NodeView[],
  decisions: readonly Decision[],
): Promise<string[]> {
  const byNode = new Map<string, number[]>();
  active.forEach((node, i) => byNode.set(node.name, [...(byNode.get(node.name) ?? []), i]));
  const groups = [...byNode.values()];
  const said: string[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < groups.length && !failure) {
      for (const i of groups[next++]!) {
        const node = active[i]!;
        try {
          said[i] = `${node.name}: ${await step(deps, node, active, decisions)}`;
        } catch (error) {
          failure ??= { error };
          return;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(NODES_AT_ONCE, groups.length) }, worker));
  if (failure) throw failure.error;
  return said;
}

/**
 * One request's step: accept a person's new request, end one whose node is gone, apply the decisions
 * people made since the last tick, then reconcile.
 */
async function step(
  deps: TickDeps,
  node: NodeView,
  active: readonly NodeView[],
  decisions: readonly Decision[],
): Promise<string> {
  const request = node.request!;
  if (node.requestAccepted === false) {
    const others = active
      .filter((n) => n.name === node.name && n.requestAccepted !== false)
      .map((n) => n.request!);
    return intake(deps, node, others);
  }
  if (node.missing) {
    const result = fail(
      request,
      { by: SYSTEM, failure: `node ${node.name} no longer exists` },
      deps.clock.now(),
    );
    await persist(deps, node, result, {
      kind: 'failed',
      message: `node ${node.name} is gone`,
      warning: true,
    });
    return 'failed: node gone';
  }
  const applied = await applyPending(deps, node, decisions);
  const said = applied.applied.map((a) => a.message).join('; ');
  const result = await reconcileRequest(deps, applied.node);
  return said ? `${said}; ${result}` : result;
}

/** What needs maintenance now: marked nodes (cheap), or every node with kubelet skew (a skew scan). */
export async function findNeeds(
  deps: Pick<TickDeps, 'settings' | 'cluster' | 'clock'>,
  skewScan: boolean,
): Promise<Findings> {
  const { settings, cluster } = deps;
  const nodes = skewScan
    ? await cluster.listNodes()
    : await cluster.listNodes(`${settings.detection.rebootLabel}=true`);
  const apiservers =
    skewScan && settings.kubelet.enabled
      ? apiserverBound(await cluster.apiserverFacts())
      : undefined;
  const { needs, skipped, violations } = detectNeeds(
    nodes,
    {
      ...settings.detection,
      ...(apiservers
        ? {
            kubelet: {
              apiservers: apiservers.bound,
              ...(settings.kubelet.target ? { target: settings.kubelet.target } : {}),
            },
          }
        : {}),
    },
    deps.clock.now(),
  );
  return { nodes, needs, skipped, violations, ...(apiservers ? { apiservers } : {}) };
}

export interface Findings {
  nodes: NodeView[];
  needs: Need[];
  skipped: { node: string; why: string }[];
  /** Kubelets newer than the apiserver bound: reported, never proposed (no kubelet upgrade fixes them). */
  violations: Violation[];
  /** The bound a skew scan measured kubelets against, and which apiserver and source gave it. */
  apiservers?: BoundReading;
}

/** The apiserver bound a skew scan measured kubelets against (its one line) and when it ran. */
export interface ScannedBound {
  line: string;
  /** ISO time of the scan. */
  at: string;
}

/** The bound of a tick that ran a skew scan (skewLines' first line), or undefined for any other. */
export function scannedBound(report: Pick<TickReport, 'skew' | 'at'>): ScannedBound | undefined {
  const line = report.skew?.[0];
  return line === undefined ? undefined : { line, at: report.at };
}

/** A skew scan's report lines: the bound first, what may make it wrong, each kubelet above it. */
export function skewLines(findings: Pick<Findings, 'apiservers' | 'violations'>): string[] {
  if (!findings.apiservers) return [];
  return [
    findings.apiservers.summary,
    ...findings.apiservers.warnings.map((w) => `warning: ${w}`),
    ...findings.violations.map((v) => `${v.node}: skew violation: ${v.why}`),
  ];
}

async function detectAndPropose(
  deps: TickDeps,
  skewScan: boolean,
  report: TickReport,
): Promise<void> {
  const findings = await findNeeds(deps, skewScan);
  const { nodes, needs, skipped } = findings;
  if (skewScan && findings.apiservers) report.skew = skewLines(findings);
  // The full node list of a skew scan also shows requests the first release left in annotations.
  if (skewScan) report.migrated = await migrateAnnotations(deps, nodes);
  // A taint a crash or an earlier config left behind goes; one a write did not make is made.
  if (skewScan) report.taints = await sweepWaitingTaints(deps, nodes);
  if (skewScan) report.agent = await publishAgentSettings(deps);
  // The flapping gate's history is kept from every read of the whole fleet.
  if (skewScan) await recordNotReady(deps, nodes);
  report.skipped = skipped.map((s) => `${s.node}: ${s.why}`);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const campaigns = new Map<string, string>();
  const groupSizes = countBy(needs, (n) => n.campaignKey);
  for (const need of needs) {
    const node = byName.get(need.node)!;
    // Many nodes with the same reason become one campaign prompt, not a message each.
    const campaign =
      (groupSizes.get(need.campaignKey) ?? 0) > 1 ? campaignId(deps, campaigns, need) : undefined;
    if (await proposeNeed(deps, node, need, campaign))
      report.proposed.push(
        `${need.node}: ${need.action}${need.targetVersion ? ` ${need.targetVersion}` : ''}`,
      );
  }
  // Last, once nothing else in the pass reads the requests: ended ones beyond retention go and labels
  // are set right. The scan reads the whole history so that every other tick need not.
  if (skewScan) report.retention = await keepRetention(deps);
  // After retention, so what it deleted is not rewritten first; two CRD reads once it is done.
  const storage = skewScan ? await migrateStorage(deps.storageVersions) : [];
  if (storage.length > 0) report.storage = storage;
}

async function proposeNeed(
  deps: TickDeps,
  node: NodeView,
  need: Need,
  campaign: string | undefined,
): Promise<boolean> {
  const poolLabel = deps.settings.lock.poolLabel;
  const pool = poolLabel ? node.labels[poolLabel] : undefined;
  const result = propose(
    node.request,
    {
      id: requestId(deps.randomBytes(3)),
      node: node.name,
      action: need.action,
      ...(need.targetVersion ? { targetVersion: need.targetVersion } : {}),
      reason: need.reason,
      requestedBy: 'detector',
      origin: 'detection',
      ...(campaign ? { campaign } : {}),
      ...(pool ? { pool } : {}),
    },
    deps.clock.now(),
  );
  const outcome = await persist(deps, node, result, { kind: 'proposed', message: need.reason });
  return outcome.status === 'written';
}

function campaignId(deps: TickDeps, campaigns: Map<string, string>, need: Need): string {
  let id = campaigns.get(need.campaignKey);
  if (!id) {
    id = `c-${Buffer.from(deps.randomBytes(3)).toString('hex')}`;
    campaigns.set(need.campaignKey, id);
  }
  return id;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
