/**
 * Ids shared by the Slack prompt templates (here) and the Bolt listeners that answer them (adapters):
 * one place, so a renamed button cannot silently stop being handled. A button's `value` is always a
 * request id (`r-7f3a9c`) or, for campaign buttons, `<campaign>` or `<campaign>/<pool>`; when the app
 * serves several clusters (`clusters:`) it starts with the cluster's name: `<cluster>/r-7f3a9c`.
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

/** Request and campaign ids (`r-7f3a9c`, `c-0a1b2c`): a value starting with one names no cluster. */
const ID_SHAPED = /^[rc]-[0-9a-f]{6}$/;

/** A button's value, with the cluster in front when the app serves several (`prod-eu/r-7f3a9c`). */
export const clusterValue = (cluster: string | undefined, value: string): string =>
  cluster === undefined ? value : `${cluster}/${value}`;

/**
 * The cluster a button's value names, and the value as a one-cluster prompt carries it. A value
 * that starts with an id names none (a prompt of a one-cluster app, or posted before `clusters:`;
 * `c-0a1b2c/blue` is a campaign and its pool). The name is only read here: which clusters exist,
 * and who may act in them, the listeners decide.
 */
export function readClusterValue(value: string): { cluster?: string; value: string } {
  const slash = value.indexOf('/');
  if (slash < 0 || ID_SHAPED.test(value.slice(0, slash))) return { value };
  return { cluster: value.slice(0, slash), value: value.slice(slash + 1) };
}
