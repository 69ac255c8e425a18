// @ts-check
/**
 * What the host commands a pod process may call by name mean on a simulated node. The sim puts a
 * shim for each of HOST_SHIMS first on the PATH of every pod it runs as a process (jobs-runner.ts);
 * the shim runs `kubemaint-sim-host --as NAME ARGS…`, and this turns NAME ARGS into what the
 * simulated host does: a reboot through the sim's host endpoint, or a refusal that says why.
 *
 * Nothing here runs a command: a pod process on a simulated node must never act on the machine
 * that runs the sim (DESIGN invariant 11). `nsenter … -- CMD` enters the simulated node, so CMD
 * must be one of these shims too; anything else (a shell, a package manager) would run on the real
 * machine and is refused. `kill` of PID 1 with systemd's reboot signal is a reboot; any other
 * signal to PID 1, to a process group or to every process is refused; a signal to another PID is
 * the caller's own business (a local process can send it without the shim) and is passed on.
 * `init 6` and `telinit 6` reboot; `systemd-run` (how a kubelet restart is scheduled) is refused.
 */

/** The commands a pod process finds first on its PATH. */
export const HOST_SHIMS = /** @type {const} */ ([
  'nsenter',
  'systemctl',
  'reboot',
  'shutdown',
  'halt',
  'poweroff',
  'kill',
  'init',
  'telinit',
  'systemd-run',
]);

/**
 * @typedef {{ kind: 'host'; argv: string[] }
 *   | { kind: 'signal'; pids: number[]; signal: number | string }
 *   | { kind: 'refuse'; why: string }} ShimAction
 */

/** systemd reboots on SIGRTMIN+5 (39 on Linux), as the executor's `reboot.method: signal` sends. */
const SYSTEMD_REBOOT_SIGNALS = new Set(['39', 'RTMIN+5']);

const ONLY =
  'on a simulated node only a reboot reaches its host (systemctl reboot, reboot, shutdown -r, ' +
  'kill -s RTMIN+5 1, kubemaint-sim-host reboot|upgrade VERSION)';

/** @param {string} why @returns {ShimAction} */
const refuse = (why) => ({ kind: 'refuse', why: `${why}: ${ONLY}` });

/** @type {ShimAction} */
const REBOOT = { kind: 'host', argv: ['reboot'] };

/**
 * The simulated host's answer to `name args…`.
 * @param {string} name
 * @param {readonly string[]} args
 * @returns {ShimAction}
 */
export function shimAction(name, args) {
  switch (name) {
    case 'nsenter':
      return nsenter(args);
    case 'systemctl':
      return systemctl(args);
    case 'reboot':
      return args.some((a) => a === '-p' || a === '--poweroff' || a === '--halt')
        ? refuse('reboot --poweroff/--halt would power the node off')
        : REBOOT;
    case 'shutdown':
      return args.some((a) => a === '-r' || a === '--reboot')
        ? REBOOT
        : refuse(`shutdown ${args.join(' ')} powers the node off (shutdown -r reboots it)`);
    case 'halt':
    case 'poweroff':
      return refuse(`${name} would power the node off`);
    case 'kill':
      return kill(args);
    case 'init':
    case 'telinit':
      return args.length === 1 && args[0] === '6'
        ? REBOOT
        : refuse(`${name} ${args.join(' ')} is not runlevel 6 (a reboot)`);
    case 'systemd-run':
      return refuse('systemd-run would schedule a unit on the machine that runs the simulator');
    case 'kubemaint-sim-host':
      return { kind: 'host', argv: [...args] };
    default:
      return refuse(`${name} is not a host command of a simulated node`);
  }
}

/** nsenter options that take the next argument as their value when it is not attached. */
const NSENTER_VALUE_OPTIONS = new Set(['-t', '--target', '-S', '--setuid', '-G', '--setgid']);

/**
 * `nsenter [options] [--] CMD ARGS…`: entering the simulated node's namespaces leaves CMD on it,
 * so CMD is judged as a shim of its own (by its base name: `/usr/bin/systemctl` is systemctl).
 * @param {readonly string[]} args
 * @returns {ShimAction}
 */
function nsenter(args) {
  let at = 0;
  while (at < args.length) {
    const arg = args[at] ?? '';
    if (arg === '--') {
      at++;
      break;
    }
    if (!arg.startsWith('-')) break;
    at += NSENTER_VALUE_OPTIONS.has(arg) ? 2 : 1;
  }
  const [command, ...rest] = args.slice(at);
  if (command === undefined) return refuse('nsenter without a command would start a shell');
  const name = command.split('/').pop() ?? command;
  if (name === 'nsenter' || !isShim(name)) {
    return refuse(
      `nsenter … -- ${command} would run ${JSON.stringify(name)} on the machine that runs the ` +
        'simulator, not on the simulated node; the host prefix cannot leave the simulated node',
    );
  }
  return shimAction(name, rest);
}

/** @param {string} name */
const isShim = (name) =>
  name === 'kubemaint-sim-host' || /** @type {readonly string[]} */ (HOST_SHIMS).includes(name);

/**
 * `systemctl [options] VERB …`: the reboot verbs reboot the simulated node.
 * @param {readonly string[]} args
 * @returns {ShimAction}
 */
function systemctl(args) {
  const verb = args.find((a) => !a.startsWith('-'));
  if (verb === 'reboot' || verb === 'soft-reboot' || verb === 'kexec') return REBOOT;
  return refuse(`systemctl ${args.join(' ')} is not a reboot`);
}

/**
 * `kill [-s SIG | -n NUM | -SIG] PID…`, as procps' kill reads it.
 * @param {readonly string[]} args
 * @returns {ShimAction}
 */
function kill(args) {
  let signal = 'TERM';
  let at = 0;
  const first = args[0];
  if (first === '-s' || first === '-n' || first === '--signal') {
    signal = args[1] ?? '';
    at = 2;
  } else if (first !== undefined && /^-[A-Za-z0-9+]+$/.test(first) && first !== '--') {
    signal = first.slice(1);
    at = 1;
  }
  if (args[at] === '--') at++;
  const pids = args.slice(at).map(Number);
  if (pids.length === 0 || pids.some((p) => !Number.isInteger(p))) {
    return refuse(`kill ${args.join(' ')}: the shim takes only numeric PIDs`);
  }
  const name = signal.toUpperCase().replace(/^SIG/, '');
  if (pids.includes(1)) {
    if (pids.length === 1 && SYSTEMD_REBOOT_SIGNALS.has(name)) return REBOOT;
    return refuse(`kill -${signal} 1 would signal the init of the machine that runs the simulator`);
  }
  if (pids.some((p) => p <= 0)) {
    return refuse(`kill ${args.join(' ')} would signal a process group or every process`);
  }
  return { kind: 'signal', pids, signal: /^\d+$/.test(name) ? Number(name) : `SIG${name}` };
}
