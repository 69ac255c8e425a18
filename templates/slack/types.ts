/**
 * The shapes the Slack templates produce and take: Block Kit types from @slack/types (re-exported by
 * @slack/bolt, so no extra dependency), the message pair Slack wants (`text` is the notification and
 * screen-reader fallback, `blocks` what people see) and the context a prompt is rendered in.
 */
import type { types } from '@slack/bolt';
import type { Preview } from '../../src/app/control/preview.js';
import type { CampaignPreflight } from './campaign-preflight.js';

export type KnownBlock = types.KnownBlock;
export type View = types.ModalView;
export type Button = types.Button;

/** What chat.postMessage / chat.update take from a template. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

export interface PromptContext {
  /** The cluster's display name from the config. */
  cluster: string;
  /**
   * The app serves several clusters (`clusters:`): buttons carry the cluster (`prod-eu/r-7f3a9c`),
   * so a click reaches the cluster it was posted for. Unset, values are the ids alone, as always.
   */
  several?: boolean;
  /** IANA zone the times in the message are shown in. */
  timeZone: string;
  /** Pods, PDB headroom, blockers and the window from `previewRequest`, when it could be read. */
  preview?: Preview;
  /** A campaign's nodes still to start, previewed (campaign-preflight.ts); absent: not read. */
  preflight?: CampaignPreflight;
  /** Human text of the next window opening when no preview carries it ("Sat 02:00 UTC"). */
  nextWindow?: string;
  /** Injected so renders are stable (golden files) and times read "3 h ago". */
  now: Date;
}

export type { Preview };
