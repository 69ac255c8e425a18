/**
 * What a valid config may still get wrong: settings that pass the schema but leave kubemaint unable
 * to do its job (nobody can approve anything). `config check` and `serve` say these out loud instead
 * of letting a team find out from a prompt that no one can answer.
 */
import { identitiesOf, identityList } from './schema-identities.js';
import type { Config } from './schema.js';

export function configWarnings(config: Config): string[] {
  const { approvers, twoPerson, autoApprove } = config.approval;
  const list = identityList(approvers, config.people);
  const people = identitiesOf(config.people);
  // Two identities of one person are one approver (the two-person rule counts persons).
  const persons = new Set(list.users.map((id) => people[id] ?? id)).size;
  const warnings: string[] = [];
  if (persons + list.groups.length === 0 && !autoApprove) {
    warnings.push(
      'approval.approvers lists nobody and approval.autoApprove is unset: every request will wait ' +
        'until it expires (add Slack user IDs to approval.approvers.users, group IDs to .groups, ' +
        'Kubernetes users or groups to .kubernetes.users or .kubernetes.groups, or persons to .people)',
    );
  } else if (twoPerson && list.groups.length === 0 && persons < 2) {
    warnings.push(
      'approval.twoPerson needs two different persons but approval.approvers lists only one: ' +
        'add a second, or an approver group (identities people: joins count as one person)',
    );
  }
  config.people.forEach((person, i) => {
    if (person.slack.length + person.kubernetes.length === 0)
      warnings.push(
        `people[${i}] (${person.name}) has no Slack user ID and no Kubernetes user name, so they cannot ` +
          'act as this person: add them under .slack or .kubernetes',
      );
  });
  const { concurrency, pools } = config.slot;
  for (const [pool, limit] of Object.entries(pools ?? {})) {
    if (limit > concurrency)
      warnings.push(
        `slot.pools.${pool} is ${limit} but slot.concurrency (${concurrency}) caps the whole fleet: ` +
          `at most ${concurrency} of pool ${pool} at once (raise slot.concurrency if ${limit} is meant)`,
      );
  }
  return warnings;
}
