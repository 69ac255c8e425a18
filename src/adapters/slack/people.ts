/**
 * Who clicked, as the approval rules see them: a Slack user ID plus the configured approver groups
 * they belong to. Group members come from `usergroups.users.list`, read again for every decision:
 * someone removed from the approvers' group can no longer approve from that moment (issue 33; a
 * 5-minute cache let them for that long). Clicks are acknowledged before they are handled, so the
 * read costs no 3-second budget; clicks arriving together share the one lookup already under way
 * (usergroups.users.list is a Tier 2 method, about 20 calls a minute). A failed lookup counts as
 * "not a member" (fail closed).
 */
import type { Person } from '../../core/approval.js';

/** The one Web API call this needs, so tests and the Lambda can pass any client. */
export interface UserGroupsApi {
  usergroups: {
    users: {
      list(args: { usergroup: string }): Promise<{ users?: string[] }>;
    };
  };
}

export interface PeopleDirectory {
  /** `team`: the workspace the payload came from (recorded with the person's decisions). */
  person(userId: string, team?: string): Promise<Person>;
}

export function createPeopleDirectory(options: {
  api: UserGroupsApi;
  /** Approver groups from the config (`S…` ids); only these are looked up. */
  groups: readonly string[];
  onError?: (group: string, error: unknown) => void;
}): PeopleDirectory {
  // Twenty clicks arriving together share one lookup instead of making twenty; nothing is kept
  // once it has answered.
  const inFlight = new Map<string, Promise<ReadonlySet<string>>>();

  async function members(group: string): Promise<ReadonlySet<string>> {
    const pending = inFlight.get(group);
    if (pending) return pending;
    const lookup = options.api.usergroups.users
      .list({ usergroup: group })
      .then((answer): ReadonlySet<string> => new Set(answer.users ?? []))
      .catch((error: unknown) => {
        options.onError?.(group, error);
        return new Set<string>();
      })
      .finally(() => inFlight.delete(group));
    inFlight.set(group, lookup);
    return lookup;
  }

  return {
    async person(userId, team) {
      const sets = await Promise.all(
        options.groups.map(async (g) => [g, await members(g)] as const),
      );
      const groups = sets.filter(([, set]) => set.has(userId)).map(([g]) => g);
      return { kind: 'person', id: userId, groups, ...(team ? { team } : {}) };
    },
  };
}
