/**
 * One shape for every button that acts on one request (approve, snooze, drain wait/skip/force): find
 * the cluster and the request the button names, refuse people who may not decide there (recorded),
 * refuse acting on a request that ended (the prompt is re-rendered instead), then run the use case
 * in that request's queue so a double click is answered in turn ("nothing to change") and makes one
 * Job.
 */
import type { webApi } from '@slack/bolt';
import type { CommandResult } from '../../app/control/commands.js';
import type { Person } from '../../core/approval.js';
import { isActive, type MaintenanceRequest } from '../../core/request.js';
import { isRequestId } from '../../core/request-id.js';
import { tell, type Click } from './clicks.js';
import { guard } from './guard.js';
import { escapeMrkdwn as esc } from './mrkdwn.js';
import { goneMessage, refresh, updateMessage } from './prompt-refresh.js';
import { routeValue, type Has } from './routes.js';
import type { SlackRoutes, SlackRuntime } from './runtime.js';

export type RequestAct = (
  rt: SlackRuntime,
  request: MaintenanceRequest,
  by: Person,
) => Promise<CommandResult>;

/** The request a button names, read by its name: one object and its node, whatever the fleet's size. */
export async function findRequest(
  rt: SlackRuntime,
  id: string,
): Promise<MaintenanceRequest | undefined> {
  if (!isRequestId(id)) return undefined;
  return (await rt.deps.cluster.findRequest(id))?.request;
}

export const hasRequest: Has = async (rt, id) => (await findRequest(rt, id)) !== undefined;

/**
 * The runtime of the cluster the click's value names, and the click with its value as that
 * cluster reads it (`prod-eu/r-7f3a9c` → `r-7f3a9c`); undefined once a refusal was told.
 */
export async function routeClick(
  routes: SlackRoutes,
  click: Click,
  has: Has,
): Promise<{ rt: SlackRuntime; click: Click } | undefined> {
  const routed = await routeValue(routes, click.value, has);
  if ('problem' in routed) {
    await tell(click, esc(routed.problem));
    return undefined;
  }
  return { rt: routed.rt, click: { ...click, value: routed.value } };
}

export async function onRequestClick(
  routes: SlackRoutes,
  client: webApi.WebClient,
  clicked: Click,
  verb: string,
  act: RequestAct,
): Promise<{ rt: SlackRuntime; request?: MaintenanceRequest } | undefined> {
  const routed = await routeClick(routes, clicked, hasRequest);
  if (!routed) return undefined;
  const { rt, click } = routed;
  const id = click.value;
  const request = await findRequest(rt, id);
  if (!request) {
    if (click.message)
      await updateMessage(rt, client, click.message, goneMessage(id, rt.settings.command));
    await tell(click, `request ${esc(id)} no longer exists; nothing was done`);
    return { rt };
  }
  const person = await rt.people.person(click.user, click.team);
  const problem = await guard(rt, person, click.channel, [request], verb);
  if (problem) {
    await tell(click, `you cannot ${verb} this: ${esc(problem)}`);
    return { rt };
  }
  if (!isActive(request.state)) {
    if (click.message) await refresh(rt, client, click.message, request);
    await tell(click, `request ${esc(id)} is already ${request.state}; nothing was done`);
    return { rt, request };
  }
  const result = await rt.serial(id, () => act(rt, request, person));
  if (!result.ok) await tell(click, esc(result.message));
  const current = result.request ?? (await findRequest(rt, id)) ?? request;
  if (click.message && click.message.kind !== 'drain')
    await refresh(rt, client, click.message, current);
  return { rt, request: current };
}
