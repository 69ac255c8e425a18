/**
 * An image's root file system, assembled in a folder from its spec: the Debian executables it names
 * with exactly the shared libraries they load (read from their ELF headers, so nothing else of Debian
 * comes along: no shell, no apt, no dpkg unless the spec asks), busybox's applets, Node.js, the
 * repository's files, the users, and V8's compile cache made by the image's own node. Both
 * `npm run images` and the Dockerfiles' build stage run this, so both give the same files.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { mergedUsr, ownerIndex, type DebianPackage, type DebianRoot } from './debian.js';
import type { NodeDist } from './node-dist.js';
import { targetName, type Arch, type ImageSpec } from './spec.js';
import { ImageBuildError, requireTool, run } from './tools.js';

const TRIPLET: Record<Arch, string> = { amd64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };
const QEMU: Record<Arch, 'qemu-x86_64-static' | 'qemu-aarch64-static'> = {
  amd64: 'qemu-x86_64-static',
  arm64: 'qemu-aarch64-static',
};

export function hostArch(): Arch | undefined {
  if (process.arch === 'x64') return 'amd64';
  if (process.arch === 'arm64') return 'arm64';
  return undefined;
}

export interface Rootfs {
  dir: string;
  arch: Arch;
  /** The Debian packages whose files the image holds. */
  packages: DebianPackage[];
}

export interface RootfsInputs {
  repo: string;
  debian: DebianRoot;
  node: NodeDist | undefined;
}

export function assembleRootfs(spec: ImageSpec, out: string, inputs: RootfsInputs): Rootfs {
  const { debian, node, repo } = inputs;
  rmSync(out, { recursive: true, force: true });
  for (const dir of ['etc', 'tmp', 'usr/bin', 'usr/sbin', 'usr/lib', 'usr/local/bin']) {
    mkdirSync(join(out, dir), { recursive: true });
  }
  // Debian 12's merged /usr: the ELF interpreter is /lib64/… (amd64) or /lib/… (arm64).
  for (const dir of ['bin', 'sbin', 'lib', ...(debian.arch === 'amd64' ? ['lib64'] : [])]) {
    mkdirSync(join(out, 'usr', dir), { recursive: true });
    symlinkSync(`usr/${dir}`, join(out, dir));
  }
  const owners = ownerIndex(debian.packages);
  const used = new Set<DebianPackage>();
  const copier = new DebianCopier(debian, out, (path) => {
    const owner = owners.get(path);
    if (owner) used.add(owner);
  });
  for (const binary of spec.debianBinaries) copier.add(binary);
  for (const applet of spec.busyboxApplets) symlinkSync('busybox', join(out, 'usr/bin', applet));
  if (node) {
    copyFileSync(join(node.dir, 'bin/node'), join(out, 'usr/local/bin/node'));
    chmodSync(join(out, 'usr/local/bin/node'), 0o755);
    copier.addLibrariesOf(join(out, 'usr/local/bin/node'), '/usr/local/bin/node');
    mkdirSync(join(out, 'usr/local/share/doc/node'), { recursive: true });
    copyFileSync(join(node.dir, 'LICENSE'), join(out, 'usr/local/share/doc/node/LICENSE'));
  }
  for (const file of spec.files) copyRepositoryFiles(spec, repo, file, out);
  // Each package's copyright file: the licences of what the image holds travel with it.
  for (const pkg of used) {
    const copyright = `/usr/share/doc/${pkg.name}/copyright`;
    if (pkg.files.includes(copyright)) copier.add(copyright);
  }
  writeUsers(spec, out);
  chmodSync(join(out, 'tmp'), 0o1777);
  const packages = [...used].sort((a, b) => a.name.localeCompare(b.name));
  return { dir: out, arch: debian.arch, packages };
}

/** Copies paths out of the Debian root, following links and ELF dependencies. */
class DebianCopier {
  private readonly copied = new Set<string>();
  private readonly debian: DebianRoot;
  private readonly out: string;
  private readonly onCopy: (imagePath: string) => void;
  constructor(debian: DebianRoot, out: string, onCopy: (imagePath: string) => void) {
    this.debian = debian;
    this.out = out;
    this.onCopy = onCopy;
  }

  add(path: string, neededBy?: string): void {
    const imagePath = mergedUsr(posix.normalize(path));
    if (this.copied.has(imagePath)) return;
    this.copied.add(imagePath);
    const source = this.locate(imagePath);
    if (!source) {
      throw new ImageBuildError(
        `${imagePath}${neededBy ? ` (needed by ${neededBy})` : ''} is in none of the Debian packages extracted for ${this.debian.arch}: add its package to debianPackages in scripts/images/spec.ts`,
      );
    }
    const target = join(this.out, imagePath);
    mkdirSync(dirname(target), { recursive: true });
    this.onCopy(imagePath);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) {
      const link = readlinkSync(source);
      symlinkSync(link, target);
      this.add(link.startsWith('/') ? link : posix.join(posix.dirname(imagePath), link), imagePath);
      return;
    }
    copyFileSync(source, target);
    chmodSync(target, stat.mode & 0o7777);
    this.addLibrariesOf(source, imagePath);
  }

  /** The ELF interpreter and every DT_NEEDED library of a file (none for a script or data). */
  addLibrariesOf(file: string, imagePath: string): void {
    if (!isElf(file)) return;
    const headers = run('readelf', ['--wide', '--dynamic', '--program-headers', file]);
    const interpreter = /Requesting program interpreter: ([^\]]+)\]/.exec(headers)?.[1];
    if (interpreter) this.add(interpreter, imagePath);
    for (const [, library] of headers.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)) {
      this.add(this.findLibrary(library!, imagePath), imagePath);
    }
  }

  private findLibrary(name: string, neededBy: string): string {
    const dirs = [`/usr/lib/${TRIPLET[this.debian.arch]}`, '/usr/lib'];
    const found = dirs.map((dir) => `${dir}/${name}`).find((path) => this.locate(path));
    if (!found) {
      throw new ImageBuildError(
        `${name} (needed by ${neededBy}) is in none of the Debian packages extracted for ${this.debian.arch}: add its package to debianPackages in scripts/images/spec.ts`,
      );
    }
    return found;
  }

  /** The extracted tree is not merged: /usr/lib/x may be at /lib/x there. */
  private locate(imagePath: string): string | undefined {
    const unmerged = imagePath.replace(/^\/usr\/(bin|sbin|lib|lib32|lib64|libx32)\//, '/$1/');
    return [imagePath, unmerged]
      .map((path) => join(this.debian.root, path))
      .find((path) => lstatExists(path));
  }
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isElf(file: string): boolean {
  const magic = Buffer.alloc(4);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, magic, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  return magic.toString('latin1') === '\x7fELF';
}

/** The names in the repository a `files` entry's `from` matches (`*` within its one folder). */
export function repositoryFiles(repo: string, from: string): { dir: string; names: string[] } {
  const dir = join(repo, dirname(from));
  const escaped = basename(from).replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const matcher = new RegExp(`^${escaped.replace(/\*/g, '.*')}$`);
  const names = existsSync(dir) ? readdirSync(dir).filter((name) => matcher.test(name)) : [];
  return { dir, names: names.sort() };
}

function copyRepositoryFiles(
  spec: ImageSpec,
  repo: string,
  file: ImageSpec['files'][number],
  out: string,
): void {
  const { dir, names } = repositoryFiles(repo, file.from);
  if (names.length === 0) {
    const hint = file.from.startsWith('dist/') ? ': run `npm run build` first' : '';
    throw new ImageBuildError(`${file.from} matches no file in ${repo}${hint}`);
  }
  const targetDir = join(out, file.to);
  mkdirSync(targetDir, { recursive: true });
  for (const name of names) {
    const target = join(targetDir, targetName(spec, name));
    copyFileSync(join(dir, name), target);
    chmodSync(target, file.mode ?? 0o644);
  }
}

function writeUsers(spec: ImageSpec, out: string): void {
  const { name, uid, gid } = spec.user;
  writeFileSync(
    join(out, 'etc/passwd'),
    `root:x:0:0:root:/root:/sbin/nologin\n${name}:x:${uid}:${gid}:${name}:/nonexistent:/sbin/nologin\n`,
  );
  writeFileSync(join(out, 'etc/group'), `root:x:0:\n${name}:x:${gid}:\n`);
  // Names from /etc/hosts first, then DNS (glibc's own default puts DNS first).
  writeFileSync(join(out, 'etc/nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
}

/**
 * V8's compiled code for the bundle, made by the image's own node inside its root (a foreign
 * architecture's node under qemu-user). Node keeps one cache folder per uid (…-<uid>), so it is made
 * for root, whom the executor Job runs as, and for the image's user, whom serve runs as; a user
 * without its own folder compiles everything at each start.
 */
export function makeCompileCache(spec: ImageSpec, rootfs: Rootfs): void {
  const cache = spec.compileCache;
  if (!cache) return;
  const emulator = rootfs.arch === hostArch() ? undefined : requireTool(QEMU[rootfs.arch]);
  const prefix: string[] = [];
  if (emulator) {
    copyFileSync(emulator, join(rootfs.dir, 'tmp/.qemu'));
    chmodSync(join(rootfs.dir, 'tmp/.qemu'), 0o755);
    prefix.push('/tmp/.qemu');
  }
  const dir = join(rootfs.dir, cache.dir);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777);
  const env = { ...spec.env, NODE_COMPILE_CACHE: cache.dir, HOME: '/tmp' };
  try {
    for (const user of [{ uid: 0, gid: 0 }, spec.user]) {
      const node = [...prefix, '/usr/local/bin/node'];
      inRoot(rootfs.dir, user, [...node, '-e', cache.warm], env);
      inRoot(rootfs.dir, user, [...node, `${spec.workdir}/cli.mjs`, '--version'], env);
    }
  } finally {
    rmSync(join(rootfs.dir, 'tmp/.qemu'), { force: true });
  }
  chmodSync(dir, 0o755);
  run('sh', ['-c', 'chmod -R a+rX,go-w "$1"', 'sh', dir]);
}

/**
 * Runs argv as uid:gid with dir as its root: chroot when we are root (a Docker build stage may
 * create no user namespace), else a user namespace that maps us to that uid.
 */
export function inRoot(
  dir: string,
  user: { uid: number; gid: number },
  argv: string[],
  env: Record<string, string>,
): string {
  const options = { env, cwd: '/' };
  if (process.getuid?.() === 0) {
    return run('chroot', [`--userspec=${user.uid}:${user.gid}`, dir, ...argv], options);
  }
  const map = [`--map-user=${user.uid}`, `--map-group=${user.gid}`];
  return run('unshare', ['--user', ...map, `--root=${dir}`, ...argv], options);
}
