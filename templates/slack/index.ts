/**
 * Slack messages of kubemaint, as pure builders (no I/O): the approval prompt of a request or a
 * campaign in every state, thread replies, the stalled-drain question and the two modals. The Bolt
 * app (H1) and the Slack notifier render through these; ids come from src/adapters/slack/ids.ts.
 */
export { requestPrompt, title } from './request-prompt.js';
export { campaignPrompt, campaignActive } from './campaign-prompt.js';
export { threadReply } from './thread-reply.js';
export { drainQuestion, type DrainQuestionOptions } from './drain-question.js';
export { rejectModal, detailsModal } from './modals.js';
export { esc } from './mrkdwn.js';
export type { KnownBlock, Preview, PromptContext, SlackMessage, View } from './types.js';
