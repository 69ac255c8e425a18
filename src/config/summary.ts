/**
 * The one-line summary `kubemaint config check` prints for a valid config, so a person can see at
 * a glance that the file says what they meant (the right cluster, the windows, the concurrency).
 */
import { formatDuration } from '../core/duration.js';
import type { Config } from './schema.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summarizeConfig(config: Config): string {
  const { cluster, lock, approval, slack, notify } = config;
  const parts = [
    cluster.type === 'sim'
      ? `cluster sim (${cluster.sim.scenario}, ${cluster.sim.nodes} nodes)`
      : `cluster ${cluster.type}${cluster.name === undefined ? '' : ` "${cluster.name}"`}`,
    config.windows.length === 0
      ? 'always open (no windows)'
      : plural(config.windows.length, 'window'),
    plural(config.freezes.length, 'freeze'),
    `concurrency ${lock.concurrency}${lock.poolLabel === undefined ? '' : ` per ${lock.poolLabel} pool`}`,
    `drain timeout ${formatDuration(config.drain.timeout)}`,
    plural(
      approval.approvers.users.length +
        approval.approvers.groups.length +
        approval.approvers.cli.length,
      'approver',
    ),
    slack.channel === undefined ? 'no Slack channel' : `Slack ${slack.channel}`,
    plural(notify.urls.length, 'notify URL'),
  ];
  return parts.join(', ');
}
