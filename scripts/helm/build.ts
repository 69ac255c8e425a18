/**
 * Helm, built from its Go module (`helm.sh/helm/v3`) once per version, as the real control plane is
 * built from Kubernetes' (scripts/real-cluster): release binaries are not downloaded here. The binary
 * lands in the user's cache folder (`$XDG_CACHE_HOME/kubemaint/helm/v<version>/bin/helm`, else
 * `~/.cache/…`) and is reused by every clone; a build goes to a scratch folder first and is renamed
 * into place, so a crash never leaves half a cache.
 *
 * The ldflags are the ones Helm's Makefile sets: without them `helm version` says `v3.22` and Helm's
 * idea of the newest Kubernetes (`.Capabilities.KubeVersion` in `helm template`, the API deprecation
 * check of `helm lint`) falls back to 1.20, not the client-go its go.mod requires.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { goVersion, runGo } from '../real-cluster/build.js';
import { RealClusterError } from '../real-cluster/errors.js';
import { withLock } from '../real-cluster/lock.js';

/** The Helm the chart is tested with; `KUBEMAINT_HELM_VERSION` picks another. */
export const DEFAULT_HELM_VERSION = '3.22.0';

export interface HelmBuild {
  helm: string;
  version: string;
  /** The Kubernetes version Helm assumes when it has no cluster to ask (its client-go's). */
  kubernetes: string;
  go: string;
  seconds: number;
  builtAt: string;
}

export function helmVersion(raw = process.env['KUBEMAINT_HELM_VERSION'] ?? DEFAULT_HELM_VERSION) {
  const version = raw.replace(/^v/, '');
  if (!/^3\.\d+\.\d+$/.test(version)) {
    throw new RealClusterError(
      `Helm version ${raw} is not a Helm 3 release such as ${DEFAULT_HELM_VERSION} (KUBEMAINT_HELM_VERSION)`,
    );
  }
  return version;
}

export function helmCacheDir(version: string): string {
  const base = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'kubemaint', 'helm', `v${version}`);
}

/** The cached build of this version, or undefined when it has not been built (completely) yet. */
export function cachedHelm(version: string): HelmBuild | undefined {
  const infoPath = join(helmCacheDir(version), 'build.json');
  if (!existsSync(infoPath)) return undefined;
  const info = JSON.parse(readFileSync(infoPath, 'utf8')) as HelmBuild;
  return existsSync(info.helm) ? info : undefined;
}

/** Where the Go module proxy put helm's go.mod, and the client-go version it requires. */
function clientGoOf(module: string, cwd: string): { major: number; minor: number } {
  const result = spawnSync('go', ['mod', 'download', '-json', module], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local' },
  });
  const answer = JSON.parse(result.stdout || '{}') as { GoMod?: string; Error?: string };
  if (result.status !== 0 || !answer.GoMod) {
    throw new RealClusterError(
      `go mod download ${module} failed: ${answer.Error ?? result.stderr.trim()} (is ${module.split('@')[1]} a Helm release the Go module proxy serves?)`,
    );
  }
  const found = /k8s\.io\/client-go v0\.(\d+)\.\d+/.exec(readFileSync(answer.GoMod, 'utf8'));
  if (!found) throw new RealClusterError(`${answer.GoMod} requires no k8s.io/client-go`);
  return { major: 1, minor: Number(found[1]) };
}

export async function buildHelm(version: string, say: (line: string) => void): Promise<HelmBuild> {
  const cached = cachedHelm(version);
  if (cached) return cached;
  const go = goVersion('Helm is built from its Go module here; install Go 1.26 or newer');
  const root = helmCacheDir(version);
  mkdirSync(root, { recursive: true });
  return withLock(join(root, 'build.lock'), say, async () => {
    const again = cachedHelm(version); // another process finished it while we waited
    if (again) return again;
    const started = Date.now();
    const scratch = join(root, 'bin.partial');
    const logPath = join(root, 'build.log');
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    writeFileSync(logPath, '');
    const module = `helm.sh/helm/v3@v${version}`;
    say(
      `building Helm ${version} from its Go module with Go ${go} (once per version; log: ${logPath})`,
    );
    const kube = clientGoOf(module, scratch);
    const stamp = (pkg: string, key: string, value: string | number) =>
      `-X helm.sh/helm/v3/${pkg}.${key}=${value}`;
    const ldflags = [
      '-s',
      '-w',
      stamp('internal/version', 'version', `v${version}`),
      stamp('internal/version', 'gitTreeState', 'clean'),
      ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
        stamp(pkg, 'k8sVersionMajor', kube.major),
        stamp(pkg, 'k8sVersionMinor', kube.minor),
      ]),
    ].join(' ');
    // GOTOOLCHAIN=local: a Helm that needs a newer Go fails clearly instead of fetching a toolchain.
    const env = { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOBIN: scratch };
    await runGo(
      ['install', '-trimpath', '-ldflags', ldflags, `helm.sh/helm/v3/cmd/helm@v${version}`],
      scratch,
      logPath,
      env,
    );
    const dir = join(root, 'bin');
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
    const info: HelmBuild = {
      helm: join(dir, 'helm'),
      version: `v${version}`,
      kubernetes: `v${kube.major}.${kube.minor}`,
      go,
      seconds: Math.round((Date.now() - started) / 1000),
      builtAt: new Date().toISOString(),
    };
    writeFileSync(join(root, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
    say(`built Helm ${version} in ${info.seconds} s: ${info.helm}`);
    return info;
  });
}
