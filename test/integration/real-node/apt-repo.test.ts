/**
 * The test apt repository (apt-repo.ts) served as pkgs.k8s.io (pkgs-server.ts), asked by the machine's
 * own apt with a private state folder (nothing of the machine's apt is touched): the signed index
 * verifies with the test key and fails without it, the TLS certificate verifies against the test CA and
 * fails without it, and the `.deb`s hold what Kubernetes' packages hold where they hold it. The
 * binaries are small scripts standing in for the Go builds (a real build takes many minutes; the VM
 * test installs the real ones); what is tested is the packaging, signing and serving.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BuiltBinaries } from '../../../scripts/real-cluster/build.js';
import { parseKubernetesVersion } from '../../../scripts/real-cluster/versions.js';
import {
  type AptRepository,
  buildAptRepository,
  debFileName,
  KUBEADM_DROP_IN,
  type PackageName,
} from '../../../scripts/real-node/apt-repo.js';
import { pkgsTls, servePkgs, type PkgsServer } from '../../../scripts/real-node/pkgs-server.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-apt-repo-'));
const savedCache = process.env['XDG_CACHE_HOME'];
process.env['XDG_CACHE_HOME'] = join(dir, 'cache');
after(() => {
  if (savedCache === undefined) delete process.env['XDG_CACHE_HOME'];
  else process.env['XDG_CACHE_HOME'] = savedCache;
  rmSync(dir, { recursive: true, force: true });
});

const v133 = parseKubernetesVersion('1.33.13');
const v134 = parseKubernetesVersion('1.34.4');

/** Stand-ins for the built commands: each says its name and version like the real ones do. */
function binaries(version: string): BuiltBinaries<PackageName> {
  const bin = join(dir, `bin-${version}`);
  mkdirSync(bin, { recursive: true });
  const paths = {} as Record<PackageName, string>;
  for (const name of ['kubelet', 'kubeadm', 'kubectl'] as const) {
    paths[name] = join(bin, name);
    writeFileSync(paths[name], `#!/bin/sh\necho "${name} Kubernetes v${version}"\n`);
    chmodSync(paths[name], 0o755);
  }
  return {
    dir: bin,
    paths,
    info: { kubernetes: `v${version}`, go: 'test', seconds: 0, builtAt: `test-${version}` },
  };
}

/**
 * apt-get with every state and configuration path in `root`: the machine's apt is not touched. Not
 * spawnSync: the server answering it runs in this process.
 */
function apt(
  root: string,
  args: string[],
  options: { ca?: string } = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  const o = (k: string, v: string) => ['-o', `${k}=${v}`];
  return new Promise((resolve) => {
    execFile(
      'apt-get',
      [
        ...o('Dir::Etc::SourceList', join(root, 'sources.list')),
        ...o('Dir::Etc::SourceParts', join(root, 'sources.list.d')),
        ...o('Dir::Etc::Preferences', join(root, 'preferences')),
        ...o('Dir::Etc::PreferencesParts', join(root, 'preferences.d')),
        ...o('Dir::State', join(root, 'state')),
        ...o('Dir::State::status', join(root, 'status')),
        ...o('Dir::Cache', join(root, 'cache')),
        ...o('Debug::NoLocking', '1'),
        ...o('APT::Sandbox::User', 'root'),
        ...(options.ca ? o('Acquire::https::CaInfo', options.ca) : []),
        ...args,
      ],
      { cwd: root, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function aptRoot(name: string, source: string): string {
  const root = join(dir, name);
  for (const sub of [
    'sources.list.d',
    'preferences.d',
    'state/lists/partial',
    'cache/archives/partial',
  ])
    mkdirSync(join(root, sub), { recursive: true });
  writeFileSync(join(root, 'sources.list'), source);
  writeFileSync(join(root, 'status'), '');
  return root;
}

describe('the test apt repository served as pkgs.k8s.io', () => {
  let repo: AptRepository;
  let server: PkgsServer;
  const tls = () => pkgsTls(join(dir, 'tls'));
  const url = (minor: string) => `https://127.0.0.1:${server.port}/core:/stable:/v${minor}/deb/ /`;

  before(async () => {
    repo = await buildAptRepository(
      [
        { version: v133, binaries: binaries('1.33.13') },
        { version: v134, binaries: binaries('1.34.4') },
      ],
      () => undefined,
    );
    server = await servePkgs(repo.root, tls());
  });
  after(() => server.close());

  it("lays out one flat repository per minor with pkgs.k8s.io's names", () => {
    for (const [version, minor] of [
      [v133, '1.33'],
      [v134, '1.34'],
    ] as const) {
      const base = join(repo.root, 'core:', 'stable:', `v${minor}`, 'deb');
      assert.deepEqual(readdirSync(base).sort(), [
        'InRelease',
        'Packages',
        'Packages.gz',
        'Release',
        'Release.gpg',
        'Release.key',
        'amd64',
      ]);
      assert.deepEqual(readdirSync(join(base, 'amd64')).sort(), [
        debFileName('kubeadm', version),
        debFileName('kubectl', version),
        debFileName('kubelet', version),
      ]);
    }
    assert.equal(debFileName('kubelet', v134), 'kubelet_1.34.4-1.1_amd64.deb');
  });

  it('puts the unit in the kubelet package and the kubeadm drop-in in kubeadm’s', () => {
    const base = join(repo.root, 'core:', 'stable:', 'v1.34', 'deb', 'amd64');
    const contents = (name: PackageName) =>
      execFileSync('dpkg-deb', ['-c', join(base, debFileName(name, v134))], { encoding: 'utf8' });
    assert.match(contents('kubelet'), /\.\/usr\/bin\/kubelet\n/);
    assert.match(contents('kubelet'), /\.\/usr\/lib\/systemd\/system\/kubelet\.service\n/);
    assert.match(contents('kubeadm'), /\.\/usr\/bin\/kubeadm\n/);
    assert.match(contents('kubeadm'), /kubelet\.service\.d\/10-kubeadm\.conf\n/);
    assert.doesNotMatch(contents('kubelet'), /10-kubeadm\.conf/);
    const out = join(dir, 'x-kubeadm');
    execFileSync('dpkg-deb', ['-x', join(base, debFileName('kubeadm', v134)), out]);
    assert.equal(
      execFileSync('cat', [join(out, 'usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf')], {
        encoding: 'utf8',
      }),
      KUBEADM_DROP_IN,
    );
    const fields = execFileSync('dpkg-deb', ['-f', join(base, debFileName('kubeadm', v134))], {
      encoding: 'utf8',
    });
    assert.match(fields, /^Version: 1\.34\.4-1\.1$/m);
    assert.match(fields, /^Depends: kubelet \(>= 1\.33\.0\), kubectl$/m);
  });

  it('apt verifies the signed index and the TLS certificate and fetches the packages by version glob', async () => {
    const root = aptRoot('good', `deb [signed-by=${repo.keyring}] ${url('1.34')}\n`);
    const update = await apt(root, ['update'], { ca: tls().caCert });
    assert.equal(update.status, 0, update.stderr + update.stdout);
    assert.doesNotMatch(update.stderr, /^W:/m, 'no warnings: the index is signed and verified');
    // The shipped script's own spelling: kubeadm=1.34.4-*.
    const download = await apt(root, ['download', 'kubeadm=1.34.4-*', 'kubelet=1.34.4-*'], {
      ca: tls().caCert,
    });
    assert.equal(download.status, 0, download.stderr + download.stdout);
    const fetched = readdirSync(root).filter((f) => f.endsWith('.deb'));
    assert.deepEqual(fetched.sort(), [
      'kubeadm_1.34.4-1.1_amd64.deb',
      'kubelet_1.34.4-1.1_amd64.deb',
    ]);
    const out = join(dir, 'x-kubelet');
    execFileSync('dpkg-deb', ['-x', join(root, 'kubelet_1.34.4-1.1_amd64.deb'), out]);
    assert.equal(
      execFileSync(join(out, 'usr/bin/kubelet'), { encoding: 'utf8' }).trim(),
      'kubelet Kubernetes v1.34.4',
    );
    assert.ok(
      server.requests.some(
        (r) => r.path === '/core:/stable:/v1.34/deb/InRelease' && r.status === 200,
      ),
    );
  });

  it('the v1.33 repository offers only v1.33 (the script moves the source to reach v1.34)', async () => {
    const root = aptRoot('old-minor', `deb [signed-by=${repo.keyring}] ${url('1.33')}\n`);
    assert.equal((await apt(root, ['update'], { ca: tls().caCert })).status, 0);
    const policy = await apt(root, ['download', 'kubelet=1.34.4-*'], { ca: tls().caCert });
    assert.notEqual(policy.status, 0);
    assert.match(
      policy.stderr,
      /1\.34\.4-\* .*not found|Version '1\.34\.4-\*' for 'kubelet' was not found/,
    );
  });

  it('refuses the index when the keyring is not the test key', async () => {
    const otherKey = join(dir, 'empty-keyring.gpg');
    writeFileSync(otherKey, '');
    const root = aptRoot('bad-key', `deb [signed-by=${otherKey}] ${url('1.34')}\n`);
    const update = await apt(root, ['update'], { ca: tls().caCert });
    assert.match(update.stderr + update.stdout, /NO_PUBKEY|not signed|is not signed|signature/i);
    assert.notEqual(
      (await apt(root, ['download', 'kubelet=1.34.4-*'], { ca: tls().caCert })).status,
      0,
    );
  });

  it('refuses the server when the test CA is not trusted', async () => {
    const root = aptRoot('bad-ca', `deb [signed-by=${repo.keyring}] ${url('1.34')}\n`);
    const update = await apt(root, ['update']);
    assert.match(update.stderr + update.stdout, /certificate|handshake|verif/i);
    assert.notEqual((await apt(root, ['download', 'kubelet=1.34.4-*'])).status, 0);
  });

  it('answers 404 outside the repository tree', async () => {
    const answer = await new Promise<{ stdout: string }>((resolve) =>
      execFile(
      'curl',
      ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--cacert', tls().caCert, '--path-as-is',
        `https://127.0.0.1:${server.port}/..%2frepo.json`],
      { encoding: 'utf8' },
      (_error, stdout) => resolve({ stdout }),
    )); // prettier-ignore
    assert.equal(answer.stdout, '404');
  });

  it('reuses the cached repository for the same builds', async () => {
    const again = await buildAptRepository(
      [
        { version: v133, binaries: binaries('1.33.13') },
        { version: v134, binaries: binaries('1.34.4') },
      ],
      () => assert.fail('a cached repository says nothing'),
    );
    assert.equal(again.root, repo.root);
  });
});
