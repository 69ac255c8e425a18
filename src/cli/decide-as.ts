/**
 * The CLI acts in the person's own name (ADR 0012): it records a request or a decision as whoever the
 * apiserver says the kubeconfig is (or impersonates with --as), then waits a little for kubemaint's
 * control plane — `serve` at once, the scheduled tick within its period — to act on it, and says what
 * came of it. A refusal (not an approver, the same person twice, …) exits 5, as before.
 */
import type { Command } from 'commander';
import {
  recordDecision,
  submitMaintenance,
  type CommandResult,
  type MaintenanceAsk,
} from '../app/control/commands.js';
import type { DecisionKind } from '../core/request.js';
import type { ControlRuntime } from '../compose.js';
import { KubemaintError } from '../errors.js';
import { cliPerson } from './control-context.js';

export const WAIT_HELP = `
You act as whoever your kubeconfig authenticates as (kubectl auth whoami), or as the user you
impersonate with --as (kubectl --as; your RBAC must allow it). What you ask is recorded in that name
(a MaintenanceRequest or MaintenanceApproval, bound to you by admission), and kubemaint's control
plane acts on it: serve at once, the scheduled tick on its next run. --wait says how long to wait for
that answer; without one in time the command still succeeds: what you asked is recorded.`;

const POLL_MS = 250;

export function waitOf(command: Command): number {
  const raw = command.opts<{ wait?: string }>().wait ?? '30';
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3_600) {
    throw new KubemaintError(
      'usage',
      `--wait ${JSON.stringify(raw.slice(0, 20))} is not a number of seconds`,
      {
        hint: 'e.g. --wait 30, or --wait 0 to return as soon as it is recorded',
      },
    );
  }
  return seconds * 1_000;
}

/** Poll until `settled` answers, or the wait is over (undefined). */
export async function until<T>(
  waitMs: number,
  settled: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = await settled();
    if (answer !== undefined || Date.now() >= deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function decideAs(
  runtime: ControlRuntime,
  id: string,
  kind: DecisionKind,
  waitMs: number,
  reason?: string,
): Promise<CommandResult> {
  const by = await cliPerson(runtime);
  const recorded = await recordDecision(runtime.deps, id, kind, by, reason);
  if (!('name' in recorded)) return recorded;
  const applied = await until(waitMs, async () => {
    const view = await runtime.deps.cluster.findRequest(id);
    return view?.request?.decisions?.find((d) => d.name === recorded.name);
  });
  if (applied) return { ok: applied.ok, message: applied.message };
  const again = recorded.created ? '' : ' (you had already recorded it)';
  return {
    ok: true,
    message: `${kind} ${id}: recorded as ${by.id}${again}; kubemaint has not acted on it yet (is serve running? the scheduled tick applies it)`,
  };
}

export async function askAs(
  runtime: ControlRuntime,
  waitMs: number,
  ask: MaintenanceAsk,
): Promise<CommandResult> {
  const submitted = await submitMaintenance(runtime.deps, ask);
  if (!submitted.ok || !submitted.request) return submitted;
  const id = submitted.request.id;
  const answer = await until(waitMs, async () => {
    const view = await runtime.deps.cluster.findRequest(id);
    return view?.requestAccepted ? view.request : undefined;
  });
  if (!answer) return submitted;
  if (answer.state === 'rejected')
    return {
      ok: false,
      message: `${ask.action} ${ask.node}: not accepted: ${answer.failure ?? 'refused'}`,
    };
  return {
    ok: true,
    message: `${ask.action} ${ask.node}: ${id} is ${answer.state}`,
    request: answer,
  };
}
