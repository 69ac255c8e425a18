/**
 * kured's --drain-delay and --reboot-delay: a wait the operator asked for, between two steps. It is
 * said on the node (an Event) so a person looking at a cordoned, idle node knows why; the slot keeps
 * being renewed meanwhile; and the request is read again afterwards, so a cancel given during the
 * wait stops the executor before the next step (the caller gives the node back).
 */
import { formatDuration } from '../../core/duration.js';
import { KubemaintError } from '../../errors.js';
import type { Clock, EventsPort } from '../ports.js';
import type { RequestHandle } from './request-state.js';

export async function waitAsAsked(
  ports: { clock: Clock; events: EventsPort },
  handle: RequestHandle,
  wait: { ms: number; key: string; before: string; lost: AbortSignal },
): Promise<void> {
  if (wait.ms <= 0) return;
  await ports.events.recordNodeEvent(
    { name: handle.node.name, uid: handle.node.uid },
    {
      reason: 'KubemaintWaiting',
      message: `waiting ${formatDuration(wait.ms)} ${wait.before} (${wait.key})`,
      type: 'Normal',
    },
  );
  await ports.clock.sleep(wait.ms, wait.lost);
  if (wait.lost.aborted) {
    throw new KubemaintError('unexpected', `lost the slot while waiting ${wait.before}`, {
      hint: `slot.ttl must be longer than ${wait.key}; the request was left running for the tick`,
    });
  }
  await handle.refresh();
}
