/**
 * The node's seed disk as the guest reads it (an ext2 image made with mke2fs -d, read back here with
 * debugfs, no mount), and the one-line errors of a missing or failing tool.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RealClusterError } from '../../../scripts/real-cluster/errors.js';
import { makeSeed } from '../../../scripts/real-node/seed.js';
import { run } from '../../../scripts/real-node/run.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-real-node-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const debugfs = (image: string, request: string) =>
  execFileSync('debugfs', ['-R', request, image], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });

describe('the seed disk', () => {
  it("carries the node's name and kubelet port, its certificate and the SSH key, under the label the guest mounts", async () => {
    for (const name of ['ca.crt', 'node.crt', 'node.key', 'id.pub']) {
      writeFileSync(join(dir, name), `${name} content\n`);
    }
    const image = await makeSeed(join(dir), {
      name: 'kubemaint-vm-7',
      kubeletPort: 43250,
      caCert: join(dir, 'ca.crt'),
      clientCert: join(dir, 'node.crt'),
      clientKey: join(dir, 'node.key'),
      authorizedKey: join(dir, 'id.pub'),
    });
    assert.equal(
      debugfs(image, 'cat /kubelet.env'),
      'NODE_NAME=kubemaint-vm-7\nKUBELET_PORT=43250\n',
    );
    assert.equal(debugfs(image, 'cat /kubelet-client.key'), 'node.key content\n');
    assert.equal(debugfs(image, 'cat /kubelet-client.crt'), 'node.crt content\n');
    assert.equal(debugfs(image, 'cat /ca.crt'), 'ca.crt content\n');
    assert.equal(debugfs(image, 'cat /authorized_keys'), 'id.pub content\n');
    const label = execFileSync('e2label', [image], { encoding: 'utf8' }).trim();
    assert.equal(label, 'kmseed');
  });
});

describe('a tool the nodes need', () => {
  it('missing: one line that names it and how to install it', async () => {
    await assert.rejects(
      run('kubemaint-no-such-tool', [], {
        logPath: join(dir, 'x.log'),
        what: 'QEMU for vm-1',
        needs: 'apt-get install qemu-system-x86',
      }),
      (error: unknown) =>
        error instanceof RealClusterError &&
        /^kubemaint-no-such-tool is not installed: QEMU for vm-1 needs it \(apt-get install qemu-system-x86; scripts\/real-node\/deps\.sh installs/.test(
          error.message,
        ),
    );
  });

  it("failing: its exit code, its last line of output and the log's path", async () => {
    const logPath = join(dir, 'fail.log');
    await assert.rejects(
      run(
        'sh',
        ['-c', 'echo working; echo "mke2fs: Device size reported to be zero" >&2; exit 1'],
        {
          logPath,
          what: 'mke2fs -d (the seed disk)',
          needs: 'apt-get install e2fsprogs',
        },
      ),
      (error: unknown) =>
        error instanceof RealClusterError &&
        error.message ===
          `mke2fs -d (the seed disk) failed (exit 1): mke2fs: Device size reported to be zero — full log: ${logPath}`,
    );
  });
});

describe('npm run real-node with bad input', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/real-node/main.ts', ...args], {
      encoding: 'utf8',
    });

  it('refuses a node count outside 1…8 and a name prefix that is no DNS label, before starting anything', () => {
    const zero = cli('up', '--nodes', '0');
    assert.equal(zero.status, 1);
    assert.match(zero.stderr, /a whole number of nodes from 1 to 8/);
    const prefix = cli('up', '--name-prefix', 'Vm_1');
    assert.equal(prefix.status, 1);
    assert.match(prefix.stderr, /real-node: --name-prefix "Vm_1" is not a DNS label/);
  });

  it('an --image that is no file: named, with how to make the archives, before anything builds or starts', () => {
    for (const command of ['build', 'up']) {
      const result = cli(command, '--image', join(dir, 'no-such.oci.tar'));
      assert.equal(result.status, 1, command);
      assert.match(
        result.stderr,
        /^real-node: --image .*no-such\.oci\.tar: no such file; name a docker-archive or OCI tar \(npm run images/m,
        command,
      );
      assert.doesNotMatch(result.stderr, /control plane|making|building/, command);
    }
  });

  it('ssh to a node that is not up names the nodes that are', () => {
    const result = cli('--dir', join(dir, 'none'), 'ssh', 'kubemaint-vm-9', '--', 'true');
    assert.equal(result.status, 1);
    assert.match(result.stderr, /real-node: no node "kubemaint-vm-9" is up from /);
  });
});
