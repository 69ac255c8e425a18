/**
 * The node's root file system: Debian 12 made by `mmdebstrap` (no loop mounts, no chroot tricks of our
 * own), with Debian's cloud kernel, systemd, containerd and runc. It does not depend on the Kubernetes
 * version, so one copy serves every kubelet; it is cached under a name made from its package list, so a
 * changed list builds a new one and a kept machine builds nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withLock } from '../real-cluster/lock.js';
import { nodeCacheDir } from './paths.js';
import { run } from './run.js';

export const SUITE = 'bookworm';

/** What the node needs beyond minbase, and why (real-node.md "The recipe that worked"). */
export const PACKAGES = [
  // init, devices, the bus logind and the kubelet's shutdown inhibitor talk over
  'systemd',
  'systemd-sysv',
  'udev',
  'dbus',
  // the kernel and the initrd that loads virtio_blk (a module in the cloud kernel)
  'linux-image-cloud-amd64',
  'initramfs-tools',
  // the container runtime
  'containerd',
  'runc',
  'containernetworking-plugins',
  // what the kubelet and the CNI plugins call
  'iproute2',
  'iptables',
  'conntrack',
  'ethtool',
  'ca-certificates',
  'util-linux',
  'mount',
  'kmod',
  'procps',
  'netbase',
  'e2fsprogs',
  // the door `ssh NAME -- CMD` and the tests use
  'openssh-server',
] as const;

/** Debian's archives the rootfs is made from (the same ones the machine's apt uses). */
const MIRRORS = [
  `deb http://deb.debian.org/debian ${SUITE} main`,
  `deb http://deb.debian.org/debian ${SUITE}-updates main`,
  `deb http://deb.debian.org/debian-security ${SUITE}-security main`,
];

export interface Rootfs {
  dir: string;
  info: { suite: string; packages: string[]; seconds: number; builtAt: string };
}

const key = () =>
  createHash('sha256')
    .update(JSON.stringify({ SUITE, PACKAGES, MIRRORS }))
    .digest('hex')
    .slice(0, 12);

export function rootfsRoot(): string {
  return join(nodeCacheDir(), `rootfs-${SUITE}-${key()}`);
}

export function cachedRootfs(): Rootfs | undefined {
  const root = rootfsRoot();
  const infoPath = join(root, 'rootfs.json');
  if (!existsSync(infoPath) || !existsSync(join(root, 'tree', 'usr'))) return undefined;
  return { dir: join(root, 'tree'), info: JSON.parse(readFileSync(infoPath, 'utf8')) };
}

export async function buildRootfs(say: (line: string) => void): Promise<Rootfs> {
  const cached = cachedRootfs();
  if (cached) return cached;
  const root = rootfsRoot();
  mkdirSync(root, { recursive: true });
  return withLock(join(root, 'build.lock'), say, async () => {
    const again = cachedRootfs();
    if (again) return again;
    const started = Date.now();
    const scratch = join(root, 'tree.partial');
    const logPath = join(root, 'mmdebstrap.log');
    rmSync(scratch, { recursive: true, force: true });
    say(
      `making the node's Debian ${SUITE} root file system with mmdebstrap (~4 min; log: ${logPath})`,
    );
    await run(
      'mmdebstrap',
      [
        '--variant=minbase',
        `--include=${PACKAGES.join(',')}`,
        // No documentation or translations: a smaller image is a faster mke2fs and a faster boot.
        '--dpkgopt=path-exclude=/usr/share/doc/*',
        '--dpkgopt=path-exclude=/usr/share/man/*',
        '--dpkgopt=path-exclude=/usr/share/locale/*',
        '--dpkgopt=path-include=/usr/share/doc/*/copyright',
        SUITE,
        scratch,
        ...MIRRORS,
      ],
      { logPath, what: 'mmdebstrap', needs: 'apt-get install mmdebstrap' },
    );
    const dir = join(root, 'tree');
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
    const info = {
      suite: SUITE,
      packages: [...PACKAGES],
      seconds: Math.round((Date.now() - started) / 1000),
      builtAt: new Date().toISOString(),
    };
    writeFileSync(join(root, 'rootfs.json'), `${JSON.stringify(info, null, 2)}\n`);
    say(`root file system ready in ${info.seconds} s: ${dir}`);
    return { dir, info };
  });
}
