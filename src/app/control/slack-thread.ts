/**
 * Where a request's Slack prompt lives (`request.slack`), written onto the request so any instance
 * (a Lambda, a restarted `serve`) can reply in the thread and edit the prompt. The write is
 * conditional on the request's resourceVersion and retried on conflicts, like persist.ts; it only adds
 * the location to the request as it is now, so it never undoes a transition that won in between.
 */
import type { MaintenanceRequest } from '../../core/request.js';
import { isConflict } from './persist.js';
import type { ClusterPort } from './ports.js';

export interface SlackLocation {
  channel: string;
  ts: string;
}

export type RecordOutcome = 'written' | 'unchanged' | 'gone' | 'lost-race';

const CONFLICT_RETRIES = 10;

/** Record `slack` on the request `requestId` of `node`; 'gone' when that request is no longer there. */
export async function recordSlackThread(
  deps: { cluster: ClusterPort },
  node: string,
  requestId: string,
  slack: SlackLocation,
): Promise<RecordOutcome> {
  for (let attempt = 0; attempt <= CONFLICT_RETRIES; attempt++) {
    const view = await deps.cluster.findRequest(requestId);
    const request = view?.request;
    if (!view || request?.id !== requestId || request.node !== node) return 'gone';
    if (request.slack?.channel === slack.channel && request.slack.ts === slack.ts)
      return 'unchanged';
    const updated: MaintenanceRequest = { ...request, slack: { ...slack } };
    try {
      await deps.cluster.writeRequest(updated, view.requestVersion);
      return 'written';
    } catch (error) {
      // Someone wrote the request in between (a transition): read it again and add the location
      // to whatever the request is now.
      if (!isConflict(error)) throw error;
    }
  }
  return 'lost-race';
}

/** The prompt's location: on the request as passed, or, when that copy predates it, as stored. */
export async function findSlackThread(
  deps: { cluster: ClusterPort },
  request: MaintenanceRequest,
): Promise<SlackLocation | undefined> {
  if (request.slack) return request.slack;
  const view = await deps.cluster.findRequest(request.id);
  return view?.request?.slack;
}
