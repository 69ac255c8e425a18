/**
 * The mrkdwn paragraphs a prompt and the details modal are made of: what and why, the kubelet skew
 * and its risk, the pods a drain would evict with PDB headroom, blockers, the window, drain progress
 * and the failure. Each returns escaped text already fitted to a section (3000 characters), or
 * undefined when it has nothing to say.
 */
import type { MaintenanceRequest } from '../../src/core/request.js';
import { describeGracefulShutdown } from '../../src/core/graceful-shutdown.js';
import { formatMinor, tryParseKubeVersion } from '../../src/core/version.js';
import { LIMITS, code, esc, fitLines, when } from './mrkdwn.js';
import { who } from './state.js';
import type { Preview, PromptContext } from './types.js';

const bullets = (items: readonly string[], noun: string, max: number = LIMITS.section) =>
  fitLines(
    items.map((i) => `• ${i}`),
    max,
    noun,
  );

export function whatAndWhy(request: MaintenanceRequest, ctx: PromptContext): string {
  const lines = [`*Why:* ${esc(request.reason)}`];
  const since = ctx.preview?.rebootRequiredSince;
  if (request.action === 'reboot' && since)
    lines.push(`*Reboot required since:* ${when(since, ctx.now, ctx.timeZone)}`);
  const packages = ctx.preview?.packages ?? [];
  if (request.action === 'reboot' && packages.length > 0)
    lines.push(`*Packages that asked for it:* ${fitLines([packages.map(code).join(', ')], 1200)}`);
  lines.push(
    `*Requested by:* ${who(request.requestedBy)} ${when(request.createdAt, ctx.now, ctx.timeZone)}`,
  );
  return fitLines(lines, LIMITS.section, 'more lines');
}

/**
 * Kubelet skew and its risk (invariant 6): a minor upgrade may recreate every container (the
 * container hash changes), which is why kubemaint always drains first.
 */
export function skew(request: MaintenanceRequest, preview?: Preview): string | undefined {
  if (request.action !== 'upgrade') return undefined;
  const fromText = request.kubeletVersionBefore ?? preview?.kubeletVersion;
  const from = fromText ? tryParseKubeVersion(fromText) : undefined;
  const to = request.targetVersion ? tryParseKubeVersion(request.targetVersion) : undefined;
  const head = `*Kubelet:* ${code(fromText ?? 'unknown')} → ${code(request.targetVersion ?? 'target')}`;
  if (!from || !to) return `${head}\n*Risk:* the node is drained first; the kubelet restarts.`;
  if (from.minor === to.minor && from.major === to.major)
    return `${head} (patch)\n*Risk:* low: the kubelet restarts; the node is drained first anyway.`;
  return (
    `${head} (one minor, ${formatMinor(from)} → ${formatMinor(to)})\n` +
    '*Risk:* a new kubelet minor may recreate every container on the node (the container hash ' +
    'changes), so the node is drained first.'
  );
}

/**
 * The kubelet's graceful shutdown before a reboot (ADR 0049): the pods a drain leaves (DaemonSet
 * pods, the executor's own) get a SIGTERM only when shutdownGracePeriod is set; a warning otherwise.
 */
export function gracefulShutdown(
  request: MaintenanceRequest,
  preview?: Preview,
): string | undefined {
  const fact = preview?.gracefulShutdown;
  if (request.action !== 'reboot' || !fact) return undefined;
  const line = esc(describeGracefulShutdown(fact));
  return fact.state === 'on'
    ? `*Graceful shutdown:* ${line}`
    : `:warning: *Graceful shutdown:* ${line}`;
}

export function pods(preview: Preview): string {
  const lines: string[] = [];
  lines.push(
    preview.evict.length === 0
      ? '*Pods that would be evicted:* none'
      : `*Pods that would be evicted (${preview.evict.length}):*\n${bullets(preview.evict.map(code), 'more pods', 1500)}`,
  );
  if (preview.budgets.length === 0) {
    lines.push(
      preview.evict.length > 0
        ? `*PDB headroom:* every pod passes a dry-run eviction now`
        : '*PDB headroom:* nothing to evict',
    );
  } else {
    const held = preview.budgets.map(
      (b) =>
        `${code(b.name)} allows no disruption now: ${fitLines([b.pods.map(code).join(', ')], 400)}`,
    );
    lines.push(`*PDB headroom:*\n${bullets(held, 'more budgets', 900)}`);
  }
  if (preview.skipped.length > 0)
    lines.push(`_Left in place: ${preview.skipped.length} (DaemonSet, mirror or finished pods)_`);
  for (const warning of preview.warnings.slice(0, 3)) lines.push(`:warning: ${esc(warning)}`);
  return fitLines(lines, LIMITS.section, 'more lines');
}

export function blockers(request: MaintenanceRequest, preview?: Preview): string | undefined {
  const all = [...new Set([...(request.blockedReasons ?? []), ...(preview?.blockers ?? [])])];
  const errors = preview?.errors ?? [];
  if (all.length === 0 && errors.length === 0) return undefined;
  const lines = [
    ...all.map((b) => `• ${esc(b)}`),
    ...errors.map((e) => `• :grey_question: could not read ${esc(e)}`),
  ];
  return `*Blockers:*\n${fitLines(lines, LIMITS.section - 20, 'more blockers')}`;
}

export function windowLine(ctx: PromptContext): string | undefined {
  const window = ctx.preview?.window;
  if (window?.freeze) return `*Window:* frozen (${esc(window.freeze)})`;
  if (window?.open)
    return `*Window:* open now${window.closesAt ? `, closes ${esc(window.closesAt)}` : ''}${window.fit ? ` — ${esc(window.fit)}` : ''}`;
  const next = window?.nextOpening ?? ctx.nextWindow;
  return next ? `*Next window:* ${esc(next)}` : undefined;
}

export function drainProgress(request: MaintenanceRequest, ctx: PromptContext): string | undefined {
  const drain = request.drain;
  if (!drain) return undefined;
  const lines = [`*Drain:* ${drain.evicted}/${drain.total} evicted: ${esc(drain.message)}`];
  if (drain.waitingOn.length > 0) {
    const since = drain.stalledSince
      ? ` (stalled since ${when(drain.stalledSince, ctx.now, ctx.timeZone)})`
      : '';
    lines.push(
      `*Waiting on${since}:*\n${bullets(
        drain.waitingOn.map((w) => `${code(w.pod)}: ${esc(w.reason)}`),
        'more pods',
        1500,
      )}`,
    );
  }
  if (request.drainDecision)
    lines.push(`*Decision:* ${request.drainDecision.decision} by ${who(request.drainDecision.by)}`);
  return fitLines(lines, LIMITS.section, 'more lines');
}

/** Why it ended unmaintained: a failure, or a skip (`drain.onTimeout: uncordon`) with the pods that refused. */
export const failure = (request: MaintenanceRequest): string | undefined =>
  request.failure
    ? fitLines(
        [`*${request.state === 'skipped' ? 'Skipped' : 'Failure'}:* ${esc(request.failure)}`],
        LIMITS.section,
      )
    : undefined;
