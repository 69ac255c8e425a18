/**
 * `npm run images`' checks that need no build: the size budgets, a missing tool named with its
 * Debian package, and bad flags refused with what the choices are.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { overBudget, type BuiltImage } from '../../../scripts/images/build.js';
import { IMAGES, REPO_ROOT, imageNamed } from '../../../scripts/images/spec.js';
import { requireTool } from '../../../scripts/images/tools.js';

const MiB = 1024 * 1024;
const built = (name: string, amd64MiB: number, arm64MiB: number): BuiltImage => ({
  spec: imageNamed(name),
  file: `${name}.oci.tar`,
  sbom: `${name}.cdx.json`,
  platforms: [
    {
      arch: 'amd64',
      manifest: { mediaType: '', digest: '', size: 0 },
      compressedBytes: amd64MiB * MiB,
      uncompressedBytes: 0,
    },
    {
      arch: 'arm64',
      manifest: { mediaType: '', digest: '', size: 0 },
      compressedBytes: arm64MiB * MiB,
      uncompressedBytes: 0,
    },
  ],
});

describe('npm run images: checks', () => {
  it('the budgets: 120 MiB for the CLI image, 15 MiB for the agent, per platform', () => {
    assert.deepEqual(
      overBudget([built('kubemaint', 120, 60), built('kubemaint-agent', 9, 15)]),
      [],
    );
    assert.deepEqual(overBudget([built('kubemaint', 52, 121), built('kubemaint-agent', 15.5, 9)]), [
      'kubemaint arm64 is 121.0 MiB compressed, over its budget of 120 MiB',
      'kubemaint-agent amd64 is 15.5 MiB compressed, over its budget of 15 MiB',
    ]);
  });

  it('a missing tool is one line naming the Debian package to install', () => {
    const path = process.env['PATH'];
    process.env['PATH'] = mkdtempSync(join(tmpdir(), 'kubemaint-empty-path-'));
    try {
      assert.throws(() => requireTool('mmdebstrap'), {
        name: 'ImageBuildError',
        message:
          'mmdebstrap is missing: install the Debian package mmdebstrap (apt-get install mmdebstrap)',
      });
      assert.throws(
        () => requireTool('qemu-aarch64-static'),
        /install the Debian package qemu-user-static/,
      );
      assert.throws(() => requireTool('readelf'), /install the Debian package binutils/);
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('an unknown platform or image is refused with the choices, before anything is built', () => {
    const images = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/images/main.ts', ...args], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      });
    const platform = images(
      'build',
      '--platform',
      'linux/riscv64',
      '--no-bundle',
      '--out',
      tmpdir(),
    );
    assert.notEqual(platform.status, 0);
    assert.match(
      platform.stderr,
      /riscv64 is not a platform the images are built for \(amd64, arm64\)/,
    );
    const image = images('rootfs', 'kubemaint-web', '--arch', 'amd64', '--out', tmpdir());
    assert.notEqual(image.status, 0);
    assert.match(
      image.stderr,
      new RegExp(
        `no image named kubemaint-web; the images are ${IMAGES.map((i) => i.name).join(', ')}`,
      ),
    );
  });
});
