/**
 * How an executor run ends: issuing the host command exactly once, or giving the node back after a
 * drain that could not finish. Either way the request says what happened and in what state the node
 * was left, and an Event on the Node says it too.
 */
import { describeRefusal, rebootRefusal } from '../../core/reboot-refusal.js';
import { EXIT } from '../../core/exit-codes.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { uncordonIfOurs } from './cordon.js';
import type { DrainReport } from './drain-types.js';
import { describeAction, type HostAction } from './host.js';
import { transition, type RequestHandle } from './request-state.js';
import type { ExecutorInput, ExecutorOutcome, ExecutorPorts } from './executor-types.js';
import { settingsForSlots } from './settings.js';
import { releaseSlot } from './slots.js';

/** Uncordon when we cordoned, release the slot, end the request; in that order (see below). */
export async function giveBack(
  ports: ExecutorPorts,
  settings: ExecutorInput['settings'],
  handle: RequestHandle,
  slot: { slotName: string; holder: string },
): Promise<string> {
  const r = handle.request;
  // Uncordon before the request ends: a crash in between must never leave a cordoned node with no
  // active request to explain it (a re-run simply cordons again).
  const uncordoned = await uncordonIfOurs(
    ports.nodes,
    handle.node.name,
    r.cordonedByUs,
    r.wasCordoned,
  );
  await releaseSlot(ports, settingsForSlots(settings), slot.slotName, slot.holder);
  if (uncordoned) return 'node uncordoned (kubemaint had cordoned it)';
  return r.wasCordoned
    ? 'node left cordoned (it was cordoned before kubemaint touched it)'
    : 'node left as it was';
}

export async function finishBlocked(
  ports: ExecutorPorts,
  input: ExecutorInput,
  handle: RequestHandle,
  slot: { slotName: string; holder: string },
  report: DrainReport,
): Promise<ExecutorOutcome> {
  const nodeState = await giveBack(ports, input.settings, handle, slot);
  const blocking = report.remaining.map((p) => `${p.pod} — ${p.reason}`).slice(0, 10);
  // drain.onTimeout: uncordon — a node that cannot be drained in time is given back on purpose:
  // skipped, not failed, with the pods that refused (AKS undrainableNodeBehavior: Schedule).
  const skipped =
    report.outcome === 'blocked' &&
    report.timedOut === true &&
    input.settings.drain.onTimeout === 'uncordon';
  const failure = [
    skipped ? `${report.message}; skipped (drain.onTimeout: uncordon)` : report.message,
    ...(report.errors.length > 0 ? [`errors: ${report.errors.join('; ')}`] : []),
    ...(blocking.length > 0
      ? [`${skipped ? 'pods that refused' : 'blocking pods'}: ${blocking.join('; ')}`]
      : []),
    nodeState,
  ].join('. ');
  const end =
    report.outcome === 'skipped'
      ? ({ state: 'cancelled', note: 'operator chose skip' } as const)
      : skipped
        ? ({
            state: 'skipped',
            note: 'drain timed out; node given back (drain.onTimeout: uncordon)',
          } as const)
        : ({ state: 'failed', note: 'drain blocked' } as const);
  await handle.update((r, now): MaintenanceRequest => ({
    ...transition(r, end.state, now, end.note),
    drain: report.progress,
    failure,
  }));
  await ports.events.recordNodeEvent(
    { name: handle.node.name, uid: handle.node.uid },
    {
      reason: skipped ? 'KubemaintSkipped' : 'KubemaintDrainBlocked',
      message: failure,
      type: 'Warning',
    },
  );
  return { exitCode: EXIT.drainBlocked, message: failure, drain: report };
}

export async function issueHostCommand(
  ports: ExecutorPorts,
  handle: RequestHandle,
  actions: HostAction[],
  report: DrainReport,
): Promise<ExecutorOutcome> {
  const node = (await handle.refresh(), handle.node);
  const stamp = ports.clock.now().toISOString();
  const action = handle.request.action;
  const what = actions.map(describeAction).join(' && ');
  // One conditional write records the proof-before (bootID, kubelet version) and the fact that the
  // command is about to run. If another run wrote it first, the change is a no-op and we stop here.
  const written = await handle.update((r, now) =>
    r.hostCommandIssuedAt
      ? undefined
      : {
          ...transition(r, 'verifying', now, `host command issued: ${what}`),
          bootIdBefore: r.bootIdBefore ?? node.bootId,
          ...(action === 'upgrade'
            ? { kubeletVersionBefore: r.kubeletVersionBefore ?? node.kubeletVersion }
            : {}),
          hostCommandIssuedAt: stamp,
        },
  );
  if (written.hostCommandIssuedAt !== stamp) {
    return {
      exitCode: EXIT.ok,
      message: `host command already issued at ${written.hostCommandIssuedAt}`,
      drain: report,
    };
  }
  const ref = { name: node.name, uid: node.uid };
  await ports.events.recordNodeEvent(ref, {
    reason: action === 'upgrade' ? 'KubemaintUpgrading' : 'KubemaintRebooting',
    message:
      action === 'upgrade'
        ? `upgrading kubelet ${node.kubeletVersion} → ${handle.request.targetVersion ?? '?'}: ${what}`
        : `rebooting (bootID ${node.bootId}): ${what}`,
    type: 'Normal',
  });
  for (const [index, step] of actions.entries()) {
    if (step.kind === 'signal') {
      ports.host.signal(step.pid, step.signal);
      continue;
    }
    const result = await ports.host.run(step.argv);
    if (result.exitCode !== 0) return hostFailed(ports, handle, step, index, result);
  }
  ports.log.info({ action, what }, 'host command issued');
  return { exitCode: EXIT.ok, message: `${action} issued on ${node.name}: ${what}`, drain: report };
}

async function hostFailed(
  ports: ExecutorPorts,
  handle: RequestHandle,
  step: HostAction,
  index: number,
  result: { exitCode: number; stderr: string },
): Promise<ExecutorOutcome> {
  const tail = result.stderr.trim().split('\n').slice(-3).join(' | ');
  // Nothing ran on the host when the first command failed: the node is safe to give back. After a
  // partial upgrade it is not (the kubelet may be half-installed), so it stays cordoned, and we say so.
  const safe = index === 0;
  const r = handle.request;
  const nodeState = safe
    ? (await uncordonIfOurs(ports.nodes, handle.node.name, r.cordonedByUs, r.wasCordoned))
      ? 'node uncordoned'
      : 'node left as it was'
    : 'node left cordoned: an earlier host step ran, check the node before uncordoning it';
  // systemd refusing the reboot (a block inhibitor, polkit) is said as that: nothing is rebooting,
  // and the reason is what someone has to act on (core/reboot-refusal.ts).
  const refused = r.action === 'reboot' ? rebootRefusal(result.stderr) : undefined;
  const failure = refused
    ? `${describeRefusal(refused)}. ${nodeState}`
    : `host command failed (exit ${result.exitCode}): ${describeAction(step)}${tail ? `: ${tail}` : ''}. ${nodeState}`;
  await handle.update((req, now) => ({
    ...transition(
      req,
      'failed',
      now,
      refused ? 'reboot refused by systemd' : 'host command failed',
    ),
    failure,
  }));
  await ports.events.recordNodeEvent(
    { name: handle.node.name, uid: handle.node.uid },
    {
      reason: refused ? 'KubemaintRebootRefused' : 'KubemaintFailed',
      message: failure,
      type: 'Warning',
    },
  );
  return { exitCode: EXIT.unexpected, message: failure };
}
