/**
 * `npm run images -- [command]`: builds the images users deploy (see ./spec.ts) without a container
 * engine or a registry. Errors are one line and a non-zero exit; the last line of `build` is the
 * folder that holds the archives. Decisions: docs/adr/0037-images-assembled-from-debian-files-and-node-from-npm.md.
 */
import { Command, InvalidArgumentError } from 'commander';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildImages, buildRootfs, overBudget, sizeTable } from './build.js';
import { renderDockerfile } from './dockerfile.js';
import { ARCHES, IMAGES, imageNamed, REPO_ROOT, type Arch, type ImageSpec } from './spec.js';
import { ImageBuildError, run, say } from './tools.js';

function archList(raw: string): Arch[] {
  const arches = raw.split(',').map((a) => a.trim().replace(/^linux\//, ''));
  for (const arch of arches) {
    if (!(ARCHES as readonly string[]).includes(arch)) {
      throw new InvalidArgumentError(
        `${arch} is not a platform the images are built for (${ARCHES.join(', ')})`,
      );
    }
  }
  return arches as Arch[];
}

function imageList(raw: string) {
  try {
    return raw.split(',').map((name) => imageNamed(name.trim()));
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

const program = new Command('images')
  .description(
    'Build the images kubemaint deploys (the CLI image serve and the executor Job run, and the ' +
      'reporter agent) as OCI image archives for linux/amd64 and linux/arm64, without Docker or a ' +
      "registry: files from Debian's packages (mmdebstrap --variant=extract), Node.js from the npm " +
      "registry, this checkout's bundle. Debian's files and Node.js are cached per version under " +
      '$XDG_CACHE_HOME/kubemaint/images (else ~/.cache/kubemaint/images). Needs root (chroot) or ' +
      'user namespaces. Push with: skopeo copy --all oci-archive:FILE docker://REGISTRY/NAME:TAG',
  )
  .showHelpAfterError();

program
  .command('build', { isDefault: true })
  .description('build every image into --out; its last output line is that folder')
  .option('--out <dir>', 'folder for the archives, their SBOMs and images.json', 'dist/images')
  .option(
    '--platform <list>',
    `platforms, comma-separated (default: ${ARCHES.join(',')})`,
    archList,
  )
  .option(
    '--image <list>',
    `images, comma-separated (default: ${IMAGES.map((i) => i.name).join(',')})`,
    imageList,
  )
  .option('--refresh', "extract Debian's packages again (their newest security updates)", false)
  .option('--no-bundle', 'use dist/ as it is instead of running `npm run build` first')
  .action(
    async (options: {
      out: string;
      platform?: Arch[];
      image?: ImageSpec[];
      refresh: boolean;
      bundle: boolean;
    }) => {
      const started = performance.now();
      const out = resolve(options.out);
      if (options.bundle) {
        say('bundling the CLI (npm run build)');
        run('npm', ['run', '--silent', 'build'], {
          cwd: REPO_ROOT,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
      }
      const built = await buildImages({
        out,
        images: options.image ?? IMAGES,
        arches: options.platform ?? ARCHES,
        refresh: options.refresh,
      });
      process.stderr.write(`${sizeTable(built)}\n`);
      const problems = overBudget(built);
      if (problems.length > 0) throw new ImageBuildError(problems.join('; '));
      say(
        `done in ${((performance.now() - started) / 1000).toFixed(1)} s; push with skopeo copy --all oci-archive:FILE docker://REGISTRY/NAME:TAG`,
      );
      process.stdout.write(`${out}\n`);
    },
  );

program
  .command('rootfs')
  .description(
    "assemble one image's root file system into a folder (the Dockerfiles' build stage runs this)",
  )
  .argument(
    '<image>',
    `the image (${IMAGES.map((i) => i.name).join(', ')})`,
    (raw: string) => imageList(raw)[0]!,
  )
  .requiredOption('--arch <arch>', `the platform (${ARCHES.join(', ')})`)
  .requiredOption('--out <dir>', 'the folder to fill (emptied first)')
  .action((spec: ImageSpec, options: { arch: string; out: string }) => {
    const [arch] = archList(options.arch);
    buildRootfs(spec, arch!, resolve(options.out));
  });

program
  .command('dockerfiles')
  .description(
    'write infra/image/Dockerfile and infra/agent/Dockerfile from scripts/images/spec.ts',
  )
  .action(() => {
    for (const spec of IMAGES) {
      writeFileSync(join(REPO_ROOT, spec.dockerfile), renderDockerfile(spec));
      say(`wrote ${spec.dockerfile}`);
    }
  });

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof ImageBuildError || error instanceof InvalidArgumentError) {
    process.stderr.write(`images: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
