/**
 * What the executor is told to do, typed: the part of kubemaint.yaml it reads (keys drain.*, reboot.*,
 * upgrade.*, lock.*, executor.*), already validated by the config loader. Defaults follow kubectl
 * drain and kured where the config leaves something out.
 */
import type { DrainTimeoutBehaviour } from '../../core/request.js';

export interface DrainSettings {
  /** Give up the drain after this long (0: never). @default 15 minutes */
  timeoutMs: number;
  /** Grace period for evicted pods; undefined keeps each pod's own terminationGracePeriodSeconds. */
  gracePeriodSeconds?: number;
  /** kubectl --delete-emptydir-data. @default false (as kubectl; the config may turn it on) */
  deleteEmptyDirData: boolean;
  /** kubectl --force: evict pods that declare no controller. @default false */
  force: boolean;
  /** kubectl --pod-selector: only pods matching it are drained. @default '' */
  podSelector: string;
  /** kubectl --skip-wait-for-delete-timeout, in ms (0: off). @default 0 */
  skipWaitForDeleteTimeoutMs: number;
  /** DELETE instead of the Eviction API (bypasses PDBs: only for clusters that have no Eviction API). */
  disableEviction: boolean;
  /**
   * Pause before re-trying an eviction a PDB refused, ±20% jitter; a longer Retry-After wins.
   * @default 1_000 (kubectl waits 5 s; a budget usually frees up as soon as a replacement is Ready)
   */
  evictionRetryMs?: number;
  /** After this long without progress the drain counts as stalled and follows `drainDecision`. */
  stallAfterMs: number;
  /**
   * What a drain still running at `timeoutMs` does (AKS `undrainableNodeBehavior`): `ask` gives the
   * node back and fails the request (people were asked while it stalled), `uncordon` gives it back
   * and ends the request `skipped`, `force` deletes the remaining pods `forceAfterMs` later.
   * @default 'ask'
   */
  onTimeout?: DrainTimeoutBehaviour;
  /** With `onTimeout: force`: the second deadline, counted from the timeout. @default 5 minutes */
  forceAfterMs?: number;
}

export type RebootSettings =
  | {
      method: 'command';
      /** argv run in the host's mount namespace; must return before the host goes down. */
      command: readonly string[];
    }
  | {
      method: 'signal';
      /** Signal number sent to PID 1 (the host's systemd with hostPID). @default 39 (SIGRTMIN+5) */
      signal: number;
    };

export interface UpgradeSettings {
  /**
   * `kubeadm`: kubemaint's own script (infra/upgrade/kubeadm-upgrade.sh) for the node's package
   * family, chosen by its osImage; `command`: `command` below. @default 'command' when absent (the
   * settings of a control plane from before the method existed)
   */
  method?: 'kubeadm' | 'command';
  /**
   * The kubeadm script's text, added by the executor from its image (never sent in the Job's
   * settings): it runs on the host as `sh -c <script>`, so the hosts need nothing installed.
   */
  script?: string;
  /**
   * argv template that installs the kubelet (`method: command`); `{{version}}` is replaced by the
   * strictly checked target version. It must not restart the kubelet itself: see `restartCommand`.
   */
  command?: readonly string[];
  /**
   * argv that arranges the kubelet restart for AFTER the executor exits (a new kubelet may recreate
   * every container, the executor's too). @default systemd-run --on-active=15 systemctl restart kubelet
   */
  restartCommand: readonly string[];
}

export interface LockSettings {
  /** Number of slots, `kubemaint-slot-0` … `kubemaint-slot-<concurrency-1>`. @default 1 */
  concurrency: number;
  /** A slot not renewed for this long is free for anyone; 0: never (`slot.ttl: 0`). @default 30 minutes */
  ttlMs: number;
}

export interface ExecutorSettings {
  /** Where the Leases live. @default 'kubemaint' */
  namespace: string;
  drain: DrainSettings;
  reboot: RebootSettings;
  upgrade: UpgradeSettings;
  lock: LockSettings;
  /**
   * Prefix that makes an argv run on the host: PID 1's mount namespace through nsenter (kured's idiom;
   * needs hostPID and privileges). Empty runs the argv as is, for hosts reached another way (the sim's
   * host endpoint). @default ['nsenter', '-m/proc/1/ns/mnt', '--']
   */
  hostPrefix: readonly string[];
  /** Minimum interval between two progress writes to the request annotation. @default 5 s */
  progressIntervalMs: number;
  /**
   * kured's --drain-delay and --reboot-delay: waits after the cordon before the drain, and after the
   * drain before a reboot (not an upgrade). Absent or 0: no wait.
   */
  delays?: { beforeDrainMs: number; beforeRebootMs: number };
}

/** The slot part of the settings, in the shape slots.ts takes. */
export const settingsForSlots = (s: ExecutorSettings) => ({
  namespace: s.namespace,
  concurrency: s.lock.concurrency,
  ttlMs: s.lock.ttlMs,
});
