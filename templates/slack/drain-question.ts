/**
 * The question a stalled drain asks in its thread (issue 6 item 5): keep waiting, skip the node
 * (uncordon, release the slot, mark the request failed) or force the remaining pods out (deleted
 * without the PDB's consent). Force and skip have confirm dialogs: both give something up.
 */
import { SLACK_ACTION, clusterValue } from './ids.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { actions, button, section } from './blocks.js';
import { LIMITS, clip, code, esc, fitLines, when } from './mrkdwn.js';
import { who } from './state.js';
import type { SlackMessage } from './types.js';

export interface DrainQuestionOptions {
  /** Approvers to mention: Slack user ids (`U…`) or user groups (`S…`). */
  mention?: readonly string[];
  /** For "stalled since"; defaults to the request's own instant in UTC. */
  now?: Date;
  timeZone?: string;
  /**
   * Set when the app serves several clusters: the question names the cluster and its buttons carry
   * it (`prod-eu/r-7f3a9c`), so the answer reaches that cluster's request.
   */
  cluster?: string;
}

export function drainQuestion(
  request: MaintenanceRequest,
  options: DrainQuestionOptions = {},
): SlackMessage {
  const drain = request.drain;
  const mentions = (options.mention ?? []).slice(0, 20).map(who).join(' ');
  const since = drain?.stalledSince
    ? ` since ${when(drain.stalledSince, options.now ?? new Date(drain.stalledSince), options.timeZone ?? 'UTC')}`
    : '';
  const waiting = fitLines(
    (drain?.waitingOn ?? []).map((w) => `• ${code(w.pod)}: ${esc(w.reason)}`),
    1800,
    'more pods',
  );
  const where = options.cluster === undefined ? '' : ` in ${code(options.cluster)}`;
  const value = clusterValue(options.cluster, request.id);
  const body = [
    `${mentions ? `${mentions} ` : ''}:warning: The drain of ${code(request.node)}${where} is stalled${since}` +
      (drain ? ` (${drain.evicted}/${drain.total} evicted).` : '.'),
    waiting ? `*Waiting on:*\n${waiting}` : '',
    '*Keep waiting*, *skip* the node (uncordon it, release the slot, mark the request failed) or ' +
      '*force* the remaining pods out (deleted without the disruption budget’s consent)?',
  ]
    .filter((p) => p !== '')
    .join('\n');
  return {
    text: clip(
      `Drain of ${esc(request.node)} is stalled: keep waiting, skip the node or force?`,
      LIMITS.fallbackText,
    ),
    blocks: [
      section(body, 'drain-question'),
      actions(`drain:${request.id}`, [
        button({ actionId: SLACK_ACTION.drainWait, text: 'Keep waiting', value }),
        button({
          actionId: SLACK_ACTION.drainSkip,
          text: 'Skip node',
          value,
          confirm: {
            title: 'Skip this node?',
            text: `${code(request.node)} is uncordoned and its request marked failed; it is not rebooted now.`,
            confirm: 'Skip',
            deny: 'Keep waiting',
          },
        }),
        button({
          actionId: SLACK_ACTION.drainForce,
          text: 'Force',
          value,
          style: 'danger',
          confirm: {
            title: 'Force the drain?',
            text: `The pods still on ${code(request.node)} are deleted even though their disruption budget says no.`,
            confirm: 'Force',
            deny: 'Keep waiting',
          },
        }),
      ]),
    ],
  };
}
