/**
 * The waiting taint (kured's `--prefer-no-schedule-taint`): while a node's request waits for its
 * turn (proposed or approved), the node carries `<key>:PreferNoSchedule`, so the scheduler places
 * new pods elsewhere when it can and the drain has fewer pods to move. It never evicts and never
 * refuses a pod: PreferNoSchedule is a preference. The executor cordons when the request starts
 * running, so the taint goes then, and with every other end. Pure: what the node's taints should be.
 */
import type { MaintenanceRequest, RequestState } from './request.js';

export const WAITING_TAINT_EFFECT = 'PreferNoSchedule';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: string;
}

/** `waitingTaint` in the config: off, or on with its key. */
export interface WaitingTaintSettings {
  enabled: boolean;
  key: string;
}

const WAITING: readonly RequestState[] = ['proposed', 'approved'];

export const isWaiting = (request: Pick<MaintenanceRequest, 'state'> | undefined): boolean =>
  request !== undefined && WAITING.includes(request.state);

/** Whether a node with this request (its active one, else its latest) should carry the taint. */
export function wantsWaitingTaint(
  settings: WaitingTaintSettings | undefined,
  request: Pick<MaintenanceRequest, 'state'> | undefined,
  accepted = true,
): boolean {
  return settings?.enabled === true && accepted && isWaiting(request);
}

export const hasWaitingTaint = (
  taints: readonly Pick<NodeTaint, 'key' | 'effect'>[] | undefined,
  key: string,
): boolean => (taints ?? []).some((t) => t.key === key && t.effect === WAITING_TAINT_EFFECT);

/**
 * The node's taints with ours added or removed, or undefined when they already are so. Only our
 * key with our effect is touched: a person's `<key>:NoSchedule`, or anyone else's taint, stays.
 */
export function withWaitingTaint<T extends Pick<NodeTaint, 'key' | 'effect'>>(
  taints: readonly T[] | undefined,
  key: string,
  present: boolean,
): (T | NodeTaint)[] | undefined {
  const current = [...(taints ?? [])];
  if (hasWaitingTaint(current, key) === present) return undefined;
  if (!present) return current.filter((t) => !(t.key === key && t.effect === WAITING_TAINT_EFFECT));
  return [...current, { key, effect: WAITING_TAINT_EFFECT }];
}
