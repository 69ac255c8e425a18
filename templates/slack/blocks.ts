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

/**
 * Keep a message under 50 blocks and its text under Slack's undocumented total (`msg_blocks_too_long`
 * at about 12k characters, bolt-js #2867): overflowing blocks become one context line that counts
 * them, and a section past the text budget is clipped. The trailing actions block always stays: the
 * buttons matter more than the 49th detail line.
 */
export function capBlocks(
  blocks: KnownBlock[],
  max: number = LIMITS.blocks,
  textBudget: number = LIMITS.messageText,
): KnownBlock[] {
  const last = blocks.at(-1);
  const keepLast = last?.type === 'actions' && blocks.length > max;
  const room = keepLast ? max - 2 : max - 1;
  const kept = blocks.length <= max ? [...blocks] : blocks.slice(0, room);
  let left = textBudget;
  const out = kept.map((block) => {
    if (block.type !== 'section' || !block.text) return block;
    const text = block.text.text;
    const fitted = text.length <= left ? text : clip(text, Math.max(left, 40));
    left = Math.max(0, left - fitted.length);
    return fitted === text ? block : { ...block, text: { ...block.text, text: fitted } };
  });
  if (blocks.length <= max) return out;
  const dropped = blocks.length - room - (keepLast ? 1 : 0);
  return [...out, context(`… and ${dropped} more`), ...(keepLast && last ? [last] : [])];
}
