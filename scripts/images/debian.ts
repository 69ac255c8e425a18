/**
 * Debian's files for an image: the packages extracted with `mmdebstrap --variant=extract` (no
 * maintainer script runs, so a foreign architecture needs no emulation), kept per suite, architecture
 * and package set in the cache, with which package each file came from (for the SBOM and the
 * copyright files). A kept machine extracts nothing again; `--refresh` fetches Debian's newest.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DEBIAN_SUITE, type Arch } from './spec.js';
import { cacheRoot, run, say } from './tools.js';

export interface DebianPackage {
  name: string;
  version: string;
  architecture: string;
  /** Paths as the image has them (merged /usr: /lib/x is /usr/lib/x). */
  files: string[];
}

export interface DebianRoot {
  root: string;
  arch: Arch;
  packages: DebianPackage[];
}

const MIRRORS = [
  `deb http://deb.debian.org/debian ${DEBIAN_SUITE} main`,
  `deb http://deb.debian.org/debian ${DEBIAN_SUITE}-updates main`,
  `deb http://deb.debian.org/debian-security ${DEBIAN_SUITE}-security main`,
];

/** /bin, /sbin and /lib* are links into /usr in the image (Debian 12's merged /usr). */
export function mergedUsr(path: string): string {
  return path.replace(/^\/(bin|sbin|lib|lib32|lib64|libx32)(\/|$)/, '/usr/$1$2');
}

export function debianRoot(arch: Arch, packages: string[], refresh: boolean): DebianRoot {
  const key = createHash('sha256')
    .update([...packages].sort().join(','))
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheRoot(), 'debian', `${DEBIAN_SUITE}-${arch}-${key}`);
  const index = join(dir, 'packages.json');
  if (refresh) rmSync(dir, { recursive: true, force: true });
  if (!existsSync(index)) {
    say(`extracting Debian ${DEBIAN_SUITE} ${arch}: ${packages.join(', ')} (once per machine)`);
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    const root = join(staging, 'root');
    run('mmdebstrap', [
      '--quiet',
      '--variant=extract',
      `--architectures=${arch}`,
      `--include=${packages.join(',')}`,
      // The .debs stay: they say which package each file came from.
      '--skip=download/empty,cleanup/apt',
      DEBIAN_SUITE,
      root,
      ...MIRRORS,
    ]);
    writeFileSync(join(staging, 'packages.json'), JSON.stringify(listPackages(root)));
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  const listed = JSON.parse(readFileSync(index, 'utf8')) as DebianPackage[];
  return { root: join(dir, 'root'), arch, packages: listed };
}

function listPackages(root: string): DebianPackage[] {
  const archives = join(root, 'var/cache/apt/archives');
  return readdirSync(archives)
    .filter((file) => file.endsWith('.deb'))
    .sort()
    .map((file) => {
      const deb = join(archives, file);
      const fields = run('dpkg-deb', [
        '--show',
        '--showformat=${Package}\\t${Version}\\t${Architecture}',
        deb,
      ]).split('\t');
      const [name = '', version = '', architecture = ''] = fields;
      const files = run('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -t', 'sh', deb])
        .split('\n')
        .map((line) => mergedUsr(`/${line.replace(/^\.?\/*/, '')}`.replace(/\/$/, '')))
        .filter((path) => path !== '/');
      return { name, version, architecture, files };
    });
}

/** Which package a path in the image came from. */
export function ownerIndex(packages: DebianPackage[]): Map<string, DebianPackage> {
  const owners = new Map<string, DebianPackage>();
  for (const pkg of packages) for (const file of pkg.files) owners.set(file, pkg);
  return owners;
}
