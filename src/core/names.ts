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
/**
 * The node's kubelet graceful-shutdown setting as the reporter agent read it (ADR 0049): its
 * `shutdownGracePeriod` and `shutdownGracePeriodCriticalPods` as the kubelet prints them (`20s`,
 * `0s`), and where it read them (`configz`, or `file` for the host's kubelet config file).
 */
export const ANN_SHUTDOWN_GRACE_PERIOD = `${DOMAIN}/shutdown-grace-period`;
export const ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL = `${DOMAIN}/shutdown-grace-period-critical-pods`;
export const ANN_SHUTDOWN_GRACE_PERIOD_SOURCE = `${DOMAIN}/shutdown-grace-period-source`;
/**
 * Set only for a kubelet with `shutdownGracePeriodByPodPriority`: its groups, lowest priority first,
 * as `priority:period` pairs (`0:20s,2000000000:10s`). The period above is then their sum (the
 * kubelet's inhibitor delay) and the critical share the group of priority 2000000000's.
 */
export const ANN_SHUTDOWN_GRACE_PERIOD_BY_POD_PRIORITY = `${DOMAIN}/shutdown-grace-period-by-pod-priority`;
export const ANN_REQUEST = `${DOMAIN}/request`;
export const ANN_LAST_MAINTENANCE = `${DOMAIN}/last-maintenance`;
/** On executor Jobs and their pods: the node's full name, which the `node` label may only hash. */
export const ANN_NODE = `${DOMAIN}/node`;
/** `json` or `text`: how a process logs; the control plane sets it in the executor Jobs it starts. */
export const ENV_LOG_FORMAT = 'KUBEMAINT_LOG_FORMAT';

export const slotName = (index: number): string => `kubemaint-slot-${index}`;

/** Whether a Lease is one of the slots, not another Lease in kubemaint's namespace. */
export const isSlotName = (name: string): boolean => /^kubemaint-slot-\d+$/.test(name);

/** The pause switch: the ConfigMap in kubemaint's namespace every dispatch reads (`kubemaint pause`). */
export const PAUSE_CONFIGMAP = 'kubemaint-pause';

/**
 * Who holds a slot: `<node>/<requestId>`, the one spelling of a holder (the executor writes it into
 * the Lease, the control plane releases by it, `kubemaint slots` shows it).
 */
export const slotHolder = (node: string, requestId: string): string => `${node}/${requestId}`;

/** The node and request of a holder, or undefined when it is not one of ours. */
export function parseSlotHolder(holder: string): { node: string; requestId: string } | undefined {
  const slash = holder.lastIndexOf('/');
  return slash > 0
    ? { node: holder.slice(0, slash), requestId: holder.slice(slash + 1) }
    : undefined;
}

/** On hook Jobs (ADR 0021): `before-drain` or `after-ready`; admission judges labelled Jobs apart. */
export const LABEL_HOOK = `${DOMAIN}/hook`;
/** The one account hook Jobs run as (infra/k8s: no RBAC, no token unless asked). */
export const HOOK_SERVICE_ACCOUNT = 'kubemaint-hook';

/**
 * A hook's Job: deterministic per request and phase (`kubemaint-hook-b-<request>-<node>`, `-a-`
 * after the node is back), so a second tick cannot start it twice; under 63 characters.
 */
export function hookJobName(node: string, requestId: string, phase: 'beforeDrain' | 'afterReady') {
  return jobName(node, `hook-${phase === 'beforeDrain' ? 'b' : 'a'}-${requestId}`);
}

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
