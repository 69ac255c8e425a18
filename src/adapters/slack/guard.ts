/**
 * The server-side check behind every button and command that decides something (invariant 2): the
 * channel must be allowed and the person an approver, by user ID or by group, both by the rules of
 * the cluster the action is about (with `clusters:`, each has its own). A refusal changes
 * nothing, and is recorded as a Warning Event on the node so an audit sees who tried. The two-person
 * rule and self-approval are core/approval's, applied again inside the use case.
 */
import { authorisationProblem, type Person } from '../../core/approval.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { channelAllowed, channelList, type SlackRuntime } from './runtime.js';

export const UNAUTHORISED_REASON = 'KubemaintUnauthorised';

export function refusal(
  rt: SlackRuntime,
  person: Person,
  channel: string | undefined,
): string | undefined {
  if (!channelAllowed(rt.settings, channel))
    return `kubemaint takes decisions${forCluster(rt)} only in ${channelList(rt.settings)}`;
  const problem = authorisationProblem(person, rt.deps.settings.approval);
  return problem && rt.several ? `in ${rt.settings.cluster}: ${problem}` : problem;
}

/** ` for prod-eu` when the app serves several clusters: the refusal says whose rule it is. */
const forCluster = (rt: SlackRuntime): string => (rt.several ? ` for ${rt.settings.cluster}` : '');

/** Record a refused attempt on the nodes it aimed at; never fails the answer. */
export async function recordRefusal(
  rt: SlackRuntime,
  requests: readonly MaintenanceRequest[],
  person: Person,
  verb: string,
  problem: string,
): Promise<void> {
  await Promise.all(
    requests.map((r) =>
      rt.deps.cluster
        .recordEvent(r.node, {
          reason: UNAUTHORISED_REASON,
          type: 'Warning',
          message: `${r.id}: Slack user ${person.id} tried to ${verb}: ${problem}`.slice(0, 1000),
        })
        .catch((error: unknown) =>
          rt.log.warn({ err: error, node: r.node }, 'could not record a refused Slack action'),
        ),
    ),
  );
}

/** Check and, when refused, record: the one call listeners make. */
export async function guard(
  rt: SlackRuntime,
  person: Person,
  channel: string | undefined,
  requests: readonly MaintenanceRequest[],
  verb: string,
): Promise<string | undefined> {
  const problem = refusal(rt, person, channel);
  if (problem) await recordRefusal(rt, requests, person, verb, problem);
  return problem;
}
