/**
 * Builds Kubernetes' commands from its Go modules, once per version and target: the control plane
 * (etcd, kube-apiserver, kube-controller-manager, kube-scheduler) or a node (the kubelet, kubeadm and
 * kubectl, for `npm run real-node`): a small wrapper module requires k8s.io/kubernetes and pins every staging module to
 * the matching v0.X.Y tag (k8s.io/kubernetes's own `replace … => ./staging` lines do not apply to a
 * dependency, and `go install pkg@version` refuses modules with replace lines). etcd comes from the
 * same module graph, so it is the version this Kubernetes was tested with.
 *
 * The binaries land in the user's cache folder (versions.ts) and are reused by every clone; a build
 * goes to a scratch folder first and is renamed into place, so a crash never leaves half a cache.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { cacheDirFor, type Binary, type KubernetesVersion } from './versions.js';
import { RealClusterError } from './errors.js';
import { withLock } from './lock.js';

/** What one build makes: each binary's name and the Go package it is built from. */
export interface BuildTarget<B extends string = string> {
  /** Its cache folder inside the version's (empty: the version's own folder). */
  folder: string;
  packages: Record<B, string>;
}

export const CONTROL_PLANE: BuildTarget<Binary> = {
  folder: '',
  packages: {
    etcd: 'go.etcd.io/etcd/server/v3',
    'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
    'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
    'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
  },
};

/**
 * A kube-apiserver of another release beside the control plane's (`real-cluster apiserver
 * --binary-version`): an HA control plane mid-upgrade. Built alone, it shares that release's Go build
 * cache with the node packages of the same version.
 */
export const APISERVER: BuildTarget<'kube-apiserver'> = {
  folder: 'apiserver',
  packages: { 'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver' },
};

/**
 * A real node's commands (`npm run real-node`): the kubelet, kubeadm and kubectl, built together so the
 * three come from one module graph, like the release's. Every node's kubelet is this one; a kubeadm
 * node gets all three as packages (scripts/real-node/apt-repo.ts).
 */
export const NODE_PACKAGES: BuildTarget<'kubelet' | 'kubeadm' | 'kubectl'> = {
  folder: 'packages',
  packages: {
    kubelet: 'k8s.io/kubernetes/cmd/kubelet',
    kubeadm: 'k8s.io/kubernetes/cmd/kubeadm',
    kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  },
};

export interface BuiltBinaries<B extends string = Binary> {
  dir: string;
  paths: Record<B, string>;
  info: BuildInfo;
}

export interface BuildInfo {
  kubernetes: string;
  /** The etcd module's version (control plane builds only). */
  etcd?: string;
  go: string;
  seconds: number;
  builtAt: string;
}

const binariesOf = <B extends string>(target: BuildTarget<B>) =>
  Object.keys(target.packages) as B[];

function binPaths<B extends string>(dir: string, target: BuildTarget<B>): Record<B, string> {
  return Object.fromEntries(binariesOf(target).map((b) => [b, join(dir, b)])) as Record<B, string>;
}

const targetDir = (version: KubernetesVersion, target: BuildTarget) =>
  join(cacheDirFor(version), target.folder);

/** The cached build of this version, or undefined when it has not been built (completely) yet. */
export function cachedBuild(version: KubernetesVersion): BuiltBinaries | undefined;
export function cachedBuild<B extends string>(
  version: KubernetesVersion,
  target: BuildTarget<B>,
): BuiltBinaries<B> | undefined;
export function cachedBuild(
  version: KubernetesVersion,
  target: BuildTarget = CONTROL_PLANE,
): BuiltBinaries<string> | undefined {
  const root = targetDir(version, target);
  const dir = join(root, 'bin');
  const infoPath = join(root, 'build.json');
  if (!existsSync(infoPath) || !binariesOf(target).every((b) => existsSync(join(dir, b))))
    return undefined;
  return {
    dir,
    paths: binPaths(dir, target),
    info: JSON.parse(readFileSync(infoPath, 'utf8')) as BuildInfo,
  };
}

/** The machine's Go version; `purpose` says in the error why Go is needed. */
export function goVersion(
  purpose = "the real control plane is built from Kubernetes' Go modules; install Go 1.24 or newer",
): string {
  const result = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new RealClusterError(`Go is not installed (no \`go\` on PATH): ${purpose}`);
  }
  return /go(\d+\.\d+(?:\.\d+)?)/.exec(result.stdout)?.[1] ?? result.stdout.trim();
}

function wrapperGoMod(version: KubernetesVersion): string {
  const replaces = version.stagingModules
    .map((m) => `replace k8s.io/${m} => k8s.io/${m} ${version.stagingTag}`)
    .join('\n');
  // godebug applies only to the main module: this keeps upstream's runtime defaults for the release.
  return `module kubemaint.local/kubernetes-binaries

go 1.24

godebug default=go1.${Math.min(version.minor - 10, 26)}

require k8s.io/kubernetes v${version.full}

${replaces}
`;
}

const toolsGo = (target: BuildTarget) => `//go:build tools

// Package tools keeps the commands' packages in the module graph for go mod tidy.
package tools

import (
${Object.values(target.packages)
  .map((p) => `\t_ "${p}"`)
  .join('\n')}
)
`;

/** Runs a go command with its output appended to the build log; rejects with the log's last error. */
export function runGo(
  args: string[],
  cwd: string,
  logPath: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logPath, { flags: 'a' });
    log.write(`$ go ${args.join(' ')}\n`);
    const child = spawn('go', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('error', (error) => reject(error));
    child.on('close', (code) => {
      log.end(() => {
        if (code === 0) return resolve();
        const lines = readFileSync(logPath, 'utf8').trim().split('\n');
        const last = lines.filter((l) => !l.startsWith('go: downloading')).at(-1) ?? '';
        reject(
          new RealClusterError(
            `go ${args[0] === 'mod' ? args.slice(0, 2).join(' ') : args[0]} failed (exit ${code}): ${last.trim()} — full log: ${logPath}`,
          ),
        );
      });
    });
  });
}

export function build(
  version: KubernetesVersion,
  say: (line: string) => void,
): Promise<BuiltBinaries>;
export function build<B extends string>(
  version: KubernetesVersion,
  say: (line: string) => void,
  target: BuildTarget<B>,
): Promise<BuiltBinaries<B>>;
export async function build(
  version: KubernetesVersion,
  say: (line: string) => void,
  target: BuildTarget = CONTROL_PLANE,
): Promise<BuiltBinaries<string>> {
  const cached = cachedBuild(version, target);
  if (cached) return cached;
  const go = goVersion();
  const root = targetDir(version, target);
  mkdirSync(root, { recursive: true });
  const binaries = binariesOf(target);
  // One lock per version, whatever the target: two builds of a version never compile at once.
  return withLock(join(cacheDirFor(version), 'build.lock'), say, async () => {
    const again = cachedBuild(version, target); // another process finished it while we waited
    if (again) return again;
    const started = Date.now();
    const src = join(root, 'src');
    const scratch = join(root, 'bin.partial');
    const logPath = join(root, 'build.log');
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(src, { recursive: true });
    mkdirSync(scratch, { recursive: true });
    writeFileSync(logPath, '');
    writeFileSync(join(src, 'go.mod'), wrapperGoMod(version));
    writeFileSync(join(src, 'tools.go'), toolsGo(target));
    // GOTOOLCHAIN=local: a module that needs a newer Go fails clearly instead of fetching a toolchain.
    const env = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
    say(
      `building Kubernetes ${version.full} from Go modules with Go ${go} (once per version; the first build takes many minutes, log: ${logPath})`,
    );
    say('  resolving modules (go mod tidy)…');
    await runGo(['mod', 'tidy'], src, logPath, env);
    const etcd = /go\.etcd\.io\/etcd\/server\/v3 (v\S+)/.exec(
      readFileSync(join(src, 'go.mod'), 'utf8'),
    )?.[1];
    const stamp = (key: string, value: string) =>
      `-X k8s.io/component-base/version.${key}=${value}`;
    // Without these, /version says v0.0.0-master and kubectl's version pick goes wrong (reference §2.3).
    const ldflags = [
      '-s',
      '-w',
      stamp('gitVersion', `v${version.full}`),
      stamp('gitMajor', String(version.major)),
      stamp('gitMinor', String(version.minor)),
      stamp('gitTreeState', 'clean'),
      stamp('buildDate', new Date().toISOString().replace(/\.\d+Z$/, 'Z')),
    ].join(' ');
    say(`  compiling ${binaries.join(', ')}${etcd ? ` (etcd ${etcd})` : ''}…`);
    const ticker = setInterval(
      () => say(`  still compiling… ${Math.round((Date.now() - started) / 60_000)} min so far`),
      120_000,
    );
    try {
      await runGo(
        [
          'build',
          '-trimpath',
          '-ldflags',
          ldflags,
          '-o',
          `${scratch}/`,
          ...Object.values(target.packages),
        ],
        src,
        logPath,
        env,
      );
    } finally {
      clearInterval(ticker);
    }
    // `go build -o dir/` names etcd's binary after its module path without the /v3 suffix: server.
    if (binaries.includes('etcd')) renameSync(join(scratch, 'server'), join(scratch, 'etcd'));
    const dir = join(root, 'bin');
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
    const info: BuildInfo = {
      kubernetes: `v${version.full}`,
      etcd,
      go,
      seconds: Math.round((Date.now() - started) / 1000),
      builtAt: new Date().toISOString(),
    };
    writeFileSync(join(root, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
    say(`built Kubernetes ${version.full} (${binaries.join(', ')}) in ${info.seconds} s: ${dir}`);
    return { dir, paths: binPaths(dir, target), info };
  });
}
