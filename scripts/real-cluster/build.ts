/**
 * Builds etcd, kube-apiserver, kube-controller-manager and kube-scheduler from Kubernetes' Go modules,
 * once per version: a small wrapper module requires k8s.io/kubernetes and pins every staging module to
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
import { BINARIES, cacheDirFor, type KubernetesVersion } from './versions.js';
import { RealClusterError } from './errors.js';
import { withLock } from './lock.js';

export interface BuiltBinaries {
  dir: string;
  paths: Record<(typeof BINARIES)[number], string>;
  info: BuildInfo;
}

export interface BuildInfo {
  kubernetes: string;
  etcd: string;
  go: string;
  seconds: number;
  builtAt: string;
}

const PACKAGES: Record<(typeof BINARIES)[number], string> = {
  etcd: 'go.etcd.io/etcd/server/v3',
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
  'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
};

function binPaths(dir: string): BuiltBinaries['paths'] {
  return Object.fromEntries(BINARIES.map((b) => [b, join(dir, b)])) as BuiltBinaries['paths'];
}

/** The cached build of this version, or undefined when it has not been built (completely) yet. */
export function cachedBuild(version: KubernetesVersion): BuiltBinaries | undefined {
  const dir = join(cacheDirFor(version), 'bin');
  const infoPath = join(cacheDirFor(version), 'build.json');
  if (!existsSync(infoPath) || !BINARIES.every((b) => existsSync(join(dir, b)))) return undefined;
  return {
    dir,
    paths: binPaths(dir),
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

const TOOLS_GO = `//go:build tools

// Package tools keeps the commands' packages in the module graph for go mod tidy.
package tools

import (
${Object.values(PACKAGES)
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

export async function build(
  version: KubernetesVersion,
  say: (line: string) => void,
): Promise<BuiltBinaries> {
  const cached = cachedBuild(version);
  if (cached) return cached;
  const go = goVersion();
  const root = cacheDirFor(version);
  mkdirSync(root, { recursive: true });
  return withLock(join(root, 'build.lock'), say, async () => {
    const again = cachedBuild(version); // another process finished it while we waited
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
    writeFileSync(join(src, 'tools.go'), TOOLS_GO);
    // GOTOOLCHAIN=local: a module that needs a newer Go fails clearly instead of fetching a toolchain.
    const env = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
    say(
      `building Kubernetes ${version.full} from Go modules with Go ${go} (once per version; the first build takes many minutes, log: ${logPath})`,
    );
    say('  resolving modules (go mod tidy)…');
    await runGo(['mod', 'tidy'], src, logPath, env);
    const etcd =
      /go\.etcd\.io\/etcd\/server\/v3 (v\S+)/.exec(
        readFileSync(join(src, 'go.mod'), 'utf8'),
      )?.[1] ?? 'unknown';
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
    say(`  compiling ${BINARIES.join(', ')} (etcd ${etcd})…`);
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
          ...Object.values(PACKAGES),
        ],
        src,
        logPath,
        env,
      );
    } finally {
      clearInterval(ticker);
    }
    // `go build -o dir/` names etcd's binary after its module path without the /v3 suffix: server.
    renameSync(join(scratch, 'server'), join(scratch, 'etcd'));
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
    say(`built Kubernetes ${version.full} in ${info.seconds} s: ${dir}`);
    return { dir, paths: binPaths(dir), info };
  });
}
