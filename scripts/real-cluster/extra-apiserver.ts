/**
 * `real-cluster apiserver`: one more kube-apiserver on the running control plane's etcd, with the same
 * PKI and its own port, for an HA control plane's view (kubemaint ADR 0050). It runs:
 * - with `--emulated-version` when asked (KEP-4330: the binary's minor or the one below), so it
 *   bounds the kubelets one minor lower than its binary;
 * - with the mixed-version proxy (feature gate UnknownVersionInteroperabilityProxy, alpha), so its
 *   identity Lease carries `kubernetes.io/peer-advertise-address` (127.0.0.1:<port>): the only way a
 *   client finds a second apiserver on loopback, where the kubernetes EndpointSlice has no address;
 * - in a UTS namespace of its own with host name `kube-apiserver-<n>`: the identity Lease is named
 *   after the host name, and two apiservers of one host would share one.
 * It is the control plane's binary, or with `binaryVersion` a release one minor older (upstream lets
 * the apiservers of an HA control plane be one minor apart while it is upgraded), built once and
 * cached like the control plane.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { APISERVER, build } from './build.js';
import {
  apiserverArgs,
  DEFAULT_STATE_DIR,
  exitedMessage,
  ours,
  readState,
  startProcess,
  statePath,
  stopPid,
  type ExtraApiserver,
} from './control-plane.js';
import { RealClusterError } from './errors.js';
import { createPki } from './pki.js';
import { freePort, probe, waitFor } from './probe.js';
import { parseKubernetesVersion, type KubernetesVersion } from './versions.js';

export interface ExtraOptions {
  dir?: string;
  /** `1.33.13`: its binary's release, the control plane's minor or the one below (default: the same binary). */
  binaryVersion?: string;
  /** `1.33`: the minor it emulates (its binary's or the one below). */
  emulatedVersion?: string;
  say?: (line: string) => void;
}

/** Whether this machine lets us give a process a host name of its own (root, or user namespaces). */
function utsNamespaces(): boolean {
  return spawnSync('unshare', ['--uts', 'true']).status === 0;
}

/** The release a second apiserver may run: the control plane's minor or one below (HA skew policy). */
function olderBinary(raw: string, controlPlane: KubernetesVersion): KubernetesVersion {
  const version = parseKubernetesVersion(raw);
  const below = controlPlane.minor - version.minor;
  if (version.major !== controlPlane.major || below < 0 || below > 1) {
    throw new RealClusterError(
      `--binary-version ${raw}: the apiservers of one control plane may be one minor apart at most, and this one runs v${controlPlane.full}: give a 1.${controlPlane.minor}.x or 1.${controlPlane.minor - 1}.x release`,
    );
  }
  return version;
}

export async function startExtraApiserver(options: ExtraOptions = {}): Promise<ExtraApiserver> {
  const say = options.say ?? (() => undefined);
  const dir = resolve(options.dir ?? DEFAULT_STATE_DIR);
  const state = readState(dir);
  if (!state || !ours(state.pids['kube-apiserver'] ?? -1, dir)) {
    throw new RealClusterError(
      `no control plane is up from ${dir}: start one with npm run real-cluster -- up`,
    );
  }
  const controlPlane = parseKubernetesVersion(state.version.replace(/^v/, ''));
  const version =
    options.binaryVersion === undefined
      ? controlPlane
      : olderBinary(options.binaryVersion, controlPlane);
  if (options.emulatedVersion !== undefined) {
    const m = /^(\d+)\.(\d+)$/.exec(options.emulatedVersion);
    const below = m ? version.minor - Number(m[2]) : -1;
    if (!m || Number(m[1]) !== 1 || below < 0 || below > 1) {
      throw new RealClusterError(
        `--emulated-version ${options.emulatedVersion}: kube-apiserver v${version.full} can emulate 1.${version.minor} or 1.${version.minor - 1} (write it like 1.${version.minor - 1})`,
      );
    }
  }
  const binaries =
    version.full === controlPlane.full
      ? await build(version, say)
      : await build(version, say, APISERVER);
  const pki = createPki(join(dir, 'pki'));
  const proxy = pki.client('front-proxy-client', { user: 'front-proxy-client', groups: [] });
  const n = (state.extraApiservers?.length ?? 0) + 2;
  const hostname = `kube-apiserver-${n}`;
  const port = await freePort(0, 'apiserver port');
  const args = [
    ...apiserverArgs(dir, state, pki, {
      port,
      auditLog: join(dir, 'logs', `audit-${n}.log`),
    }),
    // The mixed-version proxy: its identity Lease then says where it answers (its peer address).
    '--feature-gates=UnknownVersionInteroperabilityProxy=true',
    // Without it the identity Lease advertises the host's first address (192.0.2.2 here), where
    // nothing listens: every apiserver of this control plane binds 127.0.0.1 only.
    '--advertise-address=127.0.0.1',
    '--peer-advertise-ip=127.0.0.1',
    `--peer-advertise-port=${port}`,
    `--peer-ca-file=${pki.caCert}`,
    `--proxy-client-cert-file=${proxy.cert}`,
    `--proxy-client-key-file=${proxy.key}`,
    `--requestheader-client-ca-file=${pki.caCert}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ...(options.emulatedVersion ? [`--emulated-version=${options.emulatedVersion}`] : []),
  ];
  const bin = binaries.paths['kube-apiserver'];
  if (!bin) throw new RealClusterError(`no kube-apiserver in ${binaries.dir}`);
  const logPath = join(dir, 'logs', `${hostname}.log`);
  const ownHost = utsNamespaces();
  if (!ownHost)
    say(
      'no UTS namespace here (not root): both apiservers share one host name and one identity Lease',
    );
  const started = ownHost
    ? startProcess(
        'unshare',
        ['--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', hostname, bin, ...args],
        logPath,
      )
    : startProcess(bin, args, logPath);
  const extra: ExtraApiserver = {
    pid: started.pid,
    port,
    hostname,
    ...(version.full === controlPlane.full ? {} : { binaryVersion: version.full }),
    ...(options.emulatedVersion ? { emulatedVersion: options.emulatedVersion } : {}),
  };
  state.extraApiservers = [...(state.extraApiservers ?? []), extra];
  writeFileSync(statePath(dir), `${JSON.stringify(state, null, 2)}\n`);
  const admin = pki.client('admin', { user: 'kubemaint-admin', groups: ['system:masters'] });
  try {
    await waitFor(
      hostname,
      async () =>
        (
          await probe(`https://127.0.0.1:${port}/readyz`, {
            ca: pki.caCert,
            cert: admin.cert,
            key: admin.key,
          })
        ).status === 200,
      { timeoutMs: 300_000, failed: () => exitedMessage(hostname, started, logPath) },
    );
  } catch (error) {
    await stopExtraApiservers({ dir });
    throw error;
  }
  say(
    `${hostname} ready: https://127.0.0.1:${port} (v${version.full}${options.emulatedVersion ? `, emulating ${options.emulatedVersion}` : ''})`,
  );
  return extra;
}

/** Stops every extra apiserver `apiserver` started; their identity Leases expire (or tests delete them). */
export async function stopExtraApiservers(options: { dir?: string } = {}): Promise<number> {
  const dir = resolve(options.dir ?? DEFAULT_STATE_DIR);
  const path = statePath(dir);
  if (!existsSync(path)) return 0;
  const state = readState(dir);
  if (!state) return 0;
  let stopped = 0;
  for (const extra of state.extraApiservers ?? []) {
    if (ours(extra.pid, dir)) {
      await stopPid(extra.pid, dir);
      stopped += 1;
    }
  }
  delete state.extraApiservers;
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`);
  return stopped;
}
