/**
 * The images go into the node disk's tree before `mke2fs -d`, already imported and unpacked: a private
 * containerd (the root file system's own binary, the very version the guest runs) whose root is the
 * tree's /var/lib/containerd and whose socket and state are a temporary folder, so it shares nothing with
 * any containerd of the machine. `ctr -n k8s.io images import` at host speed took ~5 s for the CLI,
 * agent and sandbox images; the same import inside a TCG guest at first boot took over 14 min for the CLI image alone.
 * The guest's containerd finds content, image records and overlayfs snapshots where it looks for them
 * (its metadata names snapshots by key; the snapshotter's paths are relative to its root).
 */
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RealClusterError } from '../real-cluster/errors.js';
import { run } from './run.js';

/** The namespace the CRI plugin (and so the kubelet) reads images from. */
export const CRI_NAMESPACE = 'k8s.io';

/**
 * The private daemon's configuration: the tree's containerd root, a private socket and state, and the
 * guest's snapshotter. CRI is off: it would set up pod networking, and the guest's CRI plugin lists
 * every image of its namespace when it starts.
 */
export function preloadConfig(root: string, state: string): string {
  return `version = 2
root = ${JSON.stringify(root)}
state = ${JSON.stringify(state)}
disabled_plugins = ["io.containerd.grpc.v1.cri"]

[grpc]
  address = ${JSON.stringify(join(state, 'containerd.sock'))}
[ttrpc]
  address = ${JSON.stringify(join(state, 'containerd.sock.ttrpc'))}
[debug]
  address = ""
[metrics]
  address = ""
`;
}

/** `--image` paths made absolute; one that is no file fails before anything starts or builds. */
export function imageArchives(paths: string[]): string[] {
  return paths.map((path) => {
    const absolute = resolve(path);
    if (!existsSync(absolute) || !statSync(absolute).isFile()) {
      throw new RealClusterError(
        `--image ${path}: no such file; name a docker-archive or OCI tar (npm run images -- build --out DIR makes kubemaint-<version>.oci.tar and kubemaint-agent-<version>.oci.tar)`,
      );
    }
    return absolute;
  });
}

/** `ctr`'s arguments for one archive: the CRI namespace, unpacked into overlayfs (the guest's snapshotter). */
export function importArgs(socket: string, archive: string): string[] {
  return [
    '--address',
    socket,
    '--namespace',
    CRI_NAMESPACE,
    'images',
    'import',
    '--snapshotter',
    'overlayfs',
    archive,
  ];
}

export interface PreloadOptions {
  /** The file system tree the disk image is made from. */
  tree: string;
  archives: string[];
  logPath: string;
  /** Where `containerd` and `ctr` are (default: the tree's /usr/bin, the guest's own version). */
  binDir?: string;
}

/** Imports every archive into `<tree>/var/lib/containerd`; the daemon is stopped before it returns. */
export async function preloadImages(options: PreloadOptions): Promise<void> {
  const binDir = options.binDir ?? join(options.tree, 'usr/bin');
  const containerd = join(binDir, 'containerd');
  if (!existsSync(containerd)) {
    throw new RealClusterError(
      `no containerd at ${containerd} to import the images with: the root file system lacks its containerd package`,
    );
  }
  // The socket's path must stay under the kernel's 108 bytes: a short temporary folder, not the tree.
  const state = mkdtempSync(join(tmpdir(), 'km-ctrd-'));
  const socket = join(state, 'containerd.sock');
  const configPath = join(state, 'config.toml');
  writeFileSync(configPath, preloadConfig(join(options.tree, 'var/lib/containerd'), state));
  const log = createWriteStream(options.logPath, { flags: 'a' });
  const daemon = spawn(containerd, ['--config', configPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon.stdout.pipe(log, { end: false });
  daemon.stderr.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) => daemon.on('close', resolve));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    const deadline = Date.now() + 30_000;
    while (!existsSync(socket)) {
      if (gone || Date.now() > deadline) {
        throw new RealClusterError(
          `the private containerd that imports the images did not start — log: ${options.logPath}`,
        );
      }
      await sleep(100);
    }
    for (const archive of options.archives) {
      await run(join(binDir, 'ctr'), importArgs(socket, archive), {
        logPath: options.logPath,
        what: `importing ${archive} into the node disk's containerd`,
        needs: 'the containerd package',
      });
    }
  } finally {
    // SIGTERM: containerd closes its bolt databases cleanly before it exits.
    if (!gone) daemon.kill('SIGTERM');
    // An unref'd timer: it must not keep the process alive once the daemon has gone.
    const code = await Promise.race([exited, sleep(30_000, 'timeout' as const, { ref: false })]);
    await new Promise<void>((resolve) => log.end(resolve));
    rmSync(state, { recursive: true, force: true });
    if (code === 'timeout') {
      daemon.kill('SIGKILL');
      // Killed mid-write, its databases cannot be trusted in a disk image.
      throw new RealClusterError(
        `the private containerd did not stop within 30 s of SIGTERM — log: ${options.logPath}`,
      );
    }
  }
}
