/**
 * A node's seed disk: the small second disk that makes one shared disk image a particular node — its
 * name and kubelet port, its client certificate (CN=system:node:<name>, O=system:nodes, signed by the
 * control plane's CA), the SSH key that may log in, and the image archives containerd imports. Made
 * fresh at every `up` with `mke2fs -d`, so a control plane with a new CA needs no new node disk.
 */
import { copyFileSync, linkSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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
  /** Image archives (docker-archive or OCI tars) for `ctr images import`. */
  images: string[];
}

/** Hard link when the file system allows (image archives are large), else a copy. */
function place(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target);
  }
}

/** Writes `<nodeDir>/seed.img`; returns its path. */
export async function makeSeed(nodeDir: string, spec: SeedSpec): Promise<string> {
  const tree = join(nodeDir, 'seed');
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(tree, 'images'), { recursive: true });
  writeFileSync(
    join(tree, 'kubelet.env'),
    `NODE_NAME=${spec.name}\nKUBELET_PORT=${spec.kubeletPort}\n`,
  );
  copyFileSync(spec.caCert, join(tree, 'ca.crt'));
  copyFileSync(spec.clientCert, join(tree, 'kubelet-client.crt'));
  copyFileSync(spec.clientKey, join(tree, 'kubelet-client.key'));
  copyFileSync(spec.authorizedKey, join(tree, 'authorized_keys'));
  let bytes = 0;
  for (const image of spec.images) {
    place(image, join(tree, 'images', basename(image)));
    bytes += statSync(image).size;
  }
  const image = join(nodeDir, 'seed.img');
  rmSync(image, { force: true });
  // ext2 (no journal: the guest mounts it read-only); room for the files plus the file system's own.
  const kib = Math.ceil((bytes * 1.1) / 1024) + 16 * 1024;
  await run('mke2fs', ['-q', '-F', '-t', 'ext2', '-L', SEED_LABEL, '-d', tree, image, `${kib}k`], {
    logPath: join(nodeDir, 'seed.log'),
    what: 'mke2fs -d (the seed disk)',
    needs: 'apt-get install e2fsprogs',
  });
  rmSync(tree, { recursive: true, force: true });
  return image;
}
