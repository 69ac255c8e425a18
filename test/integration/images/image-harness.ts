/**
 * The images as `npm run images` builds them (once per test run: its output is kept under the cache
 * and reused while its inputs are the same), unpacked per platform with skopeo and umoci (tools that
 * are not ours read what we wrote), and commands run in an unpacked root file system as the image
 * would run them: its user, environment and entrypoint, with chroot, the foreign platform under
 * qemu-user.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRoot } from '../../../scripts/images/tools.js';
import { REPO_ROOT, type Arch } from '../../../scripts/images/spec.js';

export interface Built {
  out: string;
  images: {
    name: string;
    reference: string;
    file: string;
    sbom: string;
    platforms: { arch: Arch; compressedBytes: number; uncompressedBytes: number }[];
  }[];
}

let built: Built | undefined;

/** `npm run images` into a folder of this checkout's own under the cache; its last line is that folder. */
export function buildImages(): Built {
  if (built) return built;
  const key = createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12);
  const wanted = join(cacheRoot(), 'test-out', key);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/images/main.ts', 'build', '--out', wanted],
    { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`npm run images failed:\n${result.stderr}`);
  const out = result.stdout.trim().split('\n').at(-1)!;
  const summary = JSON.parse(readFileSync(join(out, 'images.json'), 'utf8')) as {
    images: Built['images'];
  };
  built = { out, images: summary.images };
  return built;
}

export function tool(argv: string[], options: { input?: string } = {}): string {
  const result = spawnSync(argv[0]!, argv.slice(1), {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.status !== 0) {
    throw new Error(`${argv.join(' ')} failed (${String(result.status)}): ${result.stderr}`);
  }
  return result.stdout;
}

export interface Unpacked {
  arch: Arch;
  /** The folder holding it all, removed when the tests are done. */
  dir: string;
  rootfs: string;
  /** umoci's runtime config for it: the user, args (entrypoint + cmd) and environment it runs with. */
  process: { user: { uid: number; gid: number }; args: string[]; env: string[]; cwd: string };
}

/** One platform's image from an archive, unpacked by skopeo (to a one-platform layout) and umoci. */
export function unpack(archive: string, arch: Arch): Unpacked {
  const dir = mkdtempSync(join(tmpdir(), `kubemaint-image-${arch}-`));
  tool([
    'skopeo',
    'copy',
    '--quiet',
    `--override-arch=${arch}`,
    `oci-archive:${archive}`,
    `oci:${dir}/layout:image`,
  ]);
  tool(['umoci', 'unpack', '--image', `${dir}/layout:image`, `${dir}/bundle`]);
  const config = JSON.parse(readFileSync(`${dir}/bundle/config.json`, 'utf8')) as {
    process: Unpacked['process'];
  };
  const rootfs = `${dir}/bundle/rootfs`;
  // The devices a container runtime gives every container (the image has no /dev of its own).
  mkdirSync(join(rootfs, 'dev'), { recursive: true });
  for (const [name, minor] of [
    ['null', 3],
    ['zero', 5],
    ['random', 8],
    ['urandom', 9],
  ] as const) {
    tool(['mknod', '--mode=666', join(rootfs, 'dev', name), 'c', '1', String(minor)]);
  }
  return { arch, dir, rootfs, process: config.process };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const QEMU: Record<Arch, string> = { amd64: 'qemu-x86_64-static', arm64: 'qemu-aarch64-static' };
const HOST: Arch | undefined =
  process.arch === 'x64' ? 'amd64' : process.arch === 'arm64' ? 'arm64' : undefined;

/**
 * Runs argv in the image's root as its user (or `uid`), with its environment plus `env`. A foreign
 * platform's program runs under qemu-user copied into the root: the kernel here cannot run it, and
 * this machine has no binfmt_misc to hand it to qemu by itself.
 */
export function runIn(image: Unpacked, argv: string[], options: RunOptions = {}): Ran {
  const { args, env } = chrootCommand(image, argv, options);
  const result = spawnSync('chroot', args, {
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** runIn without blocking this process: for a program that talks to a server this process runs. */
export function runInAsync(
  image: Unpacked,
  argv: string[],
  options: RunOptions = {},
): Promise<Ran> {
  const { args, env } = chrootCommand(image, argv, options);
  const child = spawn('chroot', args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

export interface RunOptions {
  uid?: number;
  env?: Record<string, string>;
}

function chrootCommand(image: Unpacked, argv: string[], options: RunOptions) {
  const env = Object.fromEntries(image.process.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2)));
  Object.assign(env, options.env ?? {});
  let program = argv;
  if (image.arch !== HOST) {
    const qemu = join(image.rootfs, 'tmp', QEMU[image.arch]);
    if (!existsSync(qemu)) {
      copyFileSync(tool(['sh', '-c', `command -v ${QEMU[image.arch]}`]).trim(), qemu);
    }
    const path = resolveInImage(image, env['PATH'] ?? '', argv[0]!);
    program = [`/tmp/${QEMU[image.arch]}`, path, ...argv.slice(1)];
  }
  const uid = options.uid ?? image.process.user.uid;
  const gid = options.uid === undefined ? image.process.user.gid : options.uid;
  return { args: [`--userspec=${uid}:${gid}`, image.rootfs, ...program], env };
}

/** A command's path in the image, looked up on the image's PATH (qemu-user takes a path). */
function resolveInImage(image: Unpacked, path: string, command: string): string {
  if (command.startsWith('/')) return command;
  const dir = path.split(':').find((d) => existsSync(join(image.rootfs, d, command)));
  if (!dir) throw new Error(`${command} is on no folder of the image's PATH (${path})`);
  return `${dir}/${command}`;
}
