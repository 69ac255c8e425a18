/**
 * What people are told when a drain runs into `drain.timeout` under `drain.onTimeout: force`: an
 * Event when the second deadline is set (the node stays cordoned, and this says why and until when),
 * and one when the remaining pods are deleted past their PDBs. The request's drain progress says the
 * same (`forceAt`), so `kubemaint status` and the control plane's Slack thread see it too.
 */
import { formatDuration } from '../../core/duration.js';
import type { EventsPort } from '../ports.js';
import type { DrainHooks } from './drain-types.js';
import type { DrainSettings } from './settings.js';

const listed = (pods: readonly string[]): string =>
  pods.length > 5 ? `${pods.slice(0, 5).join(', ')} and ${pods.length - 5} more` : pods.join(', ');

export function drainTimeoutEvents(
  events: EventsPort,
  node: { name: string; uid: string },
  settings: Pick<DrainSettings, 'timeoutMs'>,
): Pick<DrainHooks, 'onTimeout' | 'onForce'> {
  return {
    onTimeout: ({ forceAt, remaining }) =>
      events.recordNodeEvent(node, {
        reason: 'KubemaintDrainTimedOut',
        message: `drain timed out after ${formatDuration(settings.timeoutMs)}; the node stays cordoned and ${remaining.length} remaining pods (${listed(remaining)}) are deleted at ${forceAt.toISOString()} (drain.onTimeout: force) unless someone decides skip or wait`,
        type: 'Warning',
      }),
    onForce: ({ pods, by }) =>
      events.recordNodeEvent(node, {
        reason: 'KubemaintDrainForced',
        message: `deleting ${pods.length} pods past their disruption budgets (${by === 'config' ? 'drain.onTimeout: force' : 'an operator chose force'}): ${listed(pods)}`,
        type: 'Warning',
      }),
  };
}
