/**
 * What the Slack notifier does for one event of a single request: a `proposed` request gets its
 * prompt, and its location is written onto the request; any later event becomes a reply in that
 * thread (a stalled drain asks the approvers instead), and the prompt is edited to the request's
 * current state. Each Slack call fails on its own: a lost reply does not stop the prompt update.
 * A campaign's events go through notifier-campaign.ts, which posts its one prompt with
 * postOrUpdatePrompt and edits it as its digest.
 */
import { previewCampaign, type Preview } from '../../app/control/preview.js';
import type { ClusterPort, Clock } from '../../app/control/ports.js';
import {
  findSlackThread,
  recordSlackThread,
  type SlackLocation,
} from '../../app/control/slack-thread.js';
import type { MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { Logger } from '../../log.js';
import {
  campaignPrompt,
  drainQuestion,
  requestPrompt,
  threadReply,
  type PromptContext,
  type SlackMessage,
} from '../../../templates/slack/index.js';
import type { SlackChat } from './thread-chat.js';

export interface DeliverDeps {
  chat: SlackChat;
  cluster: ClusterPort;
  clock: Pick<Clock, 'now'>;
  log: Logger;
  /** Where new prompts go. */
  channel: string;
  clusterName: string;
  /** The app serves several clusters: buttons carry the cluster, thread replies name it. */
  several?: boolean;
  timeZone: string;
  /** The preview for a single request's prompt (previewRequest, bound); omitted → no pods shown. */
  preview?: (node: string, request?: MaintenanceRequest) => Promise<Preview>;
  /** The next window's opening as text, for prompts without a preview (campaigns). */
  nextWindow?: () => string | undefined;
  /** Mentioned in stalled-drain questions: Slack user (`U…`) or user group (`S…`) ids. */
  approvers: readonly string[];
  /** Prompt locations this process posted, by request id and campaign id. */
  threads: Map<string, SlackLocation>;
  /** What this process last posted or edited each prompt to, by its `ts`: the same is not sent again. */
  sent?: Map<string, string>;
}

const MAX_REMEMBERED = 2_000;

export async function deliver(
  deps: DeliverDeps,
  event: MaintenanceEvent,
  request: MaintenanceRequest,
): Promise<void> {
  const key = request.campaign ?? request.id;
  let location = deps.threads.get(key) ?? (await findSlackThread(deps, request));
  if (!location || event.kind === 'proposed') {
    // A prompt is due (or a node joins a campaign); an event for a request nobody announced yet
    // (the notifier started later) gets its prompt too, so the thread has a head.
    location = await postOrUpdatePrompt(deps, request, location);
    if (!location) return;
    if (event.kind === 'proposed') return;
  } else {
    await attempt(deps, 'chat.update', async () => {
      await deps.chat.update(location!.channel, location!.ts, await prompt(deps, request));
    });
  }
  const reply = threadReplyFor(deps, event, request);
  await attempt(deps, 'chat.postMessage (thread)', () =>
    deps.chat.post(location.channel, reply, location.ts),
  );
}

/** The event's reply in the thread: a stalled drain asks the approvers, anything else is one line. */
export function threadReplyFor(
  deps: DeliverDeps,
  event: MaintenanceEvent,
  request: MaintenanceRequest,
): SlackMessage {
  return event.ask === 'drain-decision'
    ? drainQuestion(request, {
        mention: deps.approvers,
        now: deps.clock.now(),
        timeZone: deps.timeZone,
        ...(deps.several ? { cluster: deps.clusterName } : {}),
      })
    : threadReply(event, { several: deps.several ?? false });
}

/** Post the prompt (or update it when it exists) and remember where it lives on every request. */
export async function postOrUpdatePrompt(
  deps: DeliverDeps,
  request: MaintenanceRequest,
  known: SlackLocation | undefined,
): Promise<SlackLocation | undefined> {
  const key = request.campaign ?? request.id;
  const members = request.campaign ? await campaignMembers(deps, request) : [request];
  const existing = known ?? members.find((m) => m.slack)?.slack;
  const message = await prompt(deps, request, members);
  const text = JSON.stringify(message);
  let location = existing;
  if (existing) {
    // A digest edit asked for by steps its lines do not show (a blocker's holders moving on) would
    // be a call that changes nothing.
    if (deps.sent?.get(existing.ts) !== text) {
      const edited = await attempt(deps, 'chat.update', async () => {
        await deps.chat.update(existing.channel, existing.ts, message);
        return true;
      });
      if (edited) remember(deps, existing.ts, text);
    }
  } else {
    location = await attempt(deps, 'chat.postMessage', () => deps.chat.post(deps.channel, message));
    if (location) remember(deps, location.ts, text);
  }
  if (!location) return undefined;
  deps.threads.set(key, location);
  // A long-running `serve` meets many requests; the cluster keeps every location anyway, this is
  // only a shortcut, so the oldest entries go.
  if (deps.threads.size > MAX_REMEMBERED) deps.threads.delete(deps.threads.keys().next().value!);
  for (const member of members) {
    if (member.slack?.ts === location.ts) continue;
    const outcome = await attempt(deps, 'record thread', () =>
      recordSlackThread(deps, member.node, member.id, location),
    );
    if (outcome === 'lost-race')
      deps.log.warn({ request: member.id }, 'slack: thread location not recorded');
  }
  return location;
}

function remember(deps: DeliverDeps, ts: string, text: string): void {
  if (!deps.sent) return;
  deps.sent.delete(ts);
  deps.sent.set(ts, text);
  if (deps.sent.size > MAX_REMEMBERED) deps.sent.delete(deps.sent.keys().next().value!);
}

async function prompt(
  deps: DeliverDeps,
  request: MaintenanceRequest,
  members?: MaintenanceRequest[],
): Promise<SlackMessage> {
  const next = deps.nextWindow?.();
  const ctx: PromptContext = {
    cluster: deps.clusterName,
    ...(deps.several ? { several: true } : {}),
    timeZone: deps.timeZone,
    now: deps.clock.now(),
    ...(next ? { nextWindow: next } : {}),
  };
  if (request.campaign) {
    const all = members ?? (await campaignMembers(deps, request));
    const preview = deps.preview;
    const preflight = preview && (await previewCampaign((node, r) => preview(node, r), all));
    return campaignPrompt(all, preflight ? { ...ctx, preflight } : ctx);
  }
  // The preview (a dry-run eviction per pod) only matters while people still decide or wait.
  const wanted = deps.preview && (request.state === 'proposed' || request.state === 'approved');
  const preview = wanted
    ? await attempt(deps, 'preview', () => deps.preview!(request.node, request))
    : undefined;
  return requestPrompt(request, preview ? { ...ctx, preview } : ctx);
}

/** Every request of the campaign as the cluster has it now, with `request` in its newest form. */
async function campaignMembers(
  deps: DeliverDeps,
  request: MaintenanceRequest,
): Promise<MaintenanceRequest[]> {
  // The requests alone (one list), not their nodes too: a digest of a thousand nodes is edited every
  // few seconds while they roll.
  const requests = (await attempt(deps, 'list campaign', () => deps.cluster.listRequests())) ?? [];
  const byId = new Map<string, MaintenanceRequest>();
  for (const member of requests)
    if (member.campaign === request.campaign) byId.set(member.id, member);
  const listed = byId.get(request.id);
  // The event's copy is newer when the list raced the write that caused the event.
  if (!listed || listed.updatedAt < request.updatedAt)
    byId.set(request.id, listed?.slack ? { ...request, slack: listed.slack } : request);
  return [...byId.values()].sort((a, b) => a.node.localeCompare(b.node));
}

/** Run one step; on failure log it and go on (Slack never holds up maintenance). */
export async function attempt<T>(
  deps: DeliverDeps,
  what: string,
  step: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    deps.log.warn({ err: error, step: what }, `slack: ${what} failed`);
    return undefined;
  }
}
