/**
 * How a node is taken through maintenance: `slot` (how many at once, per pool), `drain` (kubectl
 * drain's options, same names and meaning), `reboot` and `upgrade` (the host commands the executor
 * runs through nsenter); `executor` (the Job that does it) is schema-executor.ts. Defaults follow kured and kubectl
 * where they exist, and are safe otherwise.
 */
import { z } from 'zod';
import { DRAIN_TIMEOUT_BEHAVIOURS } from '../core/request.js';
import { splitCommand } from './argv.js';
import {
  checkedText,
  describeValue,
  duration,
  int,
  isLabelKey,
  isLabelValue,
  labelKey,
  labelSelector,
} from './fields.js';

const MINUTE = 60_000;

export const SlotSchema = z
  .strictObject({
    concurrency: int(1, 100).default(1),
    poolLabel: labelKey().optional(),
    pools: z.record(z.string(), int(1, 100)).optional(),
    // 0: never expires (kured's --lock-ttl=0). A slot whose request ended or whose node is gone is
    // free whatever its TTL, so "never" only means no crashed-and-silent holder is timed out.
    ttl: duration().default(30 * MINUTE),
    // kured --lock-release-delay, SUC postCompleteDelay, AKS node soak: time for the fleet to show
    // trouble before the next node goes down.
    releaseDelay: duration().default(0),
  })
  .superRefine((slot, ctx) => {
    if (slot.pools !== undefined && slot.poolLabel === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['pools'],
        message: "needs poolLabel: the label whose value names a node's pool",
        params: { hint: 'e.g. poolLabel: node.kubernetes.io/pool' },
      });
    }
    for (const pool of Object.keys(slot.pools ?? {})) {
      if (!isLabelValue(pool)) {
        ctx.addIssue({
          code: 'custom',
          path: ['pools', pool],
          message: 'is not a label value, so no node can be in this pool',
          params: { hint: "at most 63 letters, digits, '-', '_' or '.'" },
        });
      }
    }
  });

export const DrainSchema = z.strictObject({
  timeout: duration().default(15 * MINUTE),
  gracePeriodSeconds: int(-1, 86_400).default(-1),
  deleteEmptyDirData: z.boolean().default(false),
  force: z.boolean().default(false),
  podSelector: labelSelector().default(''),
  skipWaitForDeleteTimeout: duration().default(0),
  disableEviction: z.boolean().default(false),
  stallAfter: duration().default(10 * MINUTE),
  // kured --drain-delay: after the cordon, before the first eviction.
  delay: duration().default(0),
  // AKS undrainableNodeBehavior: a drain still waiting at `timeout` gives the node back and fails
  // (ask: today's behaviour, people were asked while it stalled), gives it back as skipped
  // (uncordon), or deletes the remaining pods `forceAfter` later (force; kured --force-reboot).
  onTimeout: z.enum(DRAIN_TIMEOUT_BEHAVIOURS).default('ask'),
  forceAfter: duration().optional(),
});

/** An argv list, or one string split like a shell would (without running a shell). */
export const command = () =>
  z.union([z.string(), z.array(z.string()).min(1)]).transform((value, ctx) => {
    if (Array.isArray(value)) {
      if (value[0]?.trim() === '') {
        ctx.addIssue({ code: 'custom', path: [0], message: 'the program name is empty' });
        return z.NEVER;
      }
      return value;
    }
    const split = splitCommand(value);
    if (split.ok) return split.argv;
    ctx.addIssue({
      code: 'custom',
      message: `${describeValue(value)} ${split.error}`,
      params: {
        hint: 'write a list, ["systemctl", "reboot"], or put the logic in a script on the host',
      },
    });
    return z.NEVER;
  });

/** The plan fits `expectedDuration` before a window closes; more than the timeout is a typo. */
function expectedWithinTimeout(
  step: { nodeTimeout: number; expectedDuration: number },
  ctx: z.core.$RefinementCtx,
) {
  if (step.expectedDuration > step.nodeTimeout) {
    ctx.addIssue({
      code: 'custom',
      path: ['expectedDuration'],
      message:
        'is longer than nodeTimeout, so every node would time out before it is expected back',
      params: { hint: 'raise nodeTimeout or lower expectedDuration' },
    });
  }
}

export const RebootSchema = z
  .strictObject({
    method: z.enum(['command', 'signal']).default('command'),
    command: command().default(['systemctl', 'reboot']),
    // SIGRTMIN+5 asks systemd for an orderly reboot (kured's default); needs only CAP_KILL.
    signal: int(1, 64).default(39),
    // kured --reboot-delay: after the drain, before the reboot.
    delay: duration().default(0),
    nodeTimeout: duration().default(15 * MINUTE),
    expectedDuration: duration().default(10 * MINUTE),
  })
  .superRefine(expectedWithinTimeout);

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

export const UpgradeSchema = z
  .strictObject({
    // kubeadm: kubemaint's scripts for kubeadm nodes on Debian/Ubuntu (apt) and RHEL-family (dnf),
    // chosen by each node's osImage (infra/upgrade/kubeadm-upgrade.sh, docs/upgrades.md); command:
    // `command`. Unset: command when `command` is given (a config from before), else kubeadm.
    method: z.enum(['kubeadm', 'command']).optional(),
    command: command()
      .superRefine((argv, ctx) => {
        for (const [index, arg] of argv.entries()) {
          for (const [, name] of arg.matchAll(PLACEHOLDER)) {
            if (name === 'version') continue;
            ctx.addIssue({
              code: 'custom',
              path: [index],
              message: `uses the placeholder {{${name}}}, but {{version}} is the only one`,
              params: { hint: 'the target version (v1.31.4) is all the command gets' },
            });
          }
        }
      })
      .optional(),
    // The new kubelet may recreate every container, the executor's too: the restart is scheduled to
    // happen after the executor has exited. [] when the upgrade command restarts the kubelet itself.
    restartCommand: z
      .array(z.string())
      .default(['systemd-run', '--on-active=15', 'systemctl', 'restart', 'kubelet']),
    nodeTimeout: duration().default(15 * MINUTE),
    expectedDuration: duration().default(10 * MINUTE),
  })
  .superRefine(expectedWithinTimeout)
  .superRefine((upgrade, ctx) => {
    if (upgrade.method === 'command' && upgrade.command === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'is required with upgrade.method: command',
        params: { hint: 'e.g. command: ["/usr/local/bin/upgrade-kubelet", "{{version}}"]' },
      });
    if (upgrade.method === 'kubeadm' && upgrade.command !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'is only run with upgrade.method: command, and method is kubeadm',
        params: { hint: 'remove upgrade.command, or set method: command to run it' },
      });
  })
  .transform((upgrade) => ({
    ...upgrade,
    method: upgrade.method ?? (upgrade.command === undefined ? 'kubeadm' : 'command'),
  }));

/** A label value as `kubectl label` takes it (may be empty). */
const labelValue = () =>
  checkedText((text) =>
    isLabelValue(text)
      ? undefined
      : {
          message: `${describeValue(text)} is not a label value: at most 63 letters, digits, '-', '_' or '.'`,
          hint: 'e.g. "true", "patched" or "" (empty)',
        },
  );

/** Labels kubemaint sets on a node; its own `kubemaint.io/` keys are not for people to set here. */
const nodeLabelMap = () =>
  z
    .record(z.string(), labelValue())
    .superRefine((labels, ctx) => {
      for (const key of Object.keys(labels)) {
        if (!isLabelKey(key))
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `${describeValue(key)} is not a label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.'`,
            params: { hint: 'e.g. example.com/patching' },
          });
        else if (key.startsWith('kubemaint.io/'))
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `${key} is kubemaint's own: it sets and clears it itself`,
            params: { hint: 'use a key of your own, e.g. example.com/patching' },
          });
      }
    })
    .default({});

/**
 * kured's --pre-reboot-node-labels / --post-reboot-node-labels, SUC's postCompleteLabels: set
 * `before` when the executor Job is created (before the cordon), `after` once the node is proven back.
 */
export const NodeLabelsSchema = z.strictObject({
  before: nodeLabelMap(),
  after: nodeLabelMap(),
});

/**
 * kured's --prefer-no-schedule-taint: `<key>:PreferNoSchedule` on a node while its request waits
 * (proposed or approved), so new pods go elsewhere when they can. Off by default, as in kured.
 */
export const WaitingTaintSchema = z.strictObject({
  enabled: z.boolean().default(false),
  key: labelKey().default('kubemaint.io/waiting-for-maintenance'),
});
