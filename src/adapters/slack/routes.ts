/**
 * Which cluster a click or a command is about, when one Slack app serves several (issue 22). A
 * button's value names its cluster (`prod-eu/r-7f3a9c`, templates/slack/ids.ts); a value or a
 * typed id that names none (a prompt from before `clusters:`, `/maint approve r-7f3a9c`) is looked
 * up in every cluster, and refused, naming them, when more than one has it.
 *
 * The name only chooses whose rules apply: the value is the clicker's to forge, so every decision
 * is then checked against that cluster's own channels and approvers (guard.ts), never against the
 * channel the button was shown in or the cluster the clicker may decide in.
 */
import { readClusterValue } from '../../../templates/slack/ids.js';
import type { SlackRoutes, SlackRuntime } from './runtime.js';

export type Routed = { rt: SlackRuntime; value: string } | { problem: string };

/** Whether `rt`'s cluster has what `value` names (a request, a campaign, a node). */
export type Has = (rt: SlackRuntime, value: string) => Promise<boolean>;

export async function routeValue(routes: SlackRoutes, raw: string, has: Has): Promise<Routed> {
  // One cluster's buttons name none, and its values are read whole: a campaign named by kubectl
  // may hold a slash (`kernel-june/blue` is a campaign and its pool, not a cluster).
  if (routes.all.length === 1) return { rt: routes.all[0]!, value: raw };
  const { cluster, value } = readClusterValue(raw);
  if (cluster !== undefined) {
    const rt = routes.named(cluster);
    return rt ? { rt, value } : { problem: noCluster(routes, cluster) };
  }
  const found = await holders(routes, value, has);
  if (found.length > 1) return { problem: inSeveral(value, found) };
  // Found nowhere: the first cluster answers, as a one-cluster app would, that it no longer exists.
  return { rt: found[0] ?? routes.all[0]!, value };
}

/**
 * The clusters that have `value`, asked all at once. A cluster that does not answer is left out
 * (and logged): one unreachable cluster must not stop a click on another.
 */
export async function holders(
  routes: SlackRoutes,
  value: string,
  has: Has,
): Promise<SlackRuntime[]> {
  const answers = await Promise.all(
    routes.all.map(async (rt) => {
      try {
        return (await has(rt, value)) ? rt : undefined;
      } catch (error) {
        rt.log.warn({ err: error, value }, 'cluster not asked: it did not answer');
        return undefined;
      }
    }),
  );
  return answers.filter((rt): rt is SlackRuntime => rt !== undefined);
}

export const noCluster = (routes: SlackRoutes, cluster: string): string =>
  `no cluster named ${clip(cluster)}: the clusters are ${routes.names.join(', ')}`;

/** The refusal when a bare id or node is in more than one cluster. */
export const inSeveral = (value: string, found: readonly SlackRuntime[]): string => {
  const names = found.map((rt) => rt.settings.cluster);
  return (
    `${clip(value)} is in ${names.length} clusters (${names.join(', ')}); nothing was done: ` +
    `name the cluster, e.g. ${names[0]}/${clip(value)}`
  );
};

const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 61)}...` : text);
