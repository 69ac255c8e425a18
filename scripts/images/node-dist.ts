/**
 * Node.js for an image: the npm registry's `node-linux-<arch>` package at the version package-lock
 * pins for the `node` devDependency (what the tests run on), fetched with `npm pack` once per version
 * and architecture into the cache.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Arch } from './spec.js';
import { cacheRoot, run, say } from './tools.js';

const NPM_ARCH: Record<Arch, string> = { amd64: 'x64', arm64: 'arm64' };

export interface NodeDist {
  /** The unpacked package: bin/node, LICENSE. */
  dir: string;
  packageName: string;
  version: string;
}

export function nodeDist(arch: Arch, version: string): NodeDist {
  const packageName = `node-linux-${NPM_ARCH[arch]}`;
  const dir = join(cacheRoot(), 'node', version, packageName);
  if (!existsSync(join(dir, 'bin/node'))) {
    say(`fetching ${packageName}@${version} from the npm registry (once per version)`);
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    const tarball = run('npm', [
      'pack',
      `${packageName}@${version}`,
      '--pack-destination',
      staging,
      '--silent',
    ]).trim();
    run('tar', ['-xzf', join(staging, tarball), '-C', staging, '--strip-components=1']);
    rmSync(join(staging, tarball));
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  return { dir, packageName, version };
}
