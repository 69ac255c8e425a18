/**
 * The Slack notifier: the control plane's Notifier port over the Slack Web API. `notify` queues the
 * event and returns at once (it never throws and never makes a tick wait on Slack); events of one
 * request, or of one campaign, are delivered in order, so a reply never overtakes the prompt it
 * threads under. `flush()` waits for what is queued: before a Lambda returns, and at shutdown.
 */
import type { Preview } from '../../app/control/preview.js';
import type { ClusterPort, Clock, Notifier } from '../../app/control/ports.js';
import type { SlackLocation } from '../../app/control/slack-thread.js';
import type { MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { Logger } from '../../log.js';
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
    ...(options.preview ? { preview: options.preview } : {}),
    ...(options.nextWindow ? { nextWindow: options.nextWindow } : {}),
  };
  const chains = new Map<string, Promise<void>>();
  let queued = 0;

  const run = async (event: MaintenanceEvent, request: MaintenanceRequest) => {
    try {
      await deliver(deps, event, request);
    } catch (error) {
      // deliver logs each Slack call; this catches the unexpected (a bug, a cluster read).
      options.log.error(
        { err: error, request: request.id, event: event.kind },
        'slack: event lost',
      );
    } finally {
      queued -= 1;
    }
  };

  return {
    notify(event, request) {
      const key = request.campaign ?? request.id;
      queued += 1;
      const next = (chains.get(key) ?? Promise.resolve()).then(() => run(event, request));
      chains.set(key, next);
      void next.then(() => {
        if (chains.get(key) === next) chains.delete(key);
      });
      return Promise.resolve();
    },
    async flush(timeoutMs) {
      // New events may queue while we wait (a reply queues nothing, but callers might): loop.
      const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
      while (chains.size > 0 && Date.now() < deadline) {
        const all = Promise.allSettled([...chains.values()]);
        if (deadline === Infinity) await all;
        else await Promise.race([all, sleep(Math.max(0, deadline - Date.now()))]);
      }
    },
    pending: () => queued,
  };
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });
