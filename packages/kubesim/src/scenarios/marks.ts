/**
 * The marks kubemaint's node agent writes on a node that needs a reboot. The scenarios seed fleets as
 * that agent would have left them, so they spell the marks themselves (kubesim depends on nothing of
 * kubemaint's); kubemaint's test/unit/compose/sim-marks.test.ts fails if the two ever differ.
 */
export const REBOOT_MARKS = {
  label: 'kubemaint.io/reboot-required',
  since: 'kubemaint.io/reboot-required-since',
  packages: 'kubemaint.io/reboot-required-packages',
} as const;

/**
 * What the agent writes on every node from its kubelet's `/configz` (kubemaint ADR 0049). The
 * scenarios' kubelets are configured for graceful shutdown as a production node should be
 * (SCENARIO_KUBELET_SHUTDOWN), and their nodes carry the agent's report of it, so the demo's prompts
 * show the setting rather than warn that nobody reported it.
 */
export const GRACE_MARKS = {
  period: 'kubemaint.io/shutdown-grace-period',
  critical: 'kubemaint.io/shutdown-grace-period-critical-pods',
  source: 'kubemaint.io/shutdown-grace-period-source',
} as const;

export const SCENARIO_KUBELET_SHUTDOWN = {
  shutdownGracePeriod: '30s',
  shutdownGracePeriodCriticalPods: '10s',
} as const;
