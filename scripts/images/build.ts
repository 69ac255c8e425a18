/**
 * `npm run images`: every image for every platform, as OCI image archives in one folder, with an
 * SBOM beside each and the size budgets checked. The expensive inputs (Debian's files, Node.js) come
 * from the cache; what is left is assembling, V8's compile cache (under qemu-user for the foreign
 * platform) and gzip.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { debianRoot } from './debian.js';
import { nodeDist } from './node-dist.js';
import { writeArchive, type PlatformImage } from './oci.js';
import { assembleRootfs, makeCompileCache, type Rootfs } from './rootfs.js';
import { writeSbom } from './sbom.js';
import {
  labels,
  nodeVersion,
  packageVersion,
  REPO_ROOT,
  type Arch,
  type ImageSpec,
} from './spec.js';
import { ImageBuildError, run, say } from './tools.js';

const MiB = 1024 * 1024;

/** What a node downloads per platform, at most (BENCHMARKS.md). */
export const BUDGET_MIB: Record<string, number> = { kubemaint: 120, 'kubemaint-agent': 15 };

export interface BuildOptions {
  out: string;
  images: ImageSpec[];
  arches: readonly Arch[];
  refresh: boolean;
}

export interface BuiltImage {
  spec: ImageSpec;
  file: string;
  sbom: string;
  platforms: PlatformImage[];
}

/** The root file system of one image for one platform (also what the Dockerfiles' build stage runs). */
export function buildRootfs(spec: ImageSpec, arch: Arch, out: string, refresh = false): Rootfs {
  const debian = debianRoot(arch, spec.debianPackages, refresh);
  const node = spec.node ? nodeDist(arch, nodeVersion()) : undefined;
  say(`${spec.name} ${arch}: assembling the root file system`);
  const rootfs = assembleRootfs(spec, out, { repo: REPO_ROOT, debian, node });
  if (spec.compileCache) {
    say(`${spec.name} ${arch}: making V8's compile cache${arch === 'arm64' && process.arch !== 'arm64' ? ' (under qemu-user)' : ''}`);
    makeCompileCache(spec, rootfs);
  }
  return rootfs;
}

export async function buildImages(options: BuildOptions): Promise<BuiltImage[]> {
  const version = packageVersion();
  const meta = { version, ...commit() };
  mkdirSync(options.out, { recursive: true });
  const work = join(options.out, '.rootfs');
  const built: BuiltImage[] = [];
  for (const spec of options.images) {
    const rootfses = options.arches.map((arch) =>
      buildRootfs(spec, arch, join(work, `${spec.name}-${arch}`), options.refresh),
    );
    say(`${spec.name}: writing the OCI archive (gzip)`);
    const { file, platforms } = await writeArchive(
      spec,
      rootfses,
      { version, epoch: meta.epoch, labels: labels(spec, version, meta.revision) },
      options.out,
    );
    const sbom = writeSbom(spec, version, rootfses, options.out);
    built.push({ spec, file, sbom, platforms });
  }
  rmSync(work, { recursive: true, force: true });
  return built;
}

/** The build's revision and time: the checkout's commit, or `unknown` and now outside a checkout. */
function commit(): { revision: string; epoch: number } {
  try {
    const [revision = '', time = ''] = run('git', ['-C', REPO_ROOT, 'log', '-1', '--format=%H %ct'])
      .trim()
      .split(' ');
    return { revision, epoch: Number(time) };
  } catch {
    return { revision: 'unknown', epoch: Math.floor(Date.now() / 1000) };
  }
}

/** Problems with the size budgets, one line each. */
export function overBudget(built: BuiltImage[]): string[] {
  return built.flatMap(({ spec, platforms }) =>
    platforms
      .filter((p) => p.compressedBytes > (BUDGET_MIB[spec.name] ?? Infinity) * MiB)
      .map(
        (p) =>
          `${spec.name} ${p.arch} is ${(p.compressedBytes / MiB).toFixed(1)} MiB compressed, over its budget of ${BUDGET_MIB[spec.name]} MiB`,
      ),
  );
}

export function sizeTable(built: BuiltImage[]): string {
  const rows = built.flatMap(({ spec, platforms }) =>
    platforms.map(
      (p) =>
        `${`${spec.name} ${p.arch}`.padEnd(24)} ${(p.compressedBytes / MiB).toFixed(1).padStart(7)} MiB compressed ${(p.uncompressedBytes / MiB).toFixed(1).padStart(7)} MiB unpacked  (budget ${BUDGET_MIB[spec.name]} MiB)`,
    ),
  );
  return rows.join('\n');
}

export function writeSummary(built: BuiltImage[], out: string): void {
  const summary = built.map(({ spec, file, sbom, platforms }) => ({
    name: spec.name,
    reference: `${spec.repository}:${packageVersion()}`,
    file,
    sbom,
    platforms: platforms.map(({ arch, manifest, compressedBytes, uncompressedBytes }) => ({
      arch,
      manifest: manifest.digest,
      compressedBytes,
      uncompressedBytes,
    })),
  }));
  writeFileSync(join(out, 'images.json'), `${JSON.stringify(summary, null, 2)}\n`);
}

export { ImageBuildError };
