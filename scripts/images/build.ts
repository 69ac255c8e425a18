/**
 * `npm run images`: every image for every platform, as OCI image archives in one folder, with an
 * SBOM beside each and the size budgets checked. The expensive inputs (Debian's files, Node.js) come
 * from the cache; what is left is assembling, V8's compile cache (under qemu-user for the foreign
 * platform) and gzip.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { debianRoot } from './debian.js';
import { nodeDist } from './node-dist.js';
import { MEDIA, writeArchive, type PlatformImage } from './oci.js';
import { assembleRootfs, makeCompileCache, repositoryFiles, type Rootfs } from './rootfs.js';
import { writeSbom } from './sbom.js';
import {
  imageNamed,
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
    say(
      `${spec.name} ${arch}: making V8's compile cache${arch === 'arm64' && process.arch !== 'arm64' ? ' (under qemu-user)' : ''}`,
    );
    makeCompileCache(spec, rootfs);
  }
  return rootfs;
}

export async function buildImages(options: BuildOptions): Promise<BuiltImage[]> {
  const version = packageVersion();
  const meta = { version, ...commit() };
  mkdirSync(options.out, { recursive: true });
  const key = options.refresh ? undefined : inputsKey(options, meta);
  const kept = key ? keptBuild(options.out, key) : undefined;
  if (kept) {
    say(`${options.out} already holds these images from the same inputs: nothing to build`);
    return kept;
  }
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
  writeSummary(built, options.out, key ?? inputsKey(options, meta));
  return built;
}

/**
 * Everything an archive is made from: the commit, this build's code, each image's spec, Debian's
 * package versions, Node.js's version and the repository files copied in. The same key means the
 * archives in the folder are what a build would write again.
 */
function inputsKey(
  options: BuildOptions,
  meta: { version: string; revision: string; epoch: number },
): string {
  const hash = createHash('sha256').update(JSON.stringify({ ...meta, arches: options.arches }));
  for (const file of readdirSync(import.meta.dirname)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    hash.update(readFileSync(join(import.meta.dirname, file)));
  }
  for (const spec of options.images) {
    hash.update(JSON.stringify(spec));
    if (spec.node) hash.update(nodeVersion());
    for (const arch of options.arches) {
      hash.update(
        JSON.stringify(
          debianRoot(arch, spec.debianPackages, false).packages.map((p) => [p.name, p.version]),
        ),
      );
    }
    for (const file of spec.files) {
      const { dir, names } = repositoryFiles(REPO_ROOT, file.from);
      for (const name of names) hash.update(name).update(readFileSync(join(dir, name)));
    }
  }
  return hash.digest('hex');
}

/** The images a previous build left in `out` from the same inputs, if all its files are there. */
function keptBuild(out: string, key: string): BuiltImage[] | undefined {
  const summary = join(out, 'images.json');
  if (!existsSync(summary)) return undefined;
  const kept = JSON.parse(readFileSync(summary, 'utf8')) as { inputs?: string; images?: Summary[] };
  if (kept.inputs !== key || !kept.images) return undefined;
  if (!kept.images.every((image) => existsSync(image.file) && existsSync(image.sbom)))
    return undefined;
  return kept.images.map((image) => ({
    spec: imageNamed(image.name),
    file: image.file,
    sbom: image.sbom,
    platforms: image.platforms.map((p) => ({
      arch: p.arch,
      manifest: { mediaType: MEDIA.manifest, digest: p.manifest, size: 0 },
      compressedBytes: p.compressedBytes,
      uncompressedBytes: p.uncompressedBytes,
    })),
  }));
}

interface Summary {
  name: string;
  reference: string;
  file: string;
  sbom: string;
  platforms: { arch: Arch; manifest: string; compressedBytes: number; uncompressedBytes: number }[];
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

/** images.json in the folder: what was built, from which inputs (a later build with the same keeps it). */
function writeSummary(built: BuiltImage[], out: string, inputs: string): void {
  const images: Summary[] = built.map(({ spec, file, sbom, platforms }) => ({
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
  writeFileSync(join(out, 'images.json'), `${JSON.stringify({ inputs, images }, null, 2)}\n`);
}

export { ImageBuildError };
