/**
 * The preflight of a campaign in summary (ADR 0042): what a per-node prompt shows of one node (pods a
 * drain would evict, budgets that would refuse an eviction now, pods kubectl's rules would not evict
 * as they are, blockers, whether the work fits the window), folded over every node still to start,
 * so approving twenty nodes at once is not approving blind. Pure: previews in, mrkdwn out.
 */
import { gracefulShutdownWarning } from '../../src/core/graceful-shutdown.js';
import { LIMITS, code, esc, fitLines } from './mrkdwn.js';
import type { Preview } from './types.js';

export interface CampaignPreflight {
  previews: readonly Preview[];
  /** Nodes still to start that were not previewed (the cap on dry runs per render). */
  notPreviewed: number;
}

/** Values of `key` by each node that has them: `value → [node, …]`, in first-seen order. */
function byNode(
  previews: readonly Preview[],
  values: (p: Preview) => readonly string[],
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const preview of previews)
    for (const value of new Set(values(preview)))
      found.set(value, [...(found.get(value) ?? []), preview.node]);
  return found;
}

const nodes = (names: readonly string[]) =>
  names.length <= 3
    ? names.map(code).join(', ')
    : `${names.slice(0, 3).map(code).join(', ')} and ${names.length - 3} more`;

/**
 * The section text, or undefined when nothing was previewed. `rebooting` says which nodes are to be
 * rebooted: only a reboot depends on the kubelet's graceful shutdown.
 */
export function campaignPreflight(
  preflight: CampaignPreflight,
  rebooting: (node: string) => boolean = () => true,
): string | undefined {
  const { previews, notPreviewed } = preflight;
  if (previews.length === 0) return undefined;
  const evict = previews.reduce((n, p) => n + p.evict.length, 0);
  const lines = [
    `*Preflight* (${previews.length} node${previews.length === 1 ? '' : 's'}${notPreviewed ? `; ${notPreviewed} more not previewed` : ''}): ${evict} pod${evict === 1 ? '' : 's'} would be evicted`,
  ];
  const budgets = byNode(previews, (p) => p.budgets.map((b) => b.name));
  lines.push(
    budgets.size === 0
      ? '• PDBs: every pod passes a dry-run eviction now'
      : `• PDBs that would block now: ${[...budgets].map(([name, on]) => `${code(name)} (${nodes(on)})`).join('; ')}`,
  );
  // kubectl's rules: emptyDir data lost, or pods without a controller (never recreated elsewhere).
  const warnings = byNode(previews, (p) => p.warnings);
  for (const [warning, on] of warnings) lines.push(`• :warning: ${esc(warning)} (${nodes(on)})`);
  // Nodes whose kubelet would not stop their pods gracefully on a reboot (ADR 0049), one line.
  const graceless = previews.filter(
    (p) =>
      rebooting(p.node) &&
      p.gracefulShutdown !== undefined &&
      gracefulShutdownWarning(p.gracefulShutdown) !== undefined,
  );
  if (graceless.length > 0)
    lines.push(
      `• :warning: shutdownGracePeriod 0 or unknown on ${nodes(graceless.map((p) => p.node))}: pods will not be terminated gracefully on reboot: set shutdownGracePeriod in the kubelet config`,
    );
  const blockers = byNode(previews, (p) => p.blockers);
  for (const [blocker, on] of blockers) lines.push(`• ${esc(blocker)} (${nodes(on)})`);
  const fits = previews.flatMap((p) => (p.window.fit ? [p.window.fit] : []));
  const tooLong = previews.filter((p) => p.window.fit?.startsWith('does not fit'));
  if (tooLong.length > 0)
    lines.push(
      `• Window: does not fit for ${nodes(tooLong.map((p) => p.node))}: ${esc(tooLong[0]!.window.fit!)}`,
    );
  else if (fits.length > 0) lines.push(`• Window: ${esc(fits[0]!)}`);
  const errors = byNode(previews, (p) => p.errors);
  for (const [error, on] of errors)
    lines.push(`• :grey_question: could not read ${esc(error)} (${nodes(on)})`);
  return fitLines(lines, LIMITS.section - 20, 'more preflight lines');
}
