/**
 * `up` and `down` of a single-node control plane on loopback: etcd, kube-apiserver (TLS, client
 * certificates and service-account tokens, Node+RBAC authorisation, NodeRestriction and the default
 * admission plugins, ValidatingAdmissionPolicy among them), kube-controller-manager (every default
 * controller, each with its own service-account credentials) and kube-scheduler. No kubelets: the
 * simulated fleet (`kubemaint sim --attach`) registers nodes.
 *
 * Everything lives in one state folder; `state.json` names the processes `up` started, and `down`
 * stops exactly those (a pid is only signalled while its command line still points into the folder).
 * A failed `up` stops what it had started, so nothing is left half-running.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, cachedBuild, type BuiltBinaries } from './build.js';
import { RealClusterError } from './errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { createPki } from './pki.js';
import { freePort, freePorts, probe, waitFor } from './probe.js';
import { parseKubernetesVersion, type Binary, type KubernetesVersion } from './versions.js';

export const DEFAULT_STATE_DIR = '.kubemaint/real-cluster';

export interface ClusterState {
  version: string;
  dir: string;
  server: string;
  kubeconfig: string;
  ports: {
    apiserver: number;
    etcd: number;
    etcdPeer: number;
    controllerManager: number;
    scheduler: number;
  };
  pids: Partial<Record<Binary, number>>;
  /** Further kube-apiservers on the same etcd (`real-cluster apiserver`, extra-apiserver.ts). */
  extraApiservers?: ExtraApiserver[];
  startedAt: string;
}

export interface ExtraApiserver {
  pid: number;
  port: number;
  /** Its own host name (a UTS namespace): the identity Lease is per host name. */
  hostname: string;
  /** Its binary's release when it is not the control plane's (`1.33.13`). */
  binaryVersion?: string;
  emulatedVersion?: string;
}

export interface UpOptions {
  version: KubernetesVersion;
  dir?: string;
  /** The apiserver's port; 0 picks a free one. */
  port?: number;
  /** Start from empty etcd data (default: keep what a previous `up` stored). */
  fresh?: boolean;
  say?: (line: string) => void;
}

export const statePath = (dir: string) => join(dir, 'state.json');

export function readState(dir = DEFAULT_STATE_DIR): ClusterState | undefined {
  const path = statePath(resolve(dir));
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ClusterState;
  } catch {
    throw new RealClusterError(
      `${path} is not readable JSON: remove it (the processes it named may need a manual kill)`,
    );
  }
}

/** True while `pid` runs a command whose line mentions `dir` (so a reused pid is never ours). */
export function ours(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

export interface Started {
  pid: number;
  /** The exit code once the process has ended (while `up` still watches it). */
  exitCode(): number | null | undefined;
}

export function startProcess(bin: string, args: string[], logPath: string): Started {
  const out = openSync(logPath, 'a');
  // detached: the components outlive `up` (which exits after printing the kubeconfig path).
  const child = spawn(bin, args, { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  if (child.pid === undefined) throw new RealClusterError(`could not start ${bin}`);
  // The exit event, not /proc: between fork and exec the child's command line is still node's.
  let code: number | null | undefined;
  child.on('exit', (exit, signal) => (code = exit ?? (signal ? null : 1)));
  return { pid: child.pid, exitCode: () => code };
}

export function exitedMessage(name: string, started: Started, logPath: string): string | undefined {
  const code = started.exitCode();
  if (code === undefined) return undefined;
  const tail = existsSync(logPath)
    ? readFileSync(logPath, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => /^[EF]\d{4}|error|Error|fatal/.test(l))
        .at(-1)
    : undefined;
  return `${name} exited during start (${code === null ? 'killed' : `exit ${code}`})${tail ? `: ${tail.trim().slice(0, 300)}` : ''} — log: ${logPath}`;
}

export async function stopPid(pid: number, dir: string): Promise<void> {
  if (!ours(pid, dir)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (ours(pid, dir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (ours(pid, dir)) process.kill(pid, 'SIGKILL');
}

/** Stops exactly what `up` started in `dir`; true when there was something to stop. */
export async function down(
  dirOption = DEFAULT_STATE_DIR,
  options: { purge?: boolean } = {},
): Promise<boolean> {
  const dir = resolve(dirOption);
  const state = readState(dir);
  let stopped = false;
  if (state) {
    for (const extra of state.extraApiservers ?? []) {
      if (ours(extra.pid, dir)) {
        await stopPid(extra.pid, dir);
        stopped = true;
      }
    }
    // Reverse start order: the apiserver goes before its etcd.
    for (const name of [
      'kube-scheduler',
      'kube-controller-manager',
      'kube-apiserver',
      'etcd',
    ] as const) {
      const pid = state.pids[name];
      if (pid !== undefined && ours(pid, dir)) {
        await stopPid(pid, dir);
        stopped = true;
      }
    }
    rmSync(statePath(dir), { force: true });
  }
  if (options.purge) rmSync(dir, { recursive: true, force: true });
  return stopped;
}

/**
 * Stop one component of the control plane `up` started in `dir` (SIGTERM, then SIGKILL after 15 s):
 * a fault for test/real/faults.test.ts. Its pid stays in state.json until `start` replaces it.
 */
export async function stop(dirOption: string, name: Binary): Promise<void> {
  const dir = resolve(dirOption);
  const pid = readState(dir)?.pids[name];
  if (pid === undefined || !ours(pid, dir))
    throw new RealClusterError(`${name} is not running from ${dir}: nothing to stop`);
  await stopPid(pid, dir);
}

/**
 * Start one stopped component again with the arguments and ports `up` gave it, and wait until it
 * is healthy (the apiserver: /readyz); state.json names the new pid, so `down` stops it.
 */
export async function start(dirOption: string, name: Binary): Promise<void> {
  const dir = resolve(dirOption);
  const state = readState(dir);
  if (!state) throw new RealClusterError(`no control plane was started from ${dir}`);
  const pid = state.pids[name];
  if (pid !== undefined && ours(pid, dir))
    throw new RealClusterError(`${name} is already running from ${dir} (pid ${pid})`);
  const binaries = cachedBuild(parseKubernetesVersion(state.version));
  if (!binaries)
    throw new RealClusterError(`the ${state.version} binaries are not in the cache any more`);
  const save = () => writeFileSync(statePath(dir), `${JSON.stringify(state, null, 2)}\n`);
  const log = (component: string) => join(dir, 'logs', `${component}.log`);
  const pki = createPki(join(dir, 'pki'));
  if (name === 'etcd') await startEtcd(binaries, dir, state, save, log(name));
  else if (name === 'kube-apiserver')
    await startApiserver(binaries, dir, state, save, pki, log(name));
  else
    throw new RealClusterError(
      `${name}: only etcd and kube-apiserver can be started alone (restart the control plane)`,
    );
}

const AUDIT_POLICY = `# Every request's metadata (who, verb, resource): tests read it to prove what a component did.
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ['/healthz*', '/readyz*', '/livez*', '/version']
  # The bodies of what kubemaint's fault tests prove: cordons and labels on nodes (not the kubelets'
  # status), and in kubemaint's namespace the slot and election Leases (their holders) and the
  # requests' states.
  - level: Request
    verbs: [create, update, patch]
    resources:
      - group: ''
        resources: [nodes]
  - level: Request
    verbs: [create, update, patch]
    namespaces: [kubemaint]
    resources:
      - group: coordination.k8s.io
        resources: [leases]
      - group: kubemaint.io
        resources: [maintenancerequests/status]
  - level: Metadata
`;

export async function up(options: UpOptions): Promise<ClusterState> {
  const say = options.say ?? (() => undefined);
  const dir = resolve(options.dir ?? DEFAULT_STATE_DIR);
  const previous = readState(dir);
  if (previous) {
    const alive = Object.values(previous.pids).filter((pid) => ours(pid, dir));
    const apiserverPid = previous.pids['kube-apiserver'];
    if (
      alive.length === 4 &&
      apiserverPid !== undefined &&
      previous.version === `v${options.version.full}`
    ) {
      say(`already up: ${previous.server} (Kubernetes ${previous.version})`);
      return previous;
    }
    say(
      'a previous control plane in this folder is not (fully) running: stopping what is left of it',
    );
    await down(dir);
  }
  const binaries = await build(options.version, say);
  if (options.fresh) rmSync(join(dir, 'etcd-data'), { recursive: true, force: true });
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const log = (name: string) => join(dir, 'logs', `${name}.log`);
  const pki = createPki(join(dir, 'pki'));
  const [anyPort = 0, etcd = 0, etcdPeer = 0, controllerManager = 0, scheduler = 0] =
    await freePorts(5);
  const ports = {
    apiserver: options.port ? await freePort(options.port, 'apiserver port') : anyPort,
    etcd,
    etcdPeer,
    controllerManager,
    scheduler,
  };

  const server = `https://127.0.0.1:${ports.apiserver}`;
  const state: ClusterState = {
    version: `v${options.version.full}`,
    dir,
    server,
    kubeconfig: join(dir, 'admin.kubeconfig'),
    ports,
    pids: {},
    startedAt: new Date().toISOString(),
  };
  const save = () => writeFileSync(statePath(dir), `${JSON.stringify(state, null, 2)}\n`);
  try {
    await startEtcd(binaries, dir, state, save, log('etcd'));
    say(`etcd ready on 127.0.0.1:${ports.etcd}`);
    await startApiserver(binaries, dir, state, save, pki, log('kube-apiserver'));
    say(`kube-apiserver ready: ${server}/readyz`);
    await startControllers(binaries, dir, state, save, pki, log);
    say('kube-controller-manager and kube-scheduler healthy');
    return state;
  } catch (error) {
    await down(dir);
    throw error;
  }
}

async function startEtcd(
  binaries: BuiltBinaries,
  dir: string,
  state: ClusterState,
  save: () => void,
  logPath: string,
): Promise<void> {
  const client = `http://127.0.0.1:${state.ports.etcd}`;
  const peer = `http://127.0.0.1:${state.ports.etcdPeer}`;
  const started = startProcess(
    binaries.paths.etcd,
    [
      '--name=default',
      `--data-dir=${join(dir, 'etcd-data')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      // A test cluster on one disk: durability is not the point, speed is (envtest does the same).
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
    logPath,
  );
  state.pids.etcd = started.pid;
  save();
  await waitFor(
    'etcd',
    async () => (await probe(`${client}/health`)).body.includes('"health":"true"'),
    {
      timeoutMs: 30_000,
      failed: () => exitedMessage('etcd', started, logPath),
    },
  );
}

/** A kube-apiserver of this control plane: the first, or another on the same etcd and PKI. */
export function apiserverArgs(
  dir: string,
  state: ClusterState,
  pki: ReturnType<typeof createPki>,
  options: { port: number; auditLog: string },
): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${state.ports.etcd}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${options.port}`,
    // Loopback is not a valid Endpoints address; nothing in-cluster needs the kubernetes Service's endpoints.
    '--endpoint-reconciler-type=none',
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--authorization-mode=Node,RBAC',
    // Off by default: without it a node could write other nodes' objects.
    '--enable-admission-plugins=NodeRestriction',
    '--allow-privileged=true',
    `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
    `--audit-log-path=${options.auditLog}`,
    '--audit-log-maxsize=200',
    '--audit-log-maxbackup=1',
    '--profiling=false',
    '--v=1',
  ];
}

async function startApiserver(
  binaries: BuiltBinaries,
  dir: string,
  state: ClusterState,
  save: () => void,
  pki: ReturnType<typeof createPki>,
  logPath: string,
): Promise<void> {
  const auditPolicy = join(dir, 'audit-policy.yaml');
  writeFileSync(auditPolicy, AUDIT_POLICY);
  const admin = pki.client('admin', { user: 'kubemaint-admin', groups: ['system:masters'] });
  writeKubeconfig(state.kubeconfig, {
    server: state.server,
    caCert: pki.caCert,
    clientCert: admin.cert,
    clientKey: admin.key,
    user: 'kubemaint-admin',
    context: 'kubemaint-real',
  });
  const started = startProcess(
    binaries.paths['kube-apiserver'],
    apiserverArgs(dir, state, pki, {
      port: state.ports.apiserver,
      auditLog: join(dir, 'logs', 'audit.log'),
    }),
    logPath,
  );
  state.pids['kube-apiserver'] = started.pid;
  save();
  const tls = {
    ca: pki.caCert,
    cert: admin.cert,
    key: admin.key,
  };
  await waitFor(
    'kube-apiserver',
    async () => (await probe(`${state.server}/readyz`, tls)).status === 200,
    {
      // A starved machine (2 cores, QEMU VMs beside it, nice 10) took over 120 s to get ready.
      timeoutMs: 300_000,
      failed: () => exitedMessage('kube-apiserver', started, logPath),
    },
  );
}

async function startControllers(
  binaries: BuiltBinaries,
  dir: string,
  state: ClusterState,
  save: () => void,
  pki: ReturnType<typeof createPki>,
  log: (name: string) => string,
): Promise<void> {
  const kubeconfigFor = (name: string, user: string) => {
    const client = pki.client(name, { user, groups: [] });
    const path = join(dir, `${name}.kubeconfig`);
    writeKubeconfig(path, {
      server: state.server,
      caCert: pki.caCert,
      clientCert: client.cert,
      clientKey: client.key,
      user,
      context: 'kubemaint-real',
    });
    return path;
  };
  const kcmConfig = kubeconfigFor('controller-manager', 'system:kube-controller-manager');
  const schedulerConfig = kubeconfigFor('scheduler', 'system:kube-scheduler');
  const healthPaths = '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics';
  const kcm = startProcess(
    binaries.paths['kube-controller-manager'],
    [
      `--kubeconfig=${kcmConfig}`,
      `--authentication-kubeconfig=${kcmConfig}`,
      `--authorization-kubeconfig=${kcmConfig}`,
      healthPaths,
      '--bind-address=127.0.0.1',
      `--secure-port=${state.ports.controllerManager}`,
      '--leader-elect=false',
      '--controllers=*',
      // Each controller acts as its own service account, with the bootstrap RBAC a real cluster has.
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${pki.saKey}`,
      `--root-ca-file=${pki.caCert}`,
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
      // Node health: a lost node is noticed in 20 s instead of 50 s, so reboot tests see the real taints sooner.
      '--node-monitor-period=2s',
      '--node-monitor-grace-period=20s',
      '--v=1',
    ],
    log('kube-controller-manager'),
  );
  state.pids['kube-controller-manager'] = kcm.pid;
  save();
  const scheduler = startProcess(
    binaries.paths['kube-scheduler'],
    [
      `--kubeconfig=${schedulerConfig}`,
      `--authentication-kubeconfig=${schedulerConfig}`,
      `--authorization-kubeconfig=${schedulerConfig}`,
      healthPaths,
      '--bind-address=127.0.0.1',
      `--secure-port=${state.ports.scheduler}`,
      '--leader-elect=false',
      '--v=1',
    ],
    log('kube-scheduler'),
  );
  state.pids['kube-scheduler'] = scheduler.pid;
  save();
  const healthy = (port: number) => async () =>
    (await probe(`https://127.0.0.1:${port}/healthz`)).status === 200;
  await waitFor('kube-controller-manager', healthy(state.ports.controllerManager), {
    timeoutMs: 60_000,
    failed: () => exitedMessage('kube-controller-manager', kcm, log('kube-controller-manager')),
  });
  await waitFor('kube-scheduler', healthy(state.ports.scheduler), {
    timeoutMs: 60_000,
    failed: () => exitedMessage('kube-scheduler', scheduler, log('kube-scheduler')),
  });
}
