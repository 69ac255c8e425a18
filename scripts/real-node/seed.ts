/**
 * A node's seed disk: the small second disk that makes one shared disk image a particular node — its
 * name and kubelet port, its client certificate (CN=system:node:<name>, O=system:nodes, signed by the
 * control plane's CA) and the SSH key that may log in. Made fresh at every `up` with `mke2fs -d`, so a
 * control plane with a new CA needs no new node disk. (The images are in the node disk: preload.ts.)
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEED_LABEL } from './guest.js';
import { run } from './run.js';

export interface SeedSpec {
  name: string;
  kubeletPort: number;
  caCert: string;
  clientCert: string;
  clientKey: string;
  /** The public key `ssh NAME` logs in with. */
  authorizedKey: string;
}

/** Writes `<nodeDir>/seed.img`; returns its path. */
export async function makeSeed(nodeDir: string, spec: SeedSpec): Promise<string> {
  const tree = join(nodeDir, 'seed');
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  writeFileSync(
    join(tree, 'kubelet.env'),
    `NODE_NAME=${spec.name}\nKUBELET_PORT=${spec.kubeletPort}\n`,
  );
  copyFileSync(spec.caCert, join(tree, 'ca.crt'));
  copyFileSync(spec.clientCert, join(tree, 'kubelet-client.crt'));
  copyFileSync(spec.clientKey, join(tree, 'kubelet-client.key'));
  copyFileSync(spec.authorizedKey, join(tree, 'authorized_keys'));
  const image = join(nodeDir, 'seed.img');
  rmSync(image, { force: true });
  // ext2 (no journal: the guest mounts it read-only); a few small files.
  await run('mke2fs', ['-q', '-F', '-t', 'ext2', '-L', SEED_LABEL, '-d', tree, image, '4M'], {
    logPath: join(nodeDir, 'seed.log'),
    what: 'mke2fs -d (the seed disk)',
    needs: 'apt-get install e2fsprogs',
  });
  rmSync(tree, { recursive: true, force: true });
  return image;
}
