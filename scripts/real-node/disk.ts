/**
 * One node disk image per kubelet version and set of images: the cached Debian root file system, the
 * kubelet, the guest files (guest.ts) and the images already imported into containerd (preload.ts),
 * made into a sparse ext4 image with `mke2fs -d` — no loop mount (root for the import: it keeps owners
 * and makes overlay whiteouts' device nodes). The kernel and initrd are copied beside it for QEMU's direct kernel boot. The cache folder's
 * name carries a hash of everything that goes in (the images by their content's digest), so a changed
 * unit, configuration or image makes a new disk image and a kept machine rebuilds nothing.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { withLock } from '../real-cluster/lock.js';
import { RealClusterError } from '../real-cluster/errors.js';
import { enabledUnits, guestFiles, LOCAL_CA_FILE, type KubeadmNode } from './guest.js';
import { nodeCacheDir } from './paths.js';
import { preloadImages } from './preload.js';
import { run } from './run.js';
import type { Rootfs } from './rootfs.js';

/** The image's size; sparse, so only what is written takes room. */
const DISK_SIZE = '6G';

export interface NodeDisk {
  image: string;
  kernel: string;
  initrd: string;
  info: {
    kubelet: string;
    /** Archive file name → the sha256 of its content, as imported into the disk's containerd. */
    images: Record<string, string>;
    seconds: number;
    importSeconds: number;
    builtAt: string;
  };
}

/** The sha256 of each archive's content, by file name (what the disk's cache key and info record). */
export function imageDigests(archives: string[]): Record<string, string> {
  return Object.fromEntries(
    archives.map((archive) => [
      basename(archive),
      createHash('sha256').update(readFileSync(archive)).digest('hex'),
    ]),
  );
}

/** What goes into a disk image besides the root file system and the images. */
export interface DiskKubelet {
  /** `v1.34.4`: the kubelet's version. */
  kubernetes: string;
  /** The binaries' build stamp (a rebuilt kubelet makes a new disk). */
  builtAt: string;
  /** A standalone node: this kubelet binary at /usr/bin/kubelet, run by kubemaint's own unit. */
  binary?: string;
  /** A kubeadm node: these packages (kubelet, kubeadm, kubectl `.deb`s) installed with dpkg and held. */
  kubeadm?: { node: KubeadmNode; debs: string[] };
}

function diskRoot(kubelet: DiskKubelet, rootfs: Rootfs, images: Record<string, string>): string {
  const kubeadm = kubelet.kubeadm !== undefined;
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        files: guestFiles(kubelet.kubeadm?.node),
        units: enabledUnits(kubeadm),
        DISK_SIZE,
        rootfs: rootfs.dir,
        images,
        debs: kubelet.kubeadm?.debs,
      }),
    )
    .update(kubelet.builtAt)
    .digest('hex')
    .slice(0, 12);
  return join(nodeCacheDir(), `disk-${kubelet.kubernetes}${kubeadm ? '-kubeadm' : ''}-${key}`);
}

/** Disk images of one kind (kubelet version, kubeadm or not) kept in the cache, the newest first. */
export const DISKS_KEPT = 3;

/**
 * Every change to the images or the guest files makes a new disk image (about 1 GB), so a kept
 * machine would fill its disk over a few dozen runs: keep the DISKS_KEPT newest of this one's kind
 * and remove the rest. Nodes run on copies (nodes.ts), so removing an image stops nothing; the two
 * kept beside the new one serve a checkout of an older commit that is still in use.
 */
export function pruneOlderDisks(root: string, keep = DISKS_KEPT): string[] {
  const kind = basename(root).replace(/-[0-9a-f]{12}$/, '');
  const sameKind = readdirSync(dirname(root))
    .filter((name) => name.replace(/-[0-9a-f]{12}$/, '') === kind && /-[0-9a-f]{12}$/.test(name))
    .map((name) => join(dirname(root), name))
    .map((dir) => ({ dir, built: cached(dir)?.info.builtAt }))
    // Only finished ones: a folder without disk.json may be another process's build in progress.
    .filter((d): d is { dir: string; built: string } => d.built !== undefined)
    .sort((a, b) => b.built.localeCompare(a.built));
  const removed = sameKind.slice(keep).filter((d) => d.dir !== root);
  for (const { dir } of removed) rmSync(dir, { recursive: true, force: true });
  return removed.map((d) => d.dir);
}

function cached(root: string): NodeDisk | undefined {
  const infoPath = join(root, 'disk.json');
  if (!existsSync(infoPath)) return undefined;
  return {
    image: join(root, 'disk.img'),
    kernel: join(root, 'vmlinuz'),
    initrd: join(root, 'initrd.img'),
    info: JSON.parse(readFileSync(infoPath, 'utf8')) as NodeDisk['info'],
  };
}

/** The newest file in the rootfs's /boot whose name starts with `prefix` (there is one kernel). */
function bootFile(tree: string, prefix: string): string {
  const name = readdirSync(join(tree, 'boot'))
    .filter((f) => f.startsWith(prefix))
    .sort()
    .at(-1);
  if (!name) {
    throw new RealClusterError(
      `the root file system at ${tree} has no /boot/${prefix}*: remove ${dirname(tree)} so it is made again`,
    );
  }
  return join(tree, 'boot', name);
}

/**
 * A kubeadm node's packages, installed as a person does before `kubeadm join`: dpkg (the packages have
 * no maintainer scripts) into the tree's own package database, held (`apt-mark hold`), and the local
 * CA added to the bundle apt's TLS reads, as update-ca-certificates would.
 */
async function installPackages(tree: string, debs: string[], logPath: string): Promise<void> {
  await run('dpkg', ['--root', tree, '--force-script-chrootless', '--install', ...debs], {
    logPath,
    what: "dpkg --install (the kubeadm node's packages)",
    needs: 'apt-get install dpkg',
  });
  await run(
    'sh',
    [
      '-c',
      'printf "kubelet hold\nkubeadm hold\nkubectl hold\n" | dpkg --root "$1" --set-selections',
      'sh',
      tree,
    ],
    { logPath, what: 'dpkg --set-selections (hold)', needs: 'apt-get install dpkg' },
  );
  const bundle = join(tree, 'etc/ssl/certs/ca-certificates.crt');
  writeFileSync(
    bundle,
    `${readFileSync(bundle, 'utf8').trimEnd()}\n${readFileSync(join(tree, LOCAL_CA_FILE), 'utf8')}`,
  );
}

/** `archives`: image archives (docker-archive or OCI tar) imported into the disk's containerd. */
export async function buildDisk(
  kubelet: DiskKubelet,
  rootfs: Rootfs,
  archives: string[],
  say: (line: string) => void,
): Promise<NodeDisk> {
  const images = imageDigests(archives);
  const root = diskRoot(kubelet, rootfs, images);
  const ready = cached(root);
  if (ready) return ready;
  mkdirSync(root, { recursive: true });
  return withLock(join(root, 'build.lock'), say, async () => {
    const again = cached(root);
    if (again) return again;
    const started = Date.now();
    const tree = join(root, 'tree.partial');
    const logPath = join(root, 'build.log');
    writeFileSync(logPath, '');
    rmSync(tree, { recursive: true, force: true });
    say(
      `making the ${kubelet.kubeadm ? 'kubeadm ' : ''}node disk image for kubelet ${kubelet.kubernetes} (log: ${logPath})`,
    );
    // A copy, so the shared root file system stays as mmdebstrap left it (reflinks where the disk can).
    await run('cp', ['-a', '--reflink=auto', rootfs.dir, tree], {
      logPath,
      what: 'copying the root file system',
      needs: 'coreutils',
    });
    for (const [path, file] of Object.entries(guestFiles(kubelet.kubeadm?.node))) {
      const target = join(tree, path);
      mkdirSync(dirname(target), { recursive: true });
      rmSync(target, { force: true });
      writeFileSync(target, file.content);
      chmodSync(target, file.mode);
    }
    for (const [unit, wantedBy] of enabledUnits(kubelet.kubeadm !== undefined)) {
      const wants = join(tree, 'etc/systemd/system', `${wantedBy}.wants`);
      mkdirSync(wants, { recursive: true });
      const link = join(wants, unit.split('/').at(-1) ?? unit);
      rmSync(link, { force: true });
      symlinkSync(unit, link);
    }
    if (kubelet.kubeadm) {
      await installPackages(tree, kubelet.kubeadm.debs, logPath);
    } else if (kubelet.binary) {
      copyFileSync(kubelet.binary, join(tree, 'usr/bin/kubelet'));
      chmodSync(join(tree, 'usr/bin/kubelet'), 0o755);
    }
    const importStarted = Date.now();
    say(`  importing ${archives.length} image(s) into the disk's containerd (a private daemon)`);
    await preloadImages({ tree, archives, logPath });
    const importSeconds = Math.round((Date.now() - importStarted) / 1000);
    const image = join(root, 'disk.img');
    await run(
      'mke2fs',
      [
        '-q',
        '-F',
        '-t',
        'ext4',
        '-L',
        'root',
        '-E',
        'root_owner=0:0',
        '-d',
        tree,
        `${image}.partial`,
        DISK_SIZE,
      ],
      { logPath, what: 'mke2fs -d (the node disk image)', needs: 'apt-get install e2fsprogs' },
    );
    copyFileSync(bootFile(tree, 'vmlinuz-'), join(root, 'vmlinuz'));
    copyFileSync(bootFile(tree, 'initrd.img-'), join(root, 'initrd.img'));
    renameSync(`${image}.partial`, image);
    rmSync(tree, { recursive: true, force: true });
    const info = {
      kubelet: kubelet.kubernetes,
      images,
      seconds: Math.round((Date.now() - started) / 1000),
      importSeconds,
      builtAt: new Date().toISOString(),
    };
    writeFileSync(join(root, 'disk.json'), `${JSON.stringify(info, null, 2)}\n`);
    for (const old of pruneOlderDisks(root)) say(`  removed an older disk image: ${old}`);
    say(
      `node disk image ready in ${info.seconds} s (images imported in ${importSeconds} s): ${image}`,
    );
    return { image, kernel: join(root, 'vmlinuz'), initrd: join(root, 'initrd.img'), info };
  });
}
