/**
 * The Slack notifier: the control plane's Notifier port over the Slack Web API. `notify` queues the
 * event and returns at once (it never throws and never makes a tick wait on Slack); events of one
 * request, or of one campaign, are delivered in order, so a reply never overtakes the prompt it
 * threads under. A campaign's prompt is its digest (ADR 0056): the events that make an edit due
 * ask for one, and it comes `digestDelayMs` later (and that long after the last edit ended),
 * showing the campaign as it is then; the events of a tick's burst share it. `flush()` makes the
 * edits asked for and waits for what is queued: before a Lambda returns, and at shutdown.
 */
import type { Preview } from '../../app/control/preview.js';
import type { ClusterPort, Clock, Notifier } from '../../app/control/ports.js';
import type { SlackLocation } from '../../app/control/slack-thread.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { Logger } from '../../log.js';
import { deliverToCampaign, editDigest, editsDigest } from './notifier-campaign.js';
import { deliver, type DeliverDeps } from './notifier-deliver.js';
import { webClientChat, type SlackChat, type WebChatOptions } from './thread-chat.js';

export interface SlackNotifierOptions {
  /** The channel new prompts are posted to (an id like `C0123`, or a name). */
  channel: string;
  /** A ready chat port, or the token (and API URL) to build a WebClient from. */
  chat?: SlackChat;
  web?: WebChatOptions;
  cluster: ClusterPort;
  clock: Pick<Clock, 'now'>;
  log: Logger;
  /** The cluster's display name and the zone times are shown in (ControlSettings). */
  clusterName: string;
  /** The app serves several clusters (`clusters:`): buttons carry the cluster, replies name it. */
  several?: boolean;
  timeZone: string;
  preview?: (node: string, request?: MaintenanceRequest) => Promise<Preview>;
  nextWindow?: () => string | undefined;
  /** Mentioned when a stalled drain asks what to do. @default none */
  approvers?: readonly string[];
  /**
   * How long a campaign's digest edit waits after the event that asked for it, so the least time
   * between two edits of one digest (Slack allows chat.update about once a second). @default 3000
   */
  digestDelayMs?: number;
}

export interface SlackNotifier extends Notifier {
  /** Wait until every queued event was delivered (or given up on), at most `timeoutMs`. */
  flush(timeoutMs?: number): Promise<void>;
  /** Events queued or being delivered. */
  pending(): number;
}

export function createSlackNotifier(options: SlackNotifierOptions): SlackNotifier {
  const chat = options.chat ?? (options.web ? webClientChat(options.web) : undefined);
  if (!chat) throw new TypeError('createSlackNotifier needs `chat` or `web` (a bot token)');
  const deps: DeliverDeps = {
    chat,
    cluster: options.cluster,
    clock: options.clock,
    log: options.log,
    channel: options.channel,
    clusterName: options.clusterName,
    ...(options.several ? { several: true } : {}),
    timeZone: options.timeZone,
    approvers: options.approvers ?? [],
    threads: new Map<string, SlackLocation>(),
    sent: new Map<string, string>(),
    ...(options.preview ? { preview: options.preview } : {}),
    ...(options.nextWindow ? { nextWindow: options.nextWindow } : {}),
  };
  const chains = new Map<string, Promise<void>>();
  const digests = digestPacing(options.digestDelayMs ?? DIGEST_DELAY_MS, (request) =>
    enqueue(request.campaign!, 'digest', () => editDigest(deps, request)),
  );
  let queued = 0;

  /** Run `step` after everything queued for `key` (a request, or a campaign), never throwing. */
  const enqueue = (key: string, what: string, step: () => Promise<void>): Promise<void> => {
    queued += 1;
    const run = async () => {
      try {
        await step();
      } catch (error) {
        // Each Slack call logs its own failure; this catches the unexpected (a bug, a cluster read).
        options.log.error({ err: error, key, event: what }, 'slack: event lost');
      } finally {
        queued -= 1;
      }
    };
    const next = (chains.get(key) ?? Promise.resolve()).then(run);
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
    return next;
  };

  return {
    notify(event, request) {
      const campaign = request.campaign;
      if (campaign === undefined) {
        void enqueue(request.id, event.kind, () => deliver(deps, event, request));
        return Promise.resolve();
      }
      void enqueue(campaign, event.kind, async () => {
        const { posted } = await deliverToCampaign(deps, event, request);
        if (!posted && editsDigest(event)) digests.ask(request);
      });
      return Promise.resolve();
    },
    async flush(timeoutMs) {
      // New events may queue while we wait (a reply queues nothing, but callers might): loop.
      const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
      while ((chains.size > 0 || digests.waiting() > 0) && Date.now() < deadline) {
        // Events still being delivered ask for their digest's edit when they are: deliver them
        // first, so one edit shows them all instead of one now and one for the latecomers. The
        // edits made here queue on the chains, which the next turn waits for.
        const all = Promise.allSettled([...chains.values()]);
        if (deadline === Infinity) await all;
        else await Promise.race([all, sleep(Math.max(0, deadline - Date.now()))]);
        digests.now();
      }
    },
    pending: () => queued + digests.waiting(),
  };
}

const DIGEST_DELAY_MS = 3_000;

/**
 * One edit per digest waiting at a time, made `delayMs` after the ask that found none waiting, or
 * after the digest's last edit ended if that is later: the asks in between only bring a newer
 * request along. A digest is so edited at most once per `delayMs` plus an edit's own time (a big
 * campaign's read), never back to back. The edit reads the campaign when it runs, so it shows
 * every node as it is then.
 */
function digestPacing(delayMs: number, edit: (request: MaintenanceRequest) => Promise<void>) {
  const asked = new Map<string, { request: MaintenanceRequest; timer?: NodeJS.Timeout }>();
  const editing = new Map<string, Promise<void>>();
  const fire = (campaign: string) => {
    const due = asked.get(campaign);
    if (!due) return;
    clearTimeout(due.timer);
    asked.delete(campaign);
    const done = edit(due.request);
    editing.set(campaign, done);
    void done.then(() => {
      if (editing.get(campaign) === done) editing.delete(campaign);
    });
  };
  return {
    ask(request: MaintenanceRequest) {
      const campaign = request.campaign!;
      const due = asked.get(campaign);
      if (due) {
        due.request = request;
        return;
      }
      const entry: { request: MaintenanceRequest; timer?: NodeJS.Timeout } = { request };
      asked.set(campaign, entry);
      void (editing.get(campaign) ?? Promise.resolve()).then(() => {
        if (asked.get(campaign) === entry)
          entry.timer = setTimeout(() => fire(campaign), delayMs).unref();
      });
    },
    /** Make every edit asked for now (flush). */
    now: () => [...asked.keys()].forEach(fire),
    waiting: () => asked.size,
  };
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });
