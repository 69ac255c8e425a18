/**
 * Ids shared by the Slack prompt templates (here) and the Bolt listeners that answer them (adapters):
 * one place, so a renamed button cannot silently stop being handled. A button's `value` is always a
 * request id (`r-7f3a9c`) or, for campaign buttons, `<campaign>` or `<campaign>/<pool>`.
 */
export const SLACK_ACTION = {
  approve: 'kubemaint_approve',
  reject: 'kubemaint_reject',
  snooze: 'kubemaint_snooze',
  details: 'kubemaint_details',
  campaignApprove: 'kubemaint_campaign_approve',
  campaignApprovePool: 'kubemaint_campaign_approve_pool',
  drainWait: 'kubemaint_drain_wait',
  drainSkip: 'kubemaint_drain_skip',
  drainForce: 'kubemaint_drain_force',
} as const;

export type SlackActionId = (typeof SLACK_ACTION)[keyof typeof SLACK_ACTION];

/** Modal callback ids; `private_metadata` carries the request (or campaign) id as JSON. */
export const SLACK_VIEW = {
  reject: 'kubemaint_reject_modal',
  details: 'kubemaint_details_modal',
} as const;

/** The reject modal's input block and action, read back from `view.state.values`. */
export const REJECT_REASON = { block: 'reason', action: 'reason_input' } as const;
