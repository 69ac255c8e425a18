/**
 * The node disk cache keeps the newest few images of each kind: every image or guest change makes a
 * new one of about 1 GB, and a kept CI machine must not fill its disk with them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pruneOlderDisks } from '../../../scripts/real-node/disk.js';

describe('the node disk cache is pruned to the newest images of each kind', () => {
  const cache = mkdtempSync(join(tmpdir(), 'kubemaint-disks-'));
  after(() => rmSync(cache, { recursive: true, force: true }));
  const disk = (name: string, builtAt?: string) => {
    mkdirSync(join(cache, name), { recursive: true });
    if (builtAt) writeFileSync(join(cache, name, 'disk.json'), JSON.stringify({ builtAt }));
    return join(cache, name);
  };

  it('keeps the three newest finished images of one kind, other kinds and builds in progress', () => {
    disk('disk-v1.34.4-aaaaaaaaaaa1', '2026-12-01T10:00:00.000Z');
    disk('disk-v1.34.4-aaaaaaaaaaa2', '2026-12-02T10:00:00.000Z');
    disk('disk-v1.34.4-aaaaaaaaaaa3', '2026-12-03T09:00:00.000Z');
    disk('disk-v1.34.4-aaaaaaaaaaa4', '2026-11-30T10:00:00.000Z');
    // Another process's build, not finished: never touched.
    disk('disk-v1.34.4-bbbbbbbbbbbb');
    // Other kinds: the kubeadm node of the same version, another version.
    disk('disk-v1.34.4-kubeadm-cccccccccccc', '2026-11-01T10:00:00.000Z');
    disk('disk-v1.33.13-dddddddddddd', '2026-11-01T10:00:00.000Z');
    const made = disk('disk-v1.34.4-eeeeeeeeeeee', '2026-12-03T10:00:00.000Z');

    const removed = pruneOlderDisks(made);

    assert.deepEqual(
      removed.map((d) => d.slice(cache.length + 1)),
      ['disk-v1.34.4-aaaaaaaaaaa1', 'disk-v1.34.4-aaaaaaaaaaa4'],
    );
    assert.deepEqual(readdirSync(cache).sort(), [
      'disk-v1.33.13-dddddddddddd',
      'disk-v1.34.4-aaaaaaaaaaa2',
      'disk-v1.34.4-aaaaaaaaaaa3',
      'disk-v1.34.4-bbbbbbbbbbbb',
      'disk-v1.34.4-eeeeeeeeeeee',
      'disk-v1.34.4-kubeadm-cccccccccccc',
    ]);
  });
});
