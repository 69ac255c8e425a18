/**
 * What `serve` prints on the console for each event: one line a person can read at a glance, and for
 * a proposal the commands that answer it. The demo's "prompts on the console" are these lines.
 */
import type { MaintenanceEvent } from '../src/core/events.js';
import { formatDuration } from '../src/core/duration.js';

const MARK: Record<MaintenanceEvent['kind'], string> = {
  proposed: '?',
  approved: '+',
  rejected: 'x',
  blocked: '!',
  draining: '>',
  rebooting: '>',
  upgrading: '>',
  back: '<',
  done: '=',
  failed: 'X',
};

export function consoleLines(event: MaintenanceEvent, command = 'npx kubemaint'): string[] {
  const what = event.action === 'upgrade' ? `upgrade to ${event.targetVersion ?? '?'}` : 'reboot';
  const time = (event.at ?? new Date().toISOString()).slice(11, 19);
  const who = event.approver ? ` by ${event.approver}` : '';
  const took = event.durationMs !== undefined ? ` (${formatDuration(event.durationMs)})` : '';
  const why = event.reason ? `: ${oneLine(event.reason)}` : '';
  const head =
    `${time} ${MARK[event.kind]} ${event.kind.padEnd(9)} ${event.node} ${what} ` +
    `[${event.requestId}]${who}${took}${why}`;
  if (event.kind === 'proposed') {
    return [
      head,
      `         approve: ${command} approve ${event.requestId}    reject: ${command} reject ${event.requestId}`,
    ];
  }
  if (event.ask === 'drain-decision') {
    return [head, `         decide:  ${command} decide ${event.requestId} wait|skip|force`];
  }
  return [head];
}

/** Reasons come from the cluster and from people: never let one break the console's lines. */
const oneLine = (text: string): string =>
  [...text]
    .map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? ' ' : c))
    .join('')
    .slice(0, 300);
