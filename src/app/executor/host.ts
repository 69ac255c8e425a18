/**
 * What the executor asks the host to do, as data: argv built only from settings (never from Slack or
 * the request, except a target version that passed the strict pattern), wrapped so it runs in the
 * host's mount namespace. Pure: src/app/executor/host-process.ts runs the result.
 */
import type { NodeInfo } from '../../core/node.js';
import { packageFamily } from '../../core/os-family.js';
import { KubemaintError } from '../../errors.js';
import type { ExecutorSettings } from './settings.js';

/** The only shape a target version may have before it reaches an argv (invariant 3). */
export const VERSION_PATTERN = /^v?\d+\.\d+\.\d+$/;
export const VERSION_PLACEHOLDER = '{{version}}';

export type HostAction =
  { kind: 'run'; argv: readonly string[] } | { kind: 'signal'; pid: number; signal: number };

/** Wrap an argv with the host prefix (`nsenter -m/proc/1/ns/mnt --` by default), as kured does. */
export function onHost(prefix: readonly string[], argv: readonly string[]): readonly string[] {
  if (argv.length === 0 || argv.some((a) => typeof a !== 'string')) {
    throw new KubemaintError('config_invalid', 'host command is empty or not a list of strings', {
      hint: 'set reboot.command / upgrade.command to an argv list, e.g. ["systemctl", "reboot"]',
    });
  }
  return [...prefix, ...argv];
}

/** The reboot: a command on the host, or SIGRTMIN+5 to PID 1 (systemd reboots; needs only CAP_KILL). */
export function rebootActions(settings: ExecutorSettings): HostAction[] {
  const reboot = settings.reboot;
  if (reboot.method === 'signal') return [{ kind: 'signal', pid: 1, signal: reboot.signal }];
  return [{ kind: 'run', argv: onHost(settings.hostPrefix, reboot.command) }];
}

export function checkVersion(version: string | undefined): string {
  if (version === undefined || !VERSION_PATTERN.test(version)) {
    throw new KubemaintError(
      'request_invalid',
      `target version ${JSON.stringify(version ?? '')} is not a plain version like v1.31.4`,
      { hint: 'the request must name the kubelet version as vMAJOR.MINOR.PATCH' },
    );
  }
  return version;
}

/**
 * The upgrade: install the target kubelet, then arrange its restart for after the executor exits.
 * With `method: kubeadm`, kubemaint's script for the node's package family (from its osImage) runs
 * on the host as `sh -c`; a node it does not cover is refused here, before anything is touched.
 * With `method: command`, the template must contain `{{version}}`, else it would not say what to
 * install.
 */
export function upgradeActions(
  settings: ExecutorSettings,
  version: string | undefined,
  node?: Pick<NodeInfo, 'name' | 'osImage'>,
): HostAction[] {
  const target = checkVersion(version);
  const install =
    settings.upgrade.method === 'kubeadm'
      ? kubeadmInstall(settings, target, node)
      : commandInstall(settings, target);
  const actions: HostAction[] = [{ kind: 'run', argv: onHost(settings.hostPrefix, install) }];
  if (settings.upgrade.restartCommand.length > 0) {
    actions.push({
      kind: 'run',
      argv: onHost(settings.hostPrefix, settings.upgrade.restartCommand),
    });
  }
  return actions;
}

function commandInstall(settings: ExecutorSettings, target: string): readonly string[] {
  const template = settings.upgrade.command ?? [];
  if (!template.some((arg) => arg.includes(VERSION_PLACEHOLDER))) {
    throw new KubemaintError('config_invalid', 'upgrade.command has no {{version}} placeholder', {
      hint: 'e.g. upgrade.command: ["/usr/local/bin/upgrade-kubelet", "{{version}}"]',
    });
  }
  return template.map((arg) => arg.split(VERSION_PLACEHOLDER).join(target));
}

/** What `$0` is in the script's messages and in `ps` on the host. */
export const KUBEADM_SCRIPT_NAME = 'kubemaint-upgrade-kubelet';

function kubeadmInstall(
  settings: ExecutorSettings,
  target: string,
  node: Pick<NodeInfo, 'name' | 'osImage'> | undefined,
): readonly string[] {
  const family = packageFamily(node?.osImage);
  if (!family.ok) {
    // A fact of the node, not of the config: the request cannot be done as asked; nothing changed.
    throw new KubemaintError('request_invalid', `node ${node?.name ?? ''} ${family.why}`, {
      hint: 'set upgrade.method: command with an upgrade of your own (docs/upgrades.md)',
    });
  }
  const script = settings.upgrade.script;
  if (!script) {
    throw new KubemaintError('config_invalid', 'this executor has no kubeadm upgrade script', {
      hint: 'the image carries infra/upgrade/kubeadm-upgrade.sh; rebuild it, or use upgrade.method: command',
    });
  }
  return ['sh', '-c', script, KUBEADM_SCRIPT_NAME, '--family', family.family, target];
}

/** `nsenter … -- systemctl reboot` for logs and the request's history. */
export const describeAction = (action: HostAction): string =>
  action.kind === 'run'
    ? shortArgv(action.argv).join(' ')
    : `signal ${action.signal} to PID ${action.pid}`;

/** A script given to `sh -c` is named, not quoted whole, in logs and the request's history. */
function shortArgv(argv: readonly string[]): readonly string[] {
  const at = argv.indexOf('-c');
  if (at < 0 || argv[at + 2] !== KUBEADM_SCRIPT_NAME) return argv;
  return [...argv.slice(0, at + 1), '<kubeadm-upgrade.sh>', ...argv.slice(at + 2)];
}
