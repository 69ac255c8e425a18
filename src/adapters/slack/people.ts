/**
 * Who clicked, as the approval rules see them: a Slack user ID plus the configured approver groups
 * they belong to. Group members come from `usergroups.users.list` and are cached for a while (a click
 * must be answered within 3 s, and a group rarely changes within minutes); a failed lookup counts as
 * "not a member" and is not cached, so the next click asks again.
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

export const GROUP_CACHE_MS = 5 * 60_000;

export function createPeopleDirectory(options: {
  api: UserGroupsApi;
  /** Approver groups from the config (`S…` ids); only these are looked up. */
  groups: readonly string[];
  ttlMs?: number;
  now?: () => number;
  onError?: (group: string, error: unknown) => void;
}): PeopleDirectory {
  const ttl = options.ttlMs ?? GROUP_CACHE_MS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { members: ReadonlySet<string>; at: number }>();
  // Twenty clicks arriving together share one lookup instead of making twenty.
  const inFlight = new Map<string, Promise<ReadonlySet<string>>>();

  async function members(group: string): Promise<ReadonlySet<string>> {
    const hit = cache.get(group);
    if (hit && now() - hit.at < ttl) return hit.members;
    const pending = inFlight.get(group);
    if (pending) return pending;
    const lookup = options.api.usergroups.users
      .list({ usergroup: group })
      .then((answer) => {
        const set = new Set(answer.users ?? []);
        cache.set(group, { members: set, at: now() });
        return set;
      })
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
