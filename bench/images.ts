/**
 * `npm run images` three ways: on a fresh machine (an empty cache: Debian's packages and Node.js
 * fetched), on a kept one (the cache full, a new output folder: the images assembled, compile caches
 * made, gzipped), and again into the same folder (inputs unchanged: nothing built). Wall and CPU time
 * of each (CPU from the build's child processes, which wander less than wall on a shared machine), and
 * each image's size per platform against its budget.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUDGET_MIB } from '../scripts/images/build.js';

export interface ImagesRun {
  name: string;
  wallS: number;
  cpuS: number;
}

export interface ImagesFigures {
  runs: ImagesRun[];
  images: {
    name: string;
    platforms: { arch: string; compressedBytes: number; uncompressedBytes: number }[];
  }[];
}

const MiB = 1024 * 1024;

/** One build; CPU is the children's user + system time as bash's `times` reports it. */
function build(name: string, out: string, cache: string): ImagesRun {
  const started = performance.now();
  const result = spawnSync(
    'bash',
    [
      '-c',
      'node --import tsx scripts/images/main.ts build --out "$1" >/dev/null || exit 1; times',
      'bash',
      out,
    ],
    { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } },
  );
  if (result.status !== 0) throw new Error(`npm run images (${name}) failed: ${result.stderr}`);
  const wallS = (performance.now() - started) / 1000;
  // `times`: the shell's own user/sys, then its children's ("0m41.2s 0m9.8s").
  const children = result.stdout.trim().split('\n').at(-1)!;
  const cpuS = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, [, m, s]) => sum + Number(m) * 60 + Number(s),
    0,
  );
  return { name, wallS: Math.round(wallS * 10) / 10, cpuS: Math.round(cpuS * 10) / 10 };
}

export function runImagesBench(): ImagesFigures {
  const cache = mkdtempSync(join(tmpdir(), 'kubemaint-images-cache-'));
  const first = mkdtempSync(join(tmpdir(), 'kubemaint-images-out-'));
  const second = mkdtempSync(join(tmpdir(), 'kubemaint-images-out-'));
  try {
    const runs = [
      build('fresh machine (empty cache)', first, cache),
      build('kept machine (cache full, new output folder)', second, cache),
      build('again, inputs unchanged', second, cache),
    ];
    const summary = JSON.parse(readFileSync(join(second, 'images.json'), 'utf8')) as {
      images: ImagesFigures['images'];
    };
    return { runs, images: summary.images };
  } finally {
    for (const dir of [cache, first, second]) rmSync(dir, { recursive: true, force: true });
  }
}

export function imagesTable(f: ImagesFigures): string {
  return [
    '| build | wall | CPU |',
    '| --- | ---: | ---: |',
    ...f.runs.map((r) => `| ${r.name} | ${r.wallS} s | ${r.cpuS} s |`),
    '',
    '| image | platform | compressed | unpacked | budget |',
    '| --- | --- | ---: | ---: | ---: |',
    ...f.images.flatMap((image) =>
      image.platforms.map(
        (p) =>
          `| ${image.name} | linux/${p.arch} | ${(p.compressedBytes / MiB).toFixed(1)} MiB | ${(p.uncompressedBytes / MiB).toFixed(1)} MiB | ${BUDGET_MIB[image.name]} MiB |`,
      ),
    ),
  ].join('\n');
}

/** Each image within its budget on every platform. */
export function imagesWithinBudget(f: ImagesFigures): boolean {
  return f.images.every((image) =>
    image.platforms.every((p) => p.compressedBytes <= (BUDGET_MIB[image.name] ?? 0) * MiB),
  );
}
