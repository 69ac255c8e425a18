/**
 * What a valid config may still get wrong: settings that pass the schema but leave kubemaint unable
 * to do its job (nobody can approve anything). `config check` and `serve` say these out loud instead
 * of letting a team find out from a prompt that no one can answer.
 */
import type { Config } from './schema.js';

export function configWarnings(config: Config): string[] {
  const { approvers, twoPerson, autoApprove } = config.approval;
  const people = approvers.users.length + approvers.cli.length;
  const warnings: string[] = [];
  if (people + approvers.groups.length === 0 && !autoApprove) {
    warnings.push(
      'approval.approvers lists nobody and approval.autoApprove is unset: every request will wait ' +
        'until it expires (add Slack user IDs to approval.approvers.users, group IDs to .groups, ' +
        'or local user names to .cli)',
    );
  } else if (
    twoPerson &&
    approvers.groups.length === 0 &&
    people < 2 &&
    !approvers.cli.includes('*')
  ) {
    warnings.push(
      'approval.twoPerson needs two different approvers but approval.approvers lists only one: ' +
        'add a second, or an approver group',
    );
  }
  const { concurrency, pools } = config.lock;
  for (const [pool, limit] of Object.entries(pools ?? {})) {
    if (limit > concurrency)
      warnings.push(
        `lock.pools.${pool} is ${limit} but lock.concurrency (${concurrency}) caps the whole fleet: ` +
          `at most ${concurrency} of pool ${pool} at once (raise lock.concurrency if ${limit} is meant)`,
      );
  }
  return warnings;
}
