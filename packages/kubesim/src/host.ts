/**
 * The simulated hosts: what `systemctl reboot` and a kubelet package upgrade do to a node. A reboot
 * is scheduled `rebootIssueDelayMs` after it is issued, so the caller (the executor's host command)
 * returns and exits first, as `systemctl reboot` does; a second reboot issued while one is pending
 * is the same reboot. Every request is logged, so tests can check "one request, one reboot".
 */
import { SimError } from './errors.js';
import type { SimDelays } from './controllers/context.js';
import type { Kubelets } from './kubelets.js';
import type { SimClock } from './types.js';
import { KUBELET_VERSION } from './names.js';

export interface HostAction {
  node: string;
  action: 'reboot' | 'upgrade';
  version?: string;
  /** Sim time the command was issued, ISO. */
  issuedAt: string;
  /** Sim time it takes effect, ISO. */
  takesEffectAt: string;
  /** True when it joined a reboot or upgrade already pending on that node. */
  duplicate: boolean;
}

/**
 * A logind inhibitor lock held on a simulated host (systemd-inhibit): `what` is colon-separated
 * (`shutdown`, `sleep`, …), `mode` block or delay. A block lock on shutdown makes logind refuse a
 * reboot, even root's since systemd 257 (systemd PR #30307).
 */
export interface Inhibitor {
  who: string;
  why: string;
  what: string;
  mode: 'block' | 'delay';
}

/**
 * What logind answers a reboot while a block lock is held: systemd v258's D-Bus error
 * BUS_ERROR_BLOCKED_BY_INHIBITOR_LOCK ("Operation denied due to active block inhibitor"), as
 * `systemctl reboot` prints it (systemctl-logind.c: "Failed to %s via logind: %s").
 */
export const REBOOT_INHIBITED =
  'Failed to reboot system via logind: Operation denied due to active block inhibitor';

/** A reboot logind refused; the host endpoint answers 409 with systemd's words and the lock. */
export class RebootInhibited extends SimError {
  readonly inhibitor: Inhibitor;

  constructor(node: string, inhibitor: Inhibitor) {
    super('unexpected', REBOOT_INHIBITED, {
      hint: `on ${node}, "${inhibitor.who}" holds a block inhibitor on shutdown: ${inhibitor.why}`,
    });
    this.inhibitor = inhibitor;
  }
}

export interface HostStatus {
  node: string;
  up: boolean;
  bootID: string;
  kubeletVersion: string;
}

export interface Host {
  reboot(node: string): HostAction;
  /** Take an inhibitor lock on the node's host; returns its release. */
  inhibit(node: string, lock: Inhibitor): () => void;
  upgrade(node: string, version: string): HostAction;
  status(node: string): HostStatus;
  log(): readonly HostAction[];
  stop(): void;
}

/** A kubelet version as kubemaint may ask for one: `v1.31.4`, optionally with a build suffix. */

export function createHost(options: {
  clock: SimClock;
  delays: SimDelays;
  kubelets: Kubelets;
  /** Called when a reboot takes effect (the machine goes down), e.g. to empty its tmpfs. */
  onReboot?: (node: string) => void;
}): Host {
  const { clock, delays, kubelets } = options;
  const pending = new Map<string, HostAction>();
  const cancels: (() => void)[] = [];
  const history: HostAction[] = [];
  const inhibitors = new Map<string, Inhibitor[]>();

  const kubeletOf = (node: string) => {
    const kubelet = kubelets.get(node);
    if (!kubelet) {
      throw new SimError('not_found', `no simulated host for node ${JSON.stringify(node)}`, {
        hint: `known nodes: ${kubelets.names().slice(0, 10).join(', ')}`,
      });
    }
    return kubelet;
  };

  const issue = (
    node: string,
    action: HostAction['action'],
    delayMs: number,
    run: () => void,
    version?: string,
  ): HostAction => {
    kubeletOf(node);
    const now = clock.now().getTime();
    const waiting = pending.get(node);
    const entry: HostAction = {
      node,
      action,
      ...(version ? { version } : {}),
      issuedAt: new Date(now).toISOString(),
      takesEffectAt: waiting?.takesEffectAt ?? new Date(now + delayMs).toISOString(),
      duplicate: waiting !== undefined,
    };
    history.push(entry);
    if (waiting) return entry;
    pending.set(node, entry);
    cancels.push(
      clock.after(delayMs, () => {
        pending.delete(node);
        run();
      }),
    );
    return entry;
  };

  return {
    reboot(node) {
      const blocking = (inhibitors.get(node) ?? []).find(
        (lock) => lock.mode === 'block' && lock.what.split(':').includes('shutdown'),
      );
      if (blocking) throw new RebootInhibited(node, blocking);
      return issue(node, 'reboot', delays.rebootIssueDelayMs, () => {
        options.onReboot?.(node);
        kubelets.get(node)?.reboot();
      });
    },
    inhibit(node, lock) {
      kubeletOf(node);
      const held = { ...lock };
      inhibitors.set(node, [...(inhibitors.get(node) ?? []), held]);
      return () =>
        inhibitors.set(
          node,
          (inhibitors.get(node) ?? []).filter((l) => l !== held),
        );
    },
    upgrade(node, version) {
      if (!KUBELET_VERSION.test(version)) {
        throw new SimError('usage', `invalid kubelet version ${JSON.stringify(version)}`, {
          hint: 'use a version like v1.31.4',
        });
      }
      return issue(
        node,
        'upgrade',
        delays.rebootIssueDelayMs,
        () => kubelets.get(node)?.upgrade(version),
        version,
      );
    },
    status(node) {
      const kubelet = kubeletOf(node);
      const info = kubelet.info();
      return { node, up: kubelet.isUp(), bootID: info.bootID, kubeletVersion: info.kubeletVersion };
    },
    log: () => history,
    stop() {
      for (const cancel of cancels.splice(0)) cancel();
      pending.clear();
    },
  };
}

/** What tests and the demo do to the simulated machines, for the embedded sim and an attached fleet. */
export interface HostControls {
  reboot(node: string): HostAction;
  /** Hold an inhibitor lock on the node's host (systemd-inhibit); returns its release. */
  inhibit(node: string, lock: Inhibitor): () => void;
  upgrade(node: string, version: string): HostAction;
  host(node: string): HostStatus;
  hostLog(): readonly HostAction[];
  /** Output of a pod that ran as a local process. */
  logs(namespace: string, pod: string): string;
}

export const hostControls = (
  host: Host,
  runner: { logs(podKey: string): string },
): HostControls => ({
  reboot: (node) => host.reboot(node),
  inhibit: (node, lock) => host.inhibit(node, lock),
  upgrade: (node, version) => host.upgrade(node, version),
  host: (node) => host.status(node),
  hostLog: () => host.log(),
  logs: (namespace, pod) => runner.logs(`${namespace}/${pod}`),
});

export { KUBELET_VERSION };
