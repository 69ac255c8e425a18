/**
 * The two Slack Web API calls the notifier makes, behind a tiny port so the thread logic does not
 * care about the SDK. The WebClient honours 429 Retry-After itself and retries a few times; after
 * that a call rejects, and the notifier logs it and moves on.
 */
import { webApi } from '@slack/bolt';
import type { SlackMessage } from '../../../templates/slack/index.js';

export interface SlackChat {
  /** chat.postMessage; with `threadTs`, a reply in that thread. */
  post(
    channel: string,
    message: SlackMessage,
    threadTs?: string,
  ): Promise<{ channel: string; ts: string }>;
  /** chat.update of a message posted before. */
  update(channel: string, ts: string, message: SlackMessage): Promise<void>;
}

export interface WebChatOptions {
  token: string;
  /** Web API base, e.g. `https://slack.com/api/` (a proxy, or a local stand-in in tests). */
  slackApiUrl?: string;
  /** Retries after a failed call (429s wait Retry-After first). @default 3 */
  retries?: number;
}

export function webClientChat(options: WebChatOptions): SlackChat {
  const client = new webApi.WebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    // A few quick retries, not the SDK's default of ten over half an hour: a Lambda has minutes, and
    // a lost thread reply is better than a tick that never ends.
    retryConfig: { retries: options.retries ?? 3, factor: 2, minTimeout: 200, maxTimeout: 5_000 },
    logLevel: webApi.LogLevel.ERROR,
  });
  return {
    async post(channel, message, threadTs) {
      const result = await client.chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
      if (!result.ts) throw new Error('chat.postMessage answered without a ts');
      return { channel: result.channel ?? channel, ts: result.ts };
    },
    async update(channel, ts, message) {
      await client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
    },
  };
}
