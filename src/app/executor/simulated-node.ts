/**
 * The executor's settings on a simulated node: its host is the simulator's host endpoint, reached
 * through `kubemaint-sim-host`, so the configured host prefix and host commands (nsenter, systemctl,
 * a kubeadm script, a signal to PID 1) are replaced, whatever the control plane or the config file
 * said. They stand for a real machine; on a simulated node they would act on the machine that runs
 * the simulator (DESIGN invariant 11, ADR 0036).
 */
import type { ExecutorSettings } from './settings.js';

/** The simulated host's command (packages/kubesim/src/host-cli.mjs). */
export const SIM_HOST_COMMAND = 'kubemaint-sim-host';

export function onSimulatedNode(settings: ExecutorSettings): ExecutorSettings {
  return {
    ...settings,
    hostPrefix: [],
    reboot: { method: 'command', command: [SIM_HOST_COMMAND, 'reboot'] },
    // The simulated host restarts its kubelet as part of the upgrade, after the executor exited.
    upgrade: {
      method: 'command',
      command: [SIM_HOST_COMMAND, 'upgrade', '{{version}}'],
      restartCommand: [],
    },
  };
}
