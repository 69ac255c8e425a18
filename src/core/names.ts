/**
 * Names other tools rely on (DESIGN §3): labels, annotations, Lease and Job names. One place, so a
 * rename cannot drift between the executor, the tick, the agent and the manifests.
 */
export const DOMAIN = 'kubemaint.io';

export const LABEL_REBOOT_REQUIRED = `${DOMAIN}/reboot-required`;
export const LABEL_STATE = `${DOMAIN}/state`;
export const LABEL_NODE = `${DOMAIN}/node`;
export const LABEL_REQUEST = `${DOMAIN}/request`;
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kubemaint';

export const ANN_REBOOT_REQUIRED_SINCE = `${DOMAIN}/reboot-required-since`;
export const ANN_REBOOT_REQUIRED_PACKAGES = `${DOMAIN}/reboot-required-packages`;
/**
 * Who set the reboot mark: `agent` when the reporter agent did. Its mark is the agent's to clear once
 * the host's reboot-required file is gone, which is what proves a reboot did its job (DESIGN §1.5).
 */
export const ANN_REBOOT_REQUIRED_REPORTER = `${DOMAIN}/reboot-required-reporter`;
export const REPORTER_AGENT = 'agent';
export const ANN_REQUEST = `${DOMAIN}/request`;
export const ANN_LAST_MAINTENANCE = `${DOMAIN}/last-maintenance`;

export const slotName = (index: number): string => `kubemaint-slot-${index}`;

/**
 * Deterministic Job name per request, so a second approval (or a second tick) that tries to create
 * the Job gets AlreadyExists instead of a second Job. Kept under 63 characters (Job names become
 * a label value on their pods).
 */
export function jobName(node: string, requestId: string): string {
  const base = `kubemaint-${requestId}`;
  const room = 63 - base.length - 1;
  const nodePart = node
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, Math.max(0, room))
    .replace(/-+$/, '');
  return nodePart ? `${base}-${nodePart}` : base;
}
