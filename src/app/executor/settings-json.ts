/**
 * ExecutorSettings as JSON: how the control plane hands its config to the Job (the env var
 * KUBEMAINT_EXECUTOR_SETTINGS, see templates/executor-job.ts), so the pod needs no config file.
 * Parsed strictly (unknown keys are errors, each problem named with its path); missing keys take the
 * defaults passed in (the config's own, from src/compose: defaults live in one place, the schema).
 */
import { z } from 'zod';
import { KubemaintError } from '../../errors.js';
import { DRAIN_TIMEOUT_BEHAVIOURS } from '../../core/request.js';
import type { ExecutorSettings } from './settings.js';

const ms = z.number().int().min(0);
const argv = z.array(z.string()).min(1);

const Schema = z.strictObject({
  namespace: z.string().min(1).optional(),
  drain: z
    .strictObject({
      timeoutMs: ms.optional(),
      gracePeriodSeconds: z.number().int().min(-1).optional(),
      deleteEmptyDirData: z.boolean().optional(),
      force: z.boolean().optional(),
      podSelector: z.string().optional(),
      skipWaitForDeleteTimeoutMs: ms.optional(),
      disableEviction: z.boolean().optional(),
      evictionRetryMs: ms.optional(),
      stallAfterMs: ms.optional(),
      onTimeout: z.enum(DRAIN_TIMEOUT_BEHAVIOURS).optional(),
      forceAfterMs: ms.optional(),
    })
    .optional(),
  reboot: z
    .discriminatedUnion('method', [
      z.strictObject({ method: z.literal('command'), command: argv }),
      z.strictObject({ method: z.literal('signal'), signal: z.number().int().min(1).max(64) }),
    ])
    .optional(),
  upgrade: z
    .strictObject({
      method: z.enum(['kubeadm', 'command']).optional(),
      command: argv.optional(),
      restartCommand: z.array(z.string()).optional(),
    })
    .optional(),
  lock: z
    .strictObject({
      concurrency: z.number().int().min(1).max(100).optional(),
      ttlMs: ms.optional(),
    })
    .optional(),
  hostPrefix: z.array(z.string()).optional(),
  progressIntervalMs: ms.optional(),
  delays: z.strictObject({ beforeDrainMs: ms, beforeRebootMs: ms }).optional(),
});

type Parsed = z.infer<typeof Schema>;

/**
 * Parses the settings; the defaults (`defaults`, loaded only when asked for: they come from the
 * config schema, whose construction is a good part of an executor's start) fill what is missing.
 * The control plane writes every setting into its Jobs, so a Job's executor never loads them.
 */
export async function parseSettingsJson(
  text: string,
  source: string,
  defaults: () => Promise<ExecutorSettings>,
): Promise<ExecutorSettings> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new KubemaintError('config_invalid', `${source} is not JSON`, { cause: error });
  }
  const parsed = Schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new KubemaintError('config_invalid', `${source} is invalid: ${problems.join('; ')}`, {
      hint: 'the control plane writes these settings from kubemaint.yaml; check its version matches',
    });
  }
  return whole(parsed.data) ?? withDefaults(parsed.data, await defaults());
}

/**
 * The settings as they are when nothing in them is missing, else undefined. What may be missing
 * is what ExecutorSettings requires (the compiler holds this to it); an optional key absent here is
 * absent from the defaults too (the schema's defaults leave them out), so the result is the one
 * withDefaults would give.
 */
function whole(s: Parsed): ExecutorSettings | undefined {
  const { namespace, drain, reboot, upgrade, lock, hostPrefix, progressIntervalMs } = s;
  if (namespace === undefined || !drain || !reboot || !upgrade || !lock) return undefined;
  if (hostPrefix === undefined || progressIntervalMs === undefined) return undefined;
  const { timeoutMs, deleteEmptyDirData, force, podSelector } = drain;
  const { skipWaitForDeleteTimeoutMs, disableEviction, stallAfterMs } = drain;
  if (
    timeoutMs === undefined ||
    deleteEmptyDirData === undefined ||
    force === undefined ||
    podSelector === undefined ||
    skipWaitForDeleteTimeoutMs === undefined ||
    disableEviction === undefined ||
    stallAfterMs === undefined
  )
    return undefined;
  const { method, restartCommand } = upgrade;
  if (method === undefined || restartCommand === undefined) return undefined;
  const { concurrency, ttlMs } = lock;
  if (concurrency === undefined || ttlMs === undefined) return undefined;
  return {
    namespace,
    drain: {
      ...drain,
      timeoutMs,
      deleteEmptyDirData,
      force,
      podSelector,
      skipWaitForDeleteTimeoutMs,
      disableEviction,
      stallAfterMs,
    },
    reboot,
    upgrade: { ...upgrade, method, restartCommand },
    lock: { concurrency, ttlMs },
    hostPrefix,
    progressIntervalMs,
    ...(s.delays ? { delays: s.delays } : {}),
  };
}

function withDefaults(s: Parsed, d: ExecutorSettings): ExecutorSettings {
  return {
    namespace: s.namespace ?? d.namespace,
    drain: { ...d.drain, ...s.drain },
    reboot: s.reboot ?? d.reboot,
    // A command without a method is a control plane's from before methods: it meant that command.
    upgrade: {
      ...d.upgrade,
      ...(s.upgrade?.command && !s.upgrade.method ? { method: 'command' as const } : {}),
      ...s.upgrade,
    },
    lock: { ...d.lock, ...s.lock },
    hostPrefix: s.hostPrefix ?? d.hostPrefix,
    progressIntervalMs: s.progressIntervalMs ?? d.progressIntervalMs,
    ...(s.delays ? { delays: s.delays } : {}),
  };
}
