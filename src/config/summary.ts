/**
 * The one-line summary `kubemaint config check` prints for a valid config, so a person can see at
 * a glance that the file says what they meant (the right cluster, the windows, the concurrency).
 */
import { formatDuration } from '../core/duration.js';
import { identitiesOf, identityList } from './schema-identities.js';
import type { Config } from './schema.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summarizeConfig(config: Config): string {
  const { cluster, slot, slack, notify } = config;
  const parts = [
    config.clusters
      ? `${plural(config.clusters.length, 'cluster')} (${config.clusters.map((e) => `${e.name}: ${e.cluster.type}`).join(', ')})`
      : cluster.type === 'sim'
        ? `cluster sim (${cluster.sim.scenario}, ${cluster.sim.nodes} nodes)`
        : `cluster ${cluster.type}${cluster.name === undefined ? '' : ` "${cluster.name}"`}`,
    config.windows.length === 0
      ? 'always open (no windows)'
      : plural(config.windows.length, 'window'),
    plural(config.freezes.length, 'freeze'),
    `concurrency ${slot.concurrency}${slot.poolLabel === undefined ? '' : ` per ${slot.poolLabel} pool`}`,
    `drain timeout ${formatDuration(config.drain.timeout)}`,
    approversText(config),
    slack.channel === undefined ? 'no Slack channel' : `Slack ${slack.channel}`,
    plural(notify.urls.length, 'notify URL'),
  ];
  return parts.join(', ');
}

/** `2 approvers + 1 group, two-person rule`: persons counted once, whatever identities they hold. */
function approversText(config: Config): string {
  const people = identitiesOf(config.people);
  const list = identityList(config.approval.approvers, config.people);
  const persons = new Set(list.users.map((id) => people[id] ?? id)).size;
  const groups = list.groups.length === 0 ? '' : ` + ${plural(list.groups.length, 'group')}`;
  const rule = config.approval.twoPerson ? ', two-person rule' : '';
  return `${plural(persons, 'approver')}${groups}${rule}`;
}
