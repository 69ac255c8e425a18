/**
 * What a button click carries, read once from Bolt's `block_actions` body: who, where (the message
 * to edit afterwards), which button and its value. Listeners work on this, not on Slack's payload.
 */
import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import { messageKind, type MessageRef } from './prompt-refresh.js';

export interface Click {
  user: string;
  /** The workspace the click came from. */
  team?: string;
  channel?: string;
  /** The message that carried the button; absent for ephemeral messages (Slack omits it). */
  message?: MessageRef;
  /** Thread to reply in: the prompt's thread, or the prompt itself. */
  threadTs?: string;
  actionId: string;
  value: string;
  triggerId: string;
  respond: RespondFn;
}

export function readClick(body: BlockAction<ButtonAction>, respond: RespondFn): Click {
  const action = body.actions[0];
  const channel = body.channel?.id ?? (body.container['channel_id'] as string | undefined);
  const message = body.message;
  return {
    user: body.user.id,
    ...(body.team?.id ? { team: body.team.id } : {}),
    ...(channel ? { channel } : {}),
    ...(message && channel
      ? {
          message: { channel, ts: message.ts, kind: messageKind(message['blocks']) },
          threadTs: (message['thread_ts'] as string | undefined) ?? message.ts,
        }
      : {}),
    actionId: action?.action_id ?? '',
    value: action?.value ?? '',
    triggerId: body.trigger_id,
    respond,
  };
}

export const tell = async (click: Click, text: string): Promise<void> => {
  await click.respond({ response_type: 'ephemeral', replace_original: false, text });
};
