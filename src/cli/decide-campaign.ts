/**
 * `approve|reject|cancel --campaign NAME`: the person decides every request of a campaign that the
 * decision can still move, each with a decision object of its own in the person's own name (ADR 0012,
 * ADR 0042), as "Approve all" does in Slack; then waits once for the control plane to apply them all.
 * Each request is judged on its own: one that cannot be moved is said, the others still are.
 */
import { recordDecision, type CommandResult } from '../app/control/commands.js';
import type { ControlRuntime } from '../compose.js';
import { isActive, type MaintenanceRequest } from '../core/request.js';
import { KubemaintError } from '../errors.js';
import { cliPerson } from './control-context.js';
import { until } from './decide-as.js';

export type CampaignDecision = 'approve' | 'reject' | 'cancel';

/** The requests of a campaign a decision aims at: those it can still move. Pure. */
export function campaignTargets(
  requests: readonly MaintenanceRequest[],
  campaign: string,
  kind: CampaignDecision,
): MaintenanceRequest[] {
  return requests.filter((r) => {
    if (r.campaign !== campaign) return false;
    switch (kind) {
      case 'approve':
        return r.state === 'proposed';
      case 'reject':
        return r.state === 'proposed' || r.state === 'approved';
      case 'cancel':
        // As a single cancel: not once the host command is issued (that reboot cannot be undone).
        return isActive(r.state) && r.hostCommandIssuedAt === undefined;
    }
  });
}

/** One result per request of the campaign the decision aimed at, in the order of their nodes. */
export async function decideCampaignAs(
  runtime: ControlRuntime,
  campaign: string,
  kind: CampaignDecision,
  waitMs: number,
  reason?: string,
): Promise<CommandResult[]> {
  const all = await runtime.deps.cluster.listRequests();
  const ofCampaign = all.filter((r) => r.campaign === campaign);
  if (ofCampaign.length === 0) {
    const known = [...new Set(all.map((r) => r.campaign).filter((c) => c !== undefined))];
    throw new KubemaintError('usage', `there is no campaign ${JSON.stringify(campaign)}`, {
      hint: known.length
        ? `campaigns with requests: ${known.slice(0, 10).join(', ')} (kubemaint status --json shows each request's)`
        : 'no request belongs to a campaign; `kubemaint status` lists the requests',
    });
  }
  const targets = campaignTargets(all, campaign, kind).sort((a, b) =>
    a.node.localeCompare(b.node, 'en', { numeric: true }),
  );
  if (targets.length === 0) {
    const states = ofCampaign.map((r) => `${r.node} ${r.state}`).join(', ');
    return [{ ok: false, message: `campaign ${campaign}: no request to ${kind} (${states})` }];
  }
  const by = await cliPerson(runtime);
  const recorded = new Map<string, { name: string; created: boolean }>();
  const results = new Map<string, CommandResult>();
  for (const target of targets) {
    const answer = await recordDecision(runtime.deps, target.id, kind, by, reason);
    if ('name' in answer) recorded.set(target.id, answer);
    else results.set(target.id, answer);
  }
  // One read of every request per poll, however large the campaign.
  await until(waitMs, async () => {
    const requests = await runtime.deps.cluster.listRequests();
    for (const [id, decision] of recorded) {
      const applied = requests
        .find((r) => r.id === id)
        ?.decisions?.find((d) => d.name === decision.name);
      if (applied) results.set(id, { ok: applied.ok, message: applied.message });
    }
    return [...recorded.keys()].every((id) => results.has(id)) ? true : undefined;
  });
  return targets.map(
    (t) =>
      results.get(t.id) ?? {
        ok: true,
        message: `${kind} ${t.id} (${t.node}): recorded as ${by.id}${recorded.get(t.id)?.created === false ? ' (you had already recorded it)' : ''}; kubemaint has not acted on it yet (is serve running? the scheduled tick applies it)`,
      },
  );
}
