/** Constants the executor, its Job manifest and its RBAC agree on. */
export const KUBEMAINT_NAMESPACE_DEFAULT = 'kubemaint';
/** SIGRTMIN+5 on Linux: systemd's PID 1 treats it as "reboot" (what kured's signal method sends). */
export const SIGNAL_REBOOT = 39;
