/**
 * An OCI image archive written from assembled root file systems: per platform a manifest with its
 * gzipped layers and config, one image index over the platforms, and index.json naming it the way
 * BuildKit's OCI exporter does: `org.opencontainers.image.ref.name` is the tag (skopeo's
 * `oci-archive:FILE:TAG`), `io.containerd.image.name` the full name (`ctr images import` takes it as
 * is, so the kubelet finds the image by the name the chart and infra/k8s use). Layers are made with
 * GNU tar from sorted paths with fixed owners and times, so the same files give the same digests.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Rootfs } from './rootfs.js';
import type { Arch, ImageSpec } from './spec.js';
import { ImageBuildError, requireTool, run } from './tools.js';

export const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string; variant?: string };
  annotations?: Record<string, string>;
}

export interface PlatformImage {
  arch: Arch;
  manifest: Descriptor;
  /** Bytes a node downloads: the config and the gzipped layers. */
  compressedBytes: number;
  /** The layers unpacked. */
  uncompressedBytes: number;
}

export interface ImageMeta {
  version: string;
  labels: Record<string, string>;
  /** Seconds since 1970: every file's mtime and the config's `created` (the commit's time). */
  epoch: number;
}

/** GNU tar creating with sorted names, owner 0 and one time: the same files give the same bytes. */
function reproducibleTar(epoch: number): string[] {
  return [
    '--create',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    '--sort=name',
    `--mtime=@${epoch}`,
    '--numeric-owner',
    '--owner=0',
    '--group=0',
  ];
}

class Layout {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(join(dir, 'blobs/sha256'), { recursive: true });
    writeFileSync(join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  }

  json(mediaType: string, value: unknown, extra: Partial<Descriptor> = {}): Descriptor {
    const bytes = Buffer.from(JSON.stringify(value));
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    writeFileSync(join(this.dir, 'blobs/sha256', digest.slice(7)), bytes);
    return { mediaType, digest, size: bytes.length, ...extra };
  }

  /** A gzipped tar of `entries` (top-level names under root): its descriptor and diff ID. */
  async layer(root: string, entries: string[], epoch: number) {
    const tar = spawn(
      requireTool('tar'),
      [...reproducibleTar(epoch), '-C', root, '--', ...entries],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => tar.on('close', resolve));
    const diffId = createHash('sha256');
    const digest = createHash('sha256');
    let uncompressed = 0;
    let size = 0;
    const partial = join(this.dir, `blobs/sha256/.partial-${process.pid}`);
    await pipeline(
      tar.stdout,
      counting(diffId, (n) => (uncompressed += n)),
      createGzip({ level: 9 }),
      counting(digest, (n) => (size += n)),
      createWriteStream(partial),
    );
    const code = await exited;
    if (code !== 0)
      throw new ImageBuildError(`tar of ${root} failed (exit ${String(code)}): ${stderr.trim()}`);
    const hex = digest.digest('hex');
    renameSync(partial, join(this.dir, 'blobs/sha256', hex));
    return {
      descriptor: { mediaType: MEDIA.layer, digest: `sha256:${hex}`, size },
      diffId: `sha256:${diffId.digest('hex')}`,
      uncompressed,
    };
  }
}

function counting(hash: ReturnType<typeof createHash>, count: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      count(chunk.length);
      done(null, chunk);
    },
  });
}

/** The `config` of an image's configuration: what the Dockerfile's final stage sets too. */
export function imageConfig(spec: ImageSpec, labels: Record<string, string>) {
  return {
    User: `${spec.user.uid}:${spec.user.gid}`,
    Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
    Entrypoint: spec.entrypoint,
    ...(spec.cmd.length > 0 ? { Cmd: spec.cmd } : {}),
    WorkingDir: spec.workdir,
    Labels: labels,
  };
}

/** One platform's image: the base layer (Debian's files, Node.js) and, when the spec has one, the app's. */
async function platformImage(
  layout: Layout,
  spec: ImageSpec,
  rootfs: Rootfs,
  meta: ImageMeta,
): Promise<PlatformImage> {
  const top = readdirSync(rootfs.dir).sort();
  const groups = [top.filter((name) => !spec.appLayer.includes(name)), spec.appLayer];
  const layers = [];
  for (const entries of groups.filter((group) => group.length > 0)) {
    layers.push(await layout.layer(rootfs.dir, entries, meta.epoch));
  }
  const created = new Date(meta.epoch * 1000).toISOString();
  const platform = {
    architecture: rootfs.arch,
    os: 'linux',
    ...(rootfs.arch === 'arm64' ? { variant: 'v8' } : {}),
  };
  const config = layout.json(MEDIA.config, {
    created,
    ...platform,
    config: imageConfig(spec, meta.labels),
    rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.diffId) },
    history: layers.map((_, i) => ({
      created,
      created_by: `npm run images (scripts/images): ${i === 0 ? 'base' : 'app'} layer`,
    })),
  });
  const manifest = layout.json(
    MEDIA.manifest,
    {
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config,
      layers: layers.map((layer) => layer.descriptor),
      annotations: meta.labels,
    },
    { platform },
  );
  return {
    arch: rootfs.arch,
    manifest,
    compressedBytes: config.size + layers.reduce((sum, layer) => sum + layer.descriptor.size, 0),
    uncompressedBytes: layers.reduce((sum, layer) => sum + layer.uncompressed, 0),
  };
}

/** Writes `<out>/<name>-<version>.oci.tar` from one root file system per platform. */
export async function writeArchive(
  spec: ImageSpec,
  rootfses: Rootfs[],
  meta: ImageMeta,
  out: string,
): Promise<{ file: string; platforms: PlatformImage[] }> {
  const dir = join(out, `.${spec.name}.layout`);
  rmSync(dir, { recursive: true, force: true });
  const layout = new Layout(dir);
  const platforms: PlatformImage[] = [];
  for (const rootfs of rootfses) platforms.push(await platformImage(layout, spec, rootfs, meta));
  const index = layout.json(MEDIA.index, {
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: platforms.map((p) => p.manifest),
    annotations: meta.labels,
  });
  writeFileSync(
    join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.index,
      manifests: [
        {
          ...index,
          annotations: {
            'org.opencontainers.image.ref.name': meta.version,
            'io.containerd.image.name': `${spec.repository}:${meta.version}`,
          },
        },
      ],
    }),
  );
  const file = join(out, `${spec.name}-${meta.version}.oci.tar`);
  run('tar', [
    ...reproducibleTar(meta.epoch),
    '--file',
    `${file}.partial`,
    '-C',
    dir,
    'oci-layout',
    'index.json',
    'blobs',
  ]);
  renameSync(`${file}.partial`, file);
  rmSync(dir, { recursive: true, force: true });
  return { file, platforms };
}
