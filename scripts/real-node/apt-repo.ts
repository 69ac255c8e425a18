/**
 * Kubernetes' community apt repositories (pkgs.k8s.io), rebuilt here from the kubelet, kubeadm and
 * kubectl this machine built (build.ts NODE_PACKAGES): `.deb`s made with `dpkg-deb`, named and laid
 * out like the real ones (`kubelet_1.34.4-1.1_amd64.deb`; kubelet.service in the kubelet package, the
 * `10-kubeadm.conf` drop-in in kubeadm's), one flat repository per minor at `core:/stable:/v1.XX/deb/`
 * indexed with `apt-ftparchive` and signed with a test GPG key made once per cache folder. A node keeps
 * the real `/etc/apt/sources.list.d/kubernetes.list`; the test serves this tree as https://pkgs.k8s.io
 * (pkgs-server.ts), so the shipped infra/upgrade script runs unchanged against a real package manager.
 *
 * The cache folder's name carries a hash of what goes in (the binaries' build stamps, the package
 * metadata), so a kept machine rebuilds nothing and a changed input makes a new repository.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { build, NODE_PACKAGES, type BuiltBinaries } from '../real-cluster/build.js';
import { RealClusterError } from '../real-cluster/errors.js';
import { withLock } from '../real-cluster/lock.js';
import type { KubernetesVersion } from '../real-cluster/versions.js';
import { nodeCacheDir } from './paths.js';
import { run } from './run.js';

export type PackageName = 'kubelet' | 'kubeadm' | 'kubectl';

/** pkgs.k8s.io's Debian revision: `1.34.4-1.1` (OBS appends `.1`). */
export const debVersion = (version: KubernetesVersion) => `${version.full}-1.1`;

/** The repository's path for a minor, as in `https://pkgs.k8s.io/core:/stable:/v1.34/deb/`. */
export const repoPath = (version: KubernetesVersion) =>
  `core:/stable:/v${version.major}.${version.minor}/deb`;

/** Where a node's apt source and keyring are (kubeadm's installation docs). */
export const APT_SOURCE_FILE = '/etc/apt/sources.list.d/kubernetes.list';
export const APT_KEYRING_FILE = '/etc/apt/keyrings/kubernetes-apt-keyring.gpg';

/** The source line a real node has, for the repository of `version`'s minor. */
export const aptSourceLine = (version: KubernetesVersion) =>
  `deb [signed-by=${APT_KEYRING_FILE}] https://pkgs.k8s.io/${repoPath(version)}/ /\n`;

/** The kubelet package's unit, as Kubernetes' packaging (kubernetes/release) ships it. */
export const KUBELET_SERVICE = `[Unit]
Description=kubelet: The Kubernetes Node Agent
Documentation=https://kubernetes.io/docs/
Wants=network-online.target
After=network-online.target

[Service]
ExecStart=/usr/bin/kubelet
Restart=always
StartLimitInterval=0
RestartSec=10

[Install]
WantedBy=multi-user.target
`;

/** The kubeadm package's drop-in: the kubelet runs the kubeadm way (config.yaml, kubeadm-flags.env). */
export const KUBEADM_DROP_IN = `# Note: This dropin only works with kubeadm and kubelet v1.11+
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
# This is a file that "kubeadm init" and "kubeadm join" generates at runtime, populating the KUBELET_KUBEADM_ARGS variable dynamically
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
# This is a file that the user can use for overrides of the kubelet args as a last resort. Preferably, the user should use
# the .NodeRegistration.KubeletExtraArgs object in the configuration files instead. KUBELET_EXTRA_ARGS should be sourced from this file.
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
`;

interface PackageSpec {
  /** Debian's Depends: only what the node's root file system has (rootfs.ts). */
  depends: (version: KubernetesVersion) => string;
  description: string;
  /** Files besides /usr/bin/<name>: guest path → content. */
  files: Record<string, string>;
}

/**
 * The real packages also depend on cri-tools and kubernetes-cni (kubeadm) — not built here: the node
 * has Debian's containernetworking-plugins, and nothing in `kubeadm upgrade node` calls crictl.
 */
export const PACKAGES: Record<PackageName, PackageSpec> = {
  kubelet: {
    depends: () => 'iptables (>= 1.4.21), iproute2, mount, util-linux, ethtool, conntrack',
    description: 'Node agent for Kubernetes clusters',
    files: { '/usr/lib/systemd/system/kubelet.service': KUBELET_SERVICE },
  },
  kubeadm: {
    depends: (version) => `kubelet (>= ${version.major}.${version.minor - 1}.0), kubectl`,
    description: 'Command-line utility for administering a Kubernetes cluster',
    files: { '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf': KUBEADM_DROP_IN },
  },
  kubectl: {
    depends: () => '',
    description: 'Command-line utility for interacting with a Kubernetes cluster',
    files: {},
  },
};

export const debFileName = (name: PackageName, version: KubernetesVersion) =>
  `${name}_${debVersion(version)}_amd64.deb`;

export function controlFile(name: PackageName, version: KubernetesVersion): string {
  const spec = PACKAGES[name];
  const depends = spec.depends(version);
  return [
    `Package: ${name}`,
    `Version: ${debVersion(version)}`,
    'Architecture: amd64',
    'Maintainer: kubemaint test build <test@kubemaint.local>',
    ...(depends ? [`Depends: ${depends}`] : []),
    'Section: admin',
    'Priority: optional',
    'Homepage: https://kubernetes.io',
    `Description: ${spec.description}`,
    ` Built from k8s.io/kubernetes v${version.full} by kubemaint's real-node tests.`,
    '',
  ].join('\n');
}

export interface AptRepository {
  /** The tree served as https://pkgs.k8s.io/ (holds `core:/stable:/v1.XX/deb/`). */
  root: string;
  /** The public key as a binary keyring: the node's `signed-by` file. */
  keyring: string;
  info: { versions: string[]; seconds: number; builtAt: string };
}

export interface RepositoryInput {
  version: KubernetesVersion;
  binaries: BuiltBinaries<PackageName>;
}

function repoRoot(inputs: RepositoryInput[]): string {
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        PACKAGES: Object.fromEntries(
          Object.entries(PACKAGES).map(([n, s]) => [n, { ...s, depends: undefined }]),
        ),
        controls: inputs.flatMap((i) =>
          (Object.keys(PACKAGES) as PackageName[]).map((n) => controlFile(n, i.version)),
        ),
        builds: inputs.map((i) => i.binaries.info.builtAt),
      }),
    )
    .digest('hex')
    .slice(0, 12);
  return join(nodeCacheDir(), `apt-${key}`);
}

function cached(root: string): AptRepository | undefined {
  const infoPath = join(root, 'repo.json');
  if (!existsSync(infoPath)) return undefined;
  return {
    root: join(root, 'pkgs.k8s.io'),
    keyring: join(root, 'kubernetes-apt-keyring.gpg'),
    info: JSON.parse(readFileSync(infoPath, 'utf8')) as AptRepository['info'],
  };
}

/** The repositories for these versions (one per minor; one version per minor). */
export async function buildAptRepository(
  inputs: RepositoryInput[],
  say: (line: string) => void,
): Promise<AptRepository> {
  const minors = inputs.map((i) => repoPath(i.version));
  if (new Set(minors).size !== minors.length) {
    throw new RealClusterError(
      `one version per minor in the apt repository (pkgs.k8s.io has one per minor), not ${minors.join(', ')}`,
    );
  }
  const root = repoRoot(inputs);
  const ready = cached(root);
  if (ready) return ready;
  mkdirSync(root, { recursive: true });
  return withLock(join(root, 'build.lock'), say, async () => {
    const again = cached(root);
    if (again) return again;
    const started = Date.now();
    const logPath = join(root, 'build.log');
    writeFileSync(logPath, '');
    const scratch = join(root, 'pkgs.k8s.io.partial');
    rmSync(scratch, { recursive: true, force: true });
    say(
      `making the apt repositories (pkgs.k8s.io layout) for ${inputs.map((i) => `v${i.version.full}`).join(', ')} (log: ${logPath})`,
    );
    const gnupg = join(root, 'gnupg');
    const gpgEnv = { ...process.env, GNUPGHOME: gnupg };
    const gpg = (args: string[], what: string) =>
      run('gpg', ['--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], {
        logPath,
        what,
        needs: 'apt-get install gnupg',
        env: gpgEnv,
      });
    const keyring = join(root, 'kubernetes-apt-keyring.gpg');
    if (!existsSync(keyring)) {
      rmSync(gnupg, { recursive: true, force: true });
      mkdirSync(gnupg, { recursive: true, mode: 0o700 });
      // A test key, made here and trusted only by the test's nodes: never the real repository's.
      await gpg(
        [
          '--quick-gen-key',
          'kubemaint test apt repository <test@kubemaint.local>',
          'rsa2048',
          'sign',
          'never',
        ],
        'gpg --quick-gen-key (the test repository key)',
      );
      await gpg(['--output', `${keyring}.partial`, '--export'], 'gpg --export');
      renameSync(`${keyring}.partial`, keyring);
    }
    for (const { version, binaries } of inputs) {
      const repo = join(scratch, repoPath(version));
      mkdirSync(join(repo, 'amd64'), { recursive: true });
      for (const name of Object.keys(PACKAGES) as PackageName[]) {
        const tree = join(root, 'deb.partial', name);
        rmSync(tree, { recursive: true, force: true });
        mkdirSync(join(tree, 'DEBIAN'), { recursive: true });
        mkdirSync(join(tree, 'usr/bin'), { recursive: true });
        writeFileSync(join(tree, 'DEBIAN/control'), controlFile(name, version));
        copyFileSync(binaries.paths[name], join(tree, 'usr/bin', name));
        chmodSync(join(tree, 'usr/bin', name), 0o755);
        for (const [path, content] of Object.entries(PACKAGES[name].files)) {
          mkdirSync(dirname(join(tree, path)), { recursive: true });
          writeFileSync(join(tree, path), content);
        }
        // gzip: xz of three 80 MB binaries takes minutes on a loaded machine; apt reads both.
        await run(
          'dpkg-deb',
          [
            '--root-owner-group',
            '-Zgzip',
            '--build',
            tree,
            join(repo, 'amd64', debFileName(name, version)),
          ],
          { logPath, what: `dpkg-deb --build ${name}`, needs: 'apt-get install dpkg' },
        );
        rmSync(tree, { recursive: true, force: true });
      }
      await ftparchive(repo, ['packages', 'amd64'], join(repo, 'Packages'), logPath);
      await run('gzip', ['-k', '-f', '-9', join(repo, 'Packages')], {
        logPath,
        what: 'gzip Packages',
        needs: 'apt-get install gzip',
      });
      await ftparchive(
        repo,
        [
          '-o',
          `APT::FTPArchive::Release::Origin=obs://build.opensuse.org/isv:kubernetes:core:stable:v${version.major}.${version.minor}/deb`,
          '-o',
          `APT::FTPArchive::Release::Label=isv:kubernetes:core:stable:v${version.major}.${version.minor}`,
          '-o',
          'APT::FTPArchive::Release::Architectures=amd64',
          'release',
          '.',
        ],
        join(repo, 'Release'),
        logPath,
      );
      await gpg(
        ['--clearsign', '--output', join(repo, 'InRelease'), join(repo, 'Release')],
        'gpg --clearsign (InRelease)',
      );
      await gpg(
        ['--armor', '--detach-sign', '--output', join(repo, 'Release.gpg'), join(repo, 'Release')],
        'gpg --detach-sign (Release.gpg)',
      );
      // What the docs tell a person to fetch and `gpg --dearmor` into the keyring.
      await gpg(
        ['--armor', '--output', join(repo, 'Release.key'), '--export'],
        'gpg --export --armor',
      );
    }
    rmSync(join(root, 'deb.partial'), { recursive: true, force: true });
    const served = join(root, 'pkgs.k8s.io');
    rmSync(served, { recursive: true, force: true });
    renameSync(scratch, served);
    const info = {
      versions: inputs.map((i) => `v${i.version.full}`),
      seconds: Math.round((Date.now() - started) / 1000),
      builtAt: new Date().toISOString(),
    };
    writeFileSync(join(root, 'repo.json'), `${JSON.stringify(info, null, 2)}\n`);
    say(`apt repositories ready in ${info.seconds} s: ${served}`);
    return { root: served, keyring, info };
  });
}

/** `apt-ftparchive ARGS` run in `cwd` (paths in the index are relative to the repository), into `out`. */
async function ftparchive(
  cwd: string,
  args: string[],
  out: string,
  logPath: string,
): Promise<void> {
  const partial = join(dirname(out), '.ftparchive.out');
  await run(
    'sh',
    [
      '-c',
      'cd "$1" && shift && out=$1 && shift && apt-ftparchive "$@" >"$out"',
      'sh',
      cwd,
      partial,
      ...args,
    ],
    {
      logPath,
      what: `apt-ftparchive ${args.find((a) => a === 'packages' || a === 'release')}`,
      needs: 'apt-get install apt-utils',
    },
  );
  renameSync(partial, out);
}

/** Builds (or finds cached) each version's packages (build.ts NODE_PACKAGES), then their repository. */
export async function packageRepository(
  versions: KubernetesVersion[],
  say: (line: string) => void,
): Promise<AptRepository> {
  const inputs: RepositoryInput[] = [];
  // One after another: two Go builds at once would only share the machine's cores.
  for (const version of versions) {
    inputs.push({ version, binaries: await build(version, say, NODE_PACKAGES) });
  }
  return buildAptRepository(inputs, say);
}
