/**
 * One node's QEMU: TCG emulation (KVM does not run guests on these machines), direct kernel boot, the
 * node's own copy of the disk image plus its seed disk, and user networking with `restrict=on` — the
 * guest reaches nothing but the explicit forwards: the apiserver in (a guestfwd, one socat per
 * connection), SSH and the kubelet's port out on loopback. QEMU daemonizes; its pid file and command
 * line (which names the node's folder) are how `down` finds exactly it again.
 */
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { APISERVER_GUEST_ADDRESS, APISERVER_GUEST_PORT, KERNEL_APPEND } from './guest.js';
import { RealClusterError } from '../real-cluster/errors.js';
import { PKGS_GUEST_ADDRESS, PKGS_GUEST_PORT } from './pkgs-server.js';
import { run } from './run.js';

export interface VmSpec {
  name: string;
  /** The node's folder: disk, seed, console log, pid file, monitor socket. */
  dir: string;
  disk: string;
  seed: string;
  kernel: string;
  initrd: string;
  /** The apiserver on the host's loopback. */
  apiserverPort: number;
  /** Host loopback port → guest's SSH. */
  sshPort: number;
  /** The kubelet's port, the same number in the guest and on the host address in `kubeletHost`. */
  kubeletPort: number;
  /** The host address the kubelet's port is forwarded from (the node's InternalIP on the host's loopback). */
  kubeletHost: string;
  memoryMiB: number;
  /** The test's pkgs.k8s.io server on the host's loopback (pkgs-server.ts), forwarded from PKGS_GUEST_ADDRESS:443. */
  pkgsPort?: number;
}

export const consoleLog = (dir: string) => join(dir, 'console.log');
const pidFile = (dir: string) => join(dir, 'qemu.pid');

/** The QEMU pid recorded in `dir`, when that process still runs this node's QEMU. */
export function runningPid(dir: string): number | undefined {
  if (!existsSync(pidFile(dir))) return undefined;
  const pid = Number(readFileSync(pidFile(dir), 'utf8').trim());
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(dir) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function qemuArgs(spec: VmSpec): string[] {
  // One socat per guest connection; -lf keeps socat's own messages out of the TLS stream.
  const apiserver = `guestfwd=tcp:${APISERVER_GUEST_ADDRESS}:${APISERVER_GUEST_PORT}-cmd:socat -lf ${join(spec.dir, 'socat.log')} STDIO TCP:127.0.0.1:${spec.apiserverPort}`;
  const netdev = [
    'user',
    'id=n0',
    'restrict=on',
    `hostfwd=tcp:127.0.0.1:${spec.sshPort}-:22`,
    `hostfwd=tcp:${spec.kubeletHost}:${spec.kubeletPort}-:${spec.kubeletPort}`,
    apiserver,
    ...(spec.pkgsPort
      ? [
          `guestfwd=tcp:${PKGS_GUEST_ADDRESS}:${PKGS_GUEST_PORT}-cmd:socat -lf ${join(spec.dir, 'socat-pkgs.log')} STDIO TCP:127.0.0.1:${spec.pkgsPort}`,
        ]
      : []),
  ].join(',');
  return [
    // No default devices (IDE, CD-ROM, VGA): fewer to probe on a slow emulated boot.
    '-nodefaults',
    '-name',
    spec.name,
    // tb-size=256: TCG's translation cache would otherwise take 1 GiB of host memory per VM.
    '-accel',
    'tcg,tb-size=256',
    '-cpu',
    'max',
    '-smp',
    '1',
    '-m',
    String(spec.memoryMiB),
    '-uuid',
    randomUUID(),
    '-kernel',
    spec.kernel,
    '-initrd',
    spec.initrd,
    '-append',
    KERNEL_APPEND,
    '-drive',
    `file=${spec.disk},if=virtio,format=raw`,
    '-drive',
    `file=${spec.seed},if=virtio,format=raw,readonly=on`,
    '-netdev',
    netdev,
    '-device',
    'virtio-net-pci,netdev=n0',
    '-device',
    'virtio-rng-pci',
    '-vga',
    'none',
    '-display',
    'none',
    // append=on: a guest reboot (QEMU keeps running) adds its boot to the same log.
    '-chardev',
    `file,id=console,path=${consoleLog(spec.dir)},append=on`,
    '-serial',
    'chardev:console',
    '-monitor',
    `unix:${join(spec.dir, 'monitor.sock')},server=on,wait=off`,
    '-pidfile',
    pidFile(spec.dir),
    '-daemonize',
  ];
}

/** Starts the VM (the last run's console log is kept as console.previous.log); returns QEMU's pid. */
export async function startVm(spec: VmSpec): Promise<number> {
  if (existsSync(consoleLog(spec.dir))) {
    renameSync(consoleLog(spec.dir), join(spec.dir, 'console.previous.log'));
  }
  await run('qemu-system-x86_64', qemuArgs(spec), {
    logPath: join(spec.dir, 'qemu.log'),
    what: `QEMU for ${spec.name}`,
    needs: 'apt-get install qemu-system-x86',
  });
  const pid = runningPid(spec.dir);
  if (pid === undefined) {
    throw new RealClusterError(
      `QEMU for ${spec.name} exited at once — log: ${join(spec.dir, 'qemu.log')}, console log: ${consoleLog(spec.dir)}`,
    );
  }
  return pid;
}

/** Stops the VM's QEMU (a power cut: the disk's journal covers it); true when it was running. */
export async function stopVm(dir: string): Promise<boolean> {
  const pid = runningPid(dir);
  if (pid === undefined) return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (runningPid(dir) !== undefined && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
  }
  if (runningPid(dir) !== undefined) process.kill(pid, 'SIGKILL');
  return true;
}

/**
 * Runs commands on the VM's QEMU monitor (HMP, the `-monitor` socket above), one after another,
 * each once the monitor's prompt is back; returns what the monitor printed. A test cuts a node's
 * power this way: `stop` freezes the guest where it is (no instruction runs, nothing answers on the
 * network), `system_reset` and `cont` boot it afresh, as a machine switched on again would.
 */
export function monitor(dir: string, commands: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(join(dir, 'monitor.sock'));
    const pending = [...commands];
    let output = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new RealClusterError(`QEMU monitor in ${dir} did not answer ${commands.join('; ')}`));
    }, 30_000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      output += chunk;
      if (!output.trimEnd().endsWith('(qemu)')) return;
      const next = pending.shift();
      if (next === undefined) {
        clearTimeout(timer);
        socket.end();
        resolve(output);
        return;
      }
      output += '\n';
      socket.write(`${next}\n`);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(new RealClusterError(`QEMU monitor in ${dir}: ${error.message}`));
    });
  });
}

/** How many times the guest's kernel started in this QEMU run (a reboot makes it two). */
export function kernelBoots(dir: string): number {
  if (!existsSync(consoleLog(dir))) return 0;
  return (readFileSync(consoleLog(dir), 'utf8').match(/Linux version \d/g) ?? []).length;
}

/** What the guest's systemd is doing, from the console log's last unit line (progress for `up`). */
export function guestStep(dir: string): string {
  if (!existsSync(consoleLog(dir))) return 'QEMU starting';
  const text = readFileSync(consoleLog(dir), 'utf8').slice(-8_000);
  // eslint-disable-next-line no-control-regex -- the console's colours are escape sequences
  const plain = text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  const steps = [
    ...plain.matchAll(/(Starting|Started|Finished|Reached target) [^\n]*? - ([^\n.]+)/g),
  ];
  const step = steps.at(-1);
  return step ? `${step[1]} ${step[2]?.trim()}` : 'kernel and init starting';
}
