/**
 * Block constructors that apply the Block Kit limits where the text enters: a section never exceeds
 * 3000 characters, a header 150, a button 75 of text and 2000 of value. Callers pass text already
 * escaped for mrkdwn; plain_text is shown literally by Slack and is not escaped.
 */
import type { Button, KnownBlock } from './types.js';
import { LIMITS, clip } from './mrkdwn.js';

export const header = (text: string): KnownBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: clip(text, LIMITS.header) || '-', emoji: true },
});

export const section = (mrkdwn: string, blockId?: string): KnownBlock => ({
  type: 'section',
  ...(blockId ? { block_id: clip(blockId, 255) } : {}),
  text: { type: 'mrkdwn', text: clip(mrkdwn, LIMITS.section) || ' ' },
});

export const context = (...mrkdwn: string[]): KnownBlock => ({
  type: 'context',
  elements: mrkdwn
    .slice(0, LIMITS.contextElements)
    .map((text) => ({ type: 'mrkdwn' as const, text: clip(text, LIMITS.section) || ' ' })),
});

export const divider = (): KnownBlock => ({ type: 'divider' });

export interface ButtonSpec {
  actionId: string;
  text: string;
  value: string;
  style?: 'primary' | 'danger';
  confirm?: { title: string; text: string; confirm: string; deny: string };
}

export function button(spec: ButtonSpec): Button {
  return {
    type: 'button',
    action_id: spec.actionId,
    text: { type: 'plain_text', text: clip(spec.text, LIMITS.buttonText) || '-', emoji: true },
    value: clip(spec.value, LIMITS.buttonValue),
    ...(spec.style ? { style: spec.style } : {}),
    ...(spec.confirm
      ? {
          // Slack requires all four texts although the typings mark three optional (reference §3).
          confirm: {
            title: { type: 'plain_text', text: clip(spec.confirm.title, 100) },
            text: { type: 'mrkdwn', text: clip(spec.confirm.text, 300) },
            confirm: { type: 'plain_text', text: clip(spec.confirm.confirm, 30) },
            deny: { type: 'plain_text', text: clip(spec.confirm.deny, 30) },
          },
        }
      : {}),
  };
}

/** An actions block; Slack takes 25 elements at most, so callers pass at most that many. */
export const actions = (blockId: string, buttons: Button[]): KnownBlock => ({
  type: 'actions',
  block_id: clip(blockId, 255),
  elements: buttons.slice(0, LIMITS.actions),
});

/** Keep a message under 50 blocks: the overflow is replaced by one context line that counts it. */
export function capBlocks(blocks: KnownBlock[], max: number = LIMITS.blocks): KnownBlock[] {
  if (blocks.length <= max) return blocks;
  // Keep the trailing actions block (the buttons matter more than the 49th detail line).
  const last = blocks.at(-1);
  const keepLast = last?.type === 'actions';
  const room = max - 1 - (keepLast ? 1 : 0);
  const dropped = blocks.length - room - (keepLast ? 1 : 0);
  return [
    ...blocks.slice(0, room),
    context(`… and ${dropped} more`),
    ...(keepLast && last ? [last] : []),
  ];
}
