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

export interface HostStatus {
  node: string;
  up: boolean;
  bootID: string;
  kubeletVersion: string;
}

export interface Host {
  reboot(node: string): HostAction;
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
    reboot: (node) =>
      issue(node, 'reboot', delays.rebootIssueDelayMs, () => {
        options.onReboot?.(node);
        kubelets.get(node)?.reboot();
      }),
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
  upgrade: (node, version) => host.upgrade(node, version),
  host: (node) => host.status(node),
  hostLog: () => host.log(),
  logs: (namespace, pod) => runner.logs(`${namespace}/${pod}`),
});

export { KUBELET_VERSION };
