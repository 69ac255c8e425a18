/**
 * The images a node disk carries, imported at host speed by a private containerd (preload.ts) and made
 * into an ext4 image with mke2fs -d, read back with debugfs (no mount, no VM): containerd's metadata
 * and the unpacked overlayfs layers are where the guest's containerd looks, with the overlay whiteout
 * that deletes a file in an upper layer kept as the character device overlayfs needs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RealClusterError } from '../../../scripts/real-cluster/errors.js';
import { importArgs, preloadConfig, preloadImages } from '../../../scripts/real-node/preload.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-preload-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const tar = (args: string[]) =>
  execFileSync('tar', ['--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', ...args]);
const debugfs = (image: string, request: string) =>
  execFileSync('debugfs', ['-R', request, image], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });

/** A two-layer docker-archive: the first writes /hello and /keep, the second deletes /hello. */
function twoLayerArchive(name: string): string {
  const work = join(dir, 'image');
  mkdirSync(join(work, 'one'), { recursive: true });
  mkdirSync(join(work, 'two'), { recursive: true });
  writeFileSync(join(work, 'one', 'hello'), 'hello from layer one\n');
  writeFileSync(join(work, 'one', 'keep'), 'kept\n');
  writeFileSync(join(work, 'two', '.wh.hello'), '');
  tar(['-cf', join(work, 'one.tar'), '-C', join(work, 'one'), 'hello', 'keep']);
  tar(['-cf', join(work, 'two.tar'), '-C', join(work, 'two'), '.wh.hello']);
  const diffIds = ['one.tar', 'two.tar'].map(
    (f) => `sha256:${sha256(readFileSync(join(work, f)))}`,
  );
  const config = JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: ['/keep'] },
    rootfs: { type: 'layers', diff_ids: diffIds },
  });
  writeFileSync(join(work, 'config.json'), config);
  writeFileSync(
    join(work, 'manifest.json'),
    JSON.stringify([{ Config: 'config.json', RepoTags: [name], Layers: ['one.tar', 'two.tar'] }]),
  );
  const archive = join(dir, 'two-layers.tar');
  tar(['-cf', archive, '-C', work, 'manifest.json', 'config.json', 'one.tar', 'two.tar']);
  return archive;
}

describe("the images in a node disk's containerd", () => {
  it("the private daemon owns the tree's containerd root, a private socket, and no CRI", () => {
    const config = preloadConfig('/t/var/lib/containerd', '/tmp/km-ctrd-x');
    assert.match(config, /^root = "\/t\/var\/lib\/containerd"$/m);
    assert.match(config, /^state = "\/tmp\/km-ctrd-x"$/m);
    assert.match(config, /^ {2}address = "\/tmp\/km-ctrd-x\/containerd.sock"$/m);
    assert.match(config, /^disabled_plugins = \["io.containerd.grpc.v1.cri"\]$/m);
    assert.deepEqual(importArgs('/s.sock', '/a.tar').slice(0, 4), [
      '--address',
      '/s.sock',
      '--namespace',
      'k8s.io',
    ]);
    assert.ok(importArgs('/s.sock', '/a.tar').join(' ').includes('--snapshotter overlayfs'));
  });

  it('are imported, unpacked into overlayfs and kept by mke2fs -d, whiteout included', async () => {
    const tree = join(dir, 'tree');
    mkdirSync(tree, { recursive: true });
    const logPath = join(dir, 'preload.log');
    await preloadImages({
      tree,
      archives: [twoLayerArchive('kubemaint.local/two-layers:1')],
      logPath,
      // The machine's containerd package (the node's own is in its root file system).
      binDir: '/usr/bin',
    });
    const image = join(dir, 'disk.img');
    execFileSync('mke2fs', [
      '-q',
      '-F',
      '-t',
      'ext4',
      '-E',
      'root_owner=0:0',
      '-d',
      tree,
      image,
      '64M',
    ]);
    const root = '/var/lib/containerd';
    assert.match(debugfs(image, `ls -l ${root}/io.containerd.metadata.v1.bolt`), /meta\.db/);
    const meta = debugfs(image, `cat ${root}/io.containerd.metadata.v1.bolt/meta.db`);
    assert.ok(meta.includes('kubemaint.local/two-layers:1'), 'the image record is in meta.db');
    assert.ok(meta.includes('k8s.io'), "the image is in the CRI's namespace");
    const snapshots = `${root}/io.containerd.snapshotter.v1.overlayfs/snapshots`;
    // `ls -p`: one /inode/mode/uid/gid/name/size/ line per entry.
    const ids = debugfs(image, `ls -p ${snapshots}`)
      .split('\n')
      .map((line) => line.split('/')[5] ?? '')
      .filter((name) => /^\d+$/.test(name))
      .sort();
    assert.deepEqual(ids, ['1', '2'], 'one committed snapshot per layer');
    assert.equal(debugfs(image, `cat ${snapshots}/1/fs/hello`), 'hello from layer one\n');
    assert.equal(debugfs(image, `cat ${snapshots}/1/fs/keep`), 'kept\n');
    const whiteout = debugfs(image, `stat ${snapshots}/2/fs/hello`);
    assert.match(whiteout, /Type: character special/);
    assert.match(whiteout, /Device major\/minor number: 00:00/);
  });

  it('a tree without containerd: one line naming what is missing', async () => {
    await assert.rejects(
      preloadImages({ tree: join(dir, 'empty'), archives: [], logPath: join(dir, 'x.log') }),
      (error: unknown) =>
        error instanceof RealClusterError &&
        /^no containerd at .*empty\/usr\/bin\/containerd to import the images with/.test(
          error.message,
        ),
    );
  });
});
