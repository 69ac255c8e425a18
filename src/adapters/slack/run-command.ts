/**
 * Runs one parsed slash command through the control plane's use cases (the same ones the CLI calls)
 * and words the answer as mrkdwn. Authorisation is the use cases' (core/approval re-checks every
 * transition); this file only turns their results into text people can act on.
 */
import { DateTime } from 'luxon';
import {
  approveRequest,
  cancelRequest,
  listSlots,
  listRequests,
  rejectRequest,
  releaseSlot,
  requestMaintenance,
  setPause,
  type CommandDeps,
  type CommandResult,
} from '../../app/control/commands.js';
import type { PauseView } from '../../app/control/fleet-view.js';
import { suggestName } from '../../app/control/suggest.js';
import type { Person } from '../../core/approval.js';
import { isActive, type MaintenanceRequest } from '../../core/request.js';
import { describeSchedule } from '../../core/windows.js';
import { windowStatusLine } from '../../core/window-status.js';
import { KubemaintError } from '../../errors.js';
import { helpText } from './help.js';
import { escapeMrkdwn as esc, fitLines } from './mrkdwn.js';
import type { SlackCommand } from './parse-command.js';

export interface CommandContext {
  deps: CommandDeps;
  /** The slash command's configured name, for examples in answers. */
  slash: string;
  by: Person;
  /** The scan use case, when this deployment offers it. */
  scan?: () => Promise<string>;
}

export interface Answer {
  ok: boolean;
  /** mrkdwn, already escaped and within one section's limit. */
  text: string;
}

/** Commands answered from memory: no cluster call, so they can go out in the ack itself. */
export const isInstant = (command: SlackCommand): boolean =>
  command.kind === 'help' || command.kind === 'windows';

export async function runCommand(command: SlackCommand, ctx: CommandContext): Promise<Answer> {
  try {
    return await dispatch(command, ctx);
  } catch (error) {
    if (error instanceof KubemaintError)
      return {
        ok: false,
        text: fitLines([esc(error.message), ...(error.hint ? [esc(error.hint)] : [])]),
      };
    throw error;
  }
}

const fromResult = (result: CommandResult): Answer => ({
  ok: result.ok,
  text: fitLines([esc(result.message)]),
});

async function dispatch(command: SlackCommand, ctx: CommandContext): Promise<Answer> {
  const { deps, by } = ctx;
  switch (command.kind) {
    case 'help':
      return { ok: true, text: helpText(ctx.slash, deps.settings.cluster) };
    case 'windows':
      return {
        ok: true,
        text: fitLines([
          `*Maintenance windows* (${esc(deps.settings.timeZone)}): ${esc(
            windowStatusLine(deps.settings.schedule, deps.clock.now(), deps.settings.timeZone),
          )}`,
          ...describeSchedule(deps.settings.schedule).map((l) => `• ${esc(l)}`),
        ]),
      };
    case 'status':
      return command.node ? nodeStatus(deps, command.node) : fleetStatus(deps, ctx.slash);
    case 'scan':
      if (!ctx.scan)
        return {
          ok: false,
          text: 'scan is not available here; the next scheduled tick will look for new needs',
        };
      return { ok: true, text: fitLines((await ctx.scan()).split('\n').map(esc)) };
    case 'reboot':
    case 'upgrade':
      return fromResult(
        await requestMaintenance(deps, {
          node: command.node,
          action: command.kind,
          by,
          ...(command.kind === 'reboot' && command.reason ? { reason: command.reason } : {}),
          ...(command.kind === 'upgrade' && command.version ? { version: command.version } : {}),
        }),
      );
    case 'approve':
      return fromResult(await approveRequest(deps, command.id, by));
    case 'reject':
      return fromResult(await rejectRequest(deps, command.id, by, command.reason));
    case 'cancel':
      return fromResult(await cancelRequest(deps, command.id, by));
    case 'pause':
      return fromResult(await setPause(deps, true, by, command.reason));
    case 'resume':
      return fromResult(await setPause(deps, false, by));
    case 'slots': {
      const slots = await listSlots(deps);
      if (slots.length === 0) return { ok: true, text: 'no slots yet: nothing has run' };
      return {
        ok: true,
        text: fitLines(
          slots.map((s) => `\`${esc(s.name)}\` ${s.holder ? `held by ${esc(s.holder)}` : 'free'}`),
        ),
      };
    }
    case 'release':
      return fromResult(await releaseSlot(deps, command.slot, by));
  }
}

/** One line per request: id, node, action, state and why it waits. */
export function describeRequest(r: MaintenanceRequest): string {
  const what = r.action === 'upgrade' ? `upgrade to ${r.targetVersion ?? '?'}` : 'reboot';
  const approvals = r.approvals.length
    ? `; approved by ${r.approvals.map((a) => a.by).join(', ')}`
    : '';
  const blocked = r.blockedReasons?.length ? `; waiting: ${r.blockedReasons.join('; ')}` : '';
  const failure = r.failure ? `; ${r.failure}` : '';
  return esc(`${r.id} ${r.node}: ${what}, ${r.state}${approvals}${blocked}${failure}`);
}

async function nodeStatus(deps: CommandDeps, name: string): Promise<Answer> {
  const node = await deps.cluster.getNode(name);
  if (!node) {
    const names = (await deps.cluster.listNodes()).map((n) => n.name);
    const guess = suggestName(name, names);
    return {
      ok: false,
      text: esc(`no node \`${name}\``) + (guess ? ` — did you mean \`${esc(guess)}\`?` : ''),
    };
  }
  const lines = [
    esc(`*${node.name}*: kubelet ${node.kubeletVersion}, Ready ${node.ready}`) +
      (node.unschedulable ? ', cordoned' : ''),
    ...(node.request
      ? [describeRequest(node.request), `why: ${esc(node.request.reason)}`]
      : ['no maintenance request']),
  ];
  if (node.requestError) lines.push(esc(`request annotation unreadable: ${node.requestError}`));
  return { ok: true, text: fitLines(lines) };
}

/** `*paused* by alice Tue 10:00 UTC: incident`, or `running (not paused)`. */
export function pauseLine(pause: PauseView, timeZone: string): string {
  const at = (iso?: string) =>
    iso ? DateTime.fromISO(iso, { zone: timeZone }).toFormat('ccc HH:mm ZZZZ') : '';
  return pause.paused
    ? esc(
        `*paused* by ${pause.by ?? '?'} ${at(pause.at)}${pause.reason ? `: ${pause.reason}` : ''}`,
      )
    : 'running (not paused)';
}

async function fleetStatus(deps: CommandDeps, slash: string): Promise<Answer> {
  const [requests, pause] = await Promise.all([listRequests(deps), deps.cluster.readPause()]);
  const open = requests.filter((r) => isActive(r.state));
  const head = pauseLine(pause, deps.settings.timeZone);
  if (open.length === 0)
    return {
      ok: true,
      text: `${head}\nno open requests; \`${esc(slash)} scan\` looks for new needs`,
    };
  return { ok: true, text: fitLines([head, `${open.length} open:`, ...open.map(describeRequest)]) };
}
