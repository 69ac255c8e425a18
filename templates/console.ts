/**
 * What `serve` prints on the console for each event: one line a person can read at a glance, and for
 * a proposal the commands that answer it. The demo's "prompts on the console" are these lines. Node
 * names, reasons and people come from the cluster and from people: each is shown on one line with
 * its control characters visible (core/printable.ts), so none can break the line or drive the
 * terminal.
 */
import type { MaintenanceEvent } from '../src/core/events.js';
import { formatDuration } from '../src/core/duration.js';
import { printable } from '../src/core/printable.js';

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
  hook: '~',
};

/**
 * `several`: the config lists several clusters, so the line names the event's cluster
 * (`staging/node-2`) and the commands it suggests say which (`approve --cluster staging …`).
 */
export function consoleLines(
  event: MaintenanceEvent,
  command = 'npx kubemaint',
  options: { several?: boolean } = {},
): string[] {
  const what =
    event.action === 'upgrade' ? `upgrade to ${printable(event.targetVersion ?? '?')}` : 'reboot';
  const time = printable((event.at ?? new Date().toISOString()).slice(11, 19));
  const who = event.approver ? ` by ${printable(event.approver)}` : '';
  const took = event.durationMs !== undefined ? ` (${formatDuration(event.durationMs)})` : '';
  // Long reasons are cut: the console line is a summary, the request keeps the whole text.
  const why = event.reason ? `: ${printable(event.reason.slice(0, 300))}` : '';
  const id = printable(event.requestId);
  const node = options.several ? `${event.cluster}/${event.node}` : event.node;
  const target = options.several ? `--cluster ${printable(event.cluster)} ${id}` : id;
  const head =
    `${time} ${MARK[event.kind]} ${event.kind.padEnd(9)} ${printable(node)} ${what} ` +
    `[${id}]${who}${took}${why}`;
  if (event.kind === 'proposed') {
    return [
      head,
      `         approve: ${command} approve ${target}    reject: ${command} reject ${target}`,
    ];
  }
  if (event.ask === 'drain-decision') {
    return [head, `         decide:  ${command} decide ${target} wait|skip|force`];
  }
  return [head];
}

/** The pause switch as `serve` last read it (`kubemaint pause` / `resume` write it). */
export interface PauseSwitch {
  paused: boolean;
  reason?: string;
  by?: string;
  at?: string;
}

/** The line `serve` prints when someone pauses or resumes: the switch is fleet-wide, not a request. */
export function pauseLine(state: PauseSwitch): string {
  const time = printable((state.at ?? new Date().toISOString()).slice(11, 19));
  const who = state.by ? ` by ${printable(state.by)}` : '';
  if (!state.paused) return `${time} | resumed  new maintenance may start${who}`;
  const why = state.reason ? `: ${printable(state.reason.slice(0, 300))}` : '';
  return `${time} | paused   no new maintenance starts (running work finishes)${who}${why}`;
}
