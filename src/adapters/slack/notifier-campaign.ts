/**
 * A campaign's events on Slack (ADR 0056): its prompt is the campaign's digest, one message edited
 * in place, and a node's routine steps are not replies of their own. A thousand nodes each told
 * approved, draining, rebooting, back and done would be some ten thousand Web API calls, far past
 * what Slack lets one app post to a channel, and a thread nobody could read. Only what a person
 * must see at once, a failure (DESIGN §5.8) or a question (a stalled drain), is a reply in the
 * campaign's thread; every step is still a Kubernetes Event on its node, and `status <node>` shows
 * it. The edits themselves are paced by the notifier (notifier.ts).
 */
import { findSlackThread } from '../../app/control/slack-thread.js';
import type { EventKind, MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import {
  attempt,
  postOrUpdatePrompt,
  threadReplyFor,
  type DeliverDeps,
} from './notifier-deliver.js';

/** A node's steps between its start and its end: shown by the next edit, never one of their own. */
const BETWEEN: ReadonlySet<EventKind> = new Set(['rebooting', 'upgrading', 'back', 'hook']);

/** What people are told in the campaign's thread, at once: a failure, or a question for them. */
export const tellsPeople = (event: MaintenanceEvent): boolean =>
  event.kind === 'failed' || event.ask !== undefined;

/**
 * Whether the event makes the digest's edit due: a node proposed, decided, started or ended, or
 * blocked (the waiting count and its reasons). Those come in bursts, a hand-off's end and start in
 * one tick, so paced edits follow the hand-offs rather than each node's every step.
 */
export const editsDigest = (event: MaintenanceEvent): boolean => !BETWEEN.has(event.kind);

/**
 * The part of a campaign event that cannot wait: the prompt is posted when the campaign has none
 * (the first proposal, or a notifier that started later), and a failure or a question goes to its
 * thread. Returns whether the prompt is known to be as the event left it (it was just posted).
 */
export async function deliverToCampaign(
  deps: DeliverDeps,
  event: MaintenanceEvent,
  request: MaintenanceRequest,
): Promise<{ posted: boolean }> {
  const key = request.campaign ?? request.id;
  let location = deps.threads.get(key) ?? (await findSlackThread(deps, request));
  const posted = !location;
  if (!location) location = await postOrUpdatePrompt(deps, request, undefined);
  if (!location) return { posted };
  if (tellsPeople(event)) {
    const reply = threadReplyFor(deps, event, request);
    await attempt(deps, 'chat.postMessage (thread)', () =>
      deps.chat.post(location.channel, reply, location.ts),
    );
  }
  return { posted };
}

/** Edit the digest to the campaign as the cluster has it now (and record it on every member). */
export async function editDigest(deps: DeliverDeps, request: MaintenanceRequest): Promise<void> {
  const key = request.campaign ?? request.id;
  const location = deps.threads.get(key) ?? (await findSlackThread(deps, request));
  await postOrUpdatePrompt(deps, request, location);
}
