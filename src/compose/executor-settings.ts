/**
 * The validated config (kubemaint.yaml) mapped onto what the executor needs. The control plane
 * serialises the result into each Job (KUBEMAINT_EXECUTOR_SETTINGS), so the executor and the
 * control plane that launched it always agree.
 */
import type { ExecutorSettings } from '../app/executor/settings.js';
import { ConfigSchema, forceAfterOf, type Config } from '../config/schema.js';

/** Map the validated config (kubemaint.yaml) onto what the executor needs. */
export function settingsFromConfig(
  config: Pick<Config, 'namespace' | 'drain' | 'reboot' | 'upgrade' | 'slot' | 'executor'>,
): ExecutorSettings {
  const { drain, reboot, upgrade, slot } = config;
  return {
    namespace: config.namespace,
    drain: {
      timeoutMs: drain.timeout,
      ...(drain.gracePeriodSeconds >= 0 ? { gracePeriodSeconds: drain.gracePeriodSeconds } : {}),
      deleteEmptyDirData: drain.deleteEmptyDirData,
      force: drain.force,
      podSelector: drain.podSelector,
      skipWaitForDeleteTimeoutMs: drain.skipWaitForDeleteTimeout,
      disableEviction: drain.disableEviction,
      stallAfterMs: drain.stallAfter,
      // Only when asked for: the Job's settings stay as they were for everyone else.
      ...(drain.onTimeout === 'ask'
        ? {}
        : { onTimeout: drain.onTimeout, forceAfterMs: forceAfterOf(drain) }),
    },
    reboot:
      reboot.method === 'signal'
        ? { method: 'signal', signal: reboot.signal }
        : { method: 'command', command: reboot.command },
    upgrade:
      upgrade.method === 'command' && upgrade.command
        ? { method: 'command', command: upgrade.command, restartCommand: upgrade.restartCommand }
        : { method: 'kubeadm', restartCommand: upgrade.restartCommand },
    lock: { concurrency: slot.concurrency, ttlMs: slot.ttl },
    hostPrefix: config.executor.hostPrefix,
    progressIntervalMs: 5_000,
    // Only when asked for: the Job's settings stay as they were for everyone else.
    ...(drain.delay > 0 || reboot.delay > 0
      ? { delays: { beforeDrainMs: drain.delay, beforeRebootMs: reboot.delay } }
      : {}),
  };
}

/**
 * What the executor does when nothing says otherwise: the config schema's defaults, mapped. The one
 * place defaults live is the schema; the Job's settings and a bare `kubemaint executor` agree.
 */
export const DEFAULT_EXECUTOR_SETTINGS: ExecutorSettings = settingsFromConfig(
  ConfigSchema.parse({}),
);
