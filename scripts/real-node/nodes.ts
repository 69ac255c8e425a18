/**
 * `up`, `down` and `status` of a set of real VM nodes joined to `npm run real-cluster`'s control plane.
 * Everything lives in one state folder (.kubemaint/real-node): `state.json` names the nodes, each node's
 * folder holds its disk (kept across `down`/`up` while its disk image is the same), its seed disk
 * (made fresh each `up`), its console log and QEMU's pid file. A failed `up` stops the VMs it started.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, NODE_PACKAGES } from '../real-cluster/build.js';
import {
  type ClusterState,
  DEFAULT_STATE_DIR as CLUSTER_DIR,
  readState,
  up as clusterUp,
} from '../real-cluster/control-plane.js';
import { RealClusterError } from '../real-cluster/errors.js';
import { createPki } from '../real-cluster/pki.js';
import { freePorts, probe } from '../real-cluster/probe.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
  type KubernetesVersion,
} from '../real-cluster/versions.js';
import { type AptRepository, debFileName, type PackageName, repoPath } from './apt-repo.js';
import { buildDisk, type NodeDisk } from './disk.js';
import { DEFAULT_NODE_STATE_DIR } from './paths.js';
import { buildRootfs } from './rootfs.js';
import { sandboxImage } from './sandbox-image.js';
import { makeSeed } from './seed.js';
import { consoleLog, guestStep, kernelBoots, runningPid, startVm, stopVm } from './vm.js';

export interface NodeRecord {
  name: string;
  dir: string;
  kubelet: string;
  sshPort: number;
  kubeletPort: number;
  console: string;
  startedAt: string;
}

export interface NodesState {
  cluster: string;
  apiserverPort: number;
  nodes: NodeRecord[];
}

export interface NodeSpec {
  name: string;
  /** The kubelet's version (default: the control plane's). */
  version?: KubernetesVersion;
  /** A kubeadm node: its packages from `packages.repo`, laid out as `kubeadm join` leaves them. */
  kubeadm?: boolean;
}

/** Where kubeadm nodes get their packages: the test repository and the server posing as pkgs.k8s.io. */
export interface NodePackages {
  repo: AptRepository;
  /** The test CA that signed the server's certificate (the nodes trust it). */
  caCert: string;
  /** The server's port on 127.0.0.1 (pkgs-server.ts); each VM forwards pkgs.k8s.io:443 to it. */
  port?: number;
}

export interface NodesUpOptions {
  nodes: NodeSpec[];
  dir?: string;
  clusterDir?: string;
  /** Image archives in every node's containerd (besides the sandbox image), put there when its disk image is made. */
  images?: string[];
  /** A node not Ready within this many seconds fails `up`. */
  readyTimeoutS?: number;
  /** Start from the disk image again (a node's disk is otherwise kept across `down`/`up`). */
  fresh?: boolean;
  memoryMiB?: number;
  /** Required when a node is `kubeadm`. */
  packages?: NodePackages;
  say?: (line: string) => void;
}

const statePath = (dir: string) => join(dir, 'state.json');

export function readNodesState(dirOption = DEFAULT_NODE_STATE_DIR): NodesState | undefined {
  const path = statePath(resolve(dirOption));
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as NodesState;
}

/** The admin's TLS material for asking the control plane about nodes. */
const adminTls = (cluster: ClusterState) => ({
  ca: join(cluster.dir, 'pki', 'ca.crt'),
  cert: join(cluster.dir, 'pki', 'admin.crt'),
  key: join(cluster.dir, 'pki', 'admin.key'),
});

export interface NodeView {
  registered: boolean;
  ready: boolean;
  reason: string;
  kubeletVersion?: string;
  bootID?: string;
  osImage?: string;
  containerRuntime?: string;
}

interface ApiNode {
  status?: {
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    nodeInfo?: {
      kubeletVersion?: string;
      bootID?: string;
      osImage?: string;
      containerRuntimeVersion?: string;
    };
  };
}

export async function viewNode(cluster: ClusterState, name: string): Promise<NodeView> {
  const answer = await probe(`${cluster.server}/api/v1/nodes/${name}`, adminTls(cluster));
  if (answer.status === 404)
    return { registered: false, ready: false, reason: 'not registered yet' };
  if (answer.status !== 200) {
    return {
      registered: false,
      ready: false,
      reason: `apiserver answered ${answer.status || 'nothing'}`,
    };
  }
  const node = JSON.parse(answer.body) as ApiNode;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const info = node.status?.nodeInfo;
  return {
    registered: true,
    ready: ready?.status === 'True',
    reason: ready
      ? `Ready=${ready.status} ${ready.reason ?? ''} ${ready.message ?? ''}`.trim()
      : 'no Ready condition yet',
    kubeletVersion: info?.kubeletVersion,
    bootID: info?.bootID,
    osImage: info?.osImage,
    containerRuntime: info?.containerRuntimeVersion,
  };
}

/** An SSH key pair for the state folder, made once. */
function sshKey(dir: string): string {
  const key = join(dir, 'id_ed25519');
  if (!existsSync(key)) {
    try {
      execFileSync('ssh-keygen', [
        '-q',
        '-t',
        'ed25519',
        '-N',
        '',
        '-C',
        'kubemaint-real-node',
        '-f',
        key,
      ]);
    } catch (error) {
      throw new RealClusterError(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'ssh-keygen is not installed: the nodes are reached over SSH (apt-get install openssh-client)'
          : `ssh-keygen failed: ${(error as Error).message}`,
      );
    }
  }
  return key;
}

/**
 * The node disk for one kubelet version, with the sandbox image and `images` already in containerd:
 * built (or found cached) from the root file system and the kubelet of NODE_PACKAGES' build (the same
 * binary its `.deb` holds). With `kubeadm`, the node's packages come from that repository instead.
 */
export async function buildNode(
  version: KubernetesVersion,
  images: string[],
  say: (line: string) => void,
  kubeadm?: Omit<NodePackages, 'port'>,
): Promise<NodeDisk> {
  const rootfs = await buildRootfs(say);
  const binaries = await build(version, say, NODE_PACKAGES);
  const archives = [await sandboxImage(say), ...images];
  const kubelet = { kubernetes: binaries.info.kubernetes, builtAt: binaries.info.builtAt };
  if (!kubeadm)
    return buildDisk({ ...kubelet, binary: binaries.paths.kubelet }, rootfs, archives, say);
  const repo = join(kubeadm.repo.root, repoPath(version), 'amd64');
  const debs = (['kubelet', 'kubeadm', 'kubectl'] as PackageName[]).map((name) =>
    join(repo, debFileName(name, version)),
  );
  const missing = debs.find((deb) => !existsSync(deb));
  if (missing) {
    throw new RealClusterError(
      `the apt repository has no ${missing}: a kubeadm node's version must be one the repository was built for (${kubeadm.repo.info.versions.join(', ')})`,
    );
  }
  const node = {
    version,
    keyring: readFileSync(kubeadm.repo.keyring),
    caCert: readFileSync(kubeadm.caCert, 'utf8'),
  };
  return buildDisk({ ...kubelet, kubeadm: { node, debs } }, rootfs, archives, say);
}

/** Stops every VM of the state folder; true when one was running. */
export async function nodesDown(
  dirOption = DEFAULT_NODE_STATE_DIR,
  options: { purge?: boolean } = {},
): Promise<boolean> {
  const dir = resolve(dirOption);
  const state = readNodesState(dir);
  let stopped = false;
  for (const node of state?.nodes ?? []) {
    if (await stopVm(node.dir)) stopped = true;
  }
  rmSync(statePath(dir), { force: true });
  if (options.purge) rmSync(dir, { recursive: true, force: true });
  return stopped;
}

/** The Node's status was written by the VM's current boot, not kept in etcd from the one before. */
export const fromThisBoot = (view: NodeView, bootBefore: string | undefined): boolean =>
  view.bootID !== undefined && view.bootID !== bootBefore;

/**
 * Ready from this boot: a Node kept in etcd from an earlier run still says Ready (until the node
 * controller's grace period runs out), so the bootID must differ from the one it had before the VM started.
 */
async function waitReady(
  cluster: ClusterState,
  node: NodeRecord,
  bootBefore: string | undefined,
  timeoutS: number,
  say: (line: string) => void,
): Promise<NodeView> {
  const started = Date.now();
  let last: NodeView = { registered: false, ready: false, reason: 'not asked yet' };
  let told = '';
  while (Date.now() - started < timeoutS * 1000) {
    if (runningPid(node.dir) === undefined) {
      throw new RealClusterError(
        `VM ${node.name} stopped while booting (${kernelBoots(node.dir)} kernel boot(s) seen) — console log: ${node.console}`,
      );
    }
    last = await viewNode(cluster, node.name);
    const thisBoot = fromThisBoot(last, bootBefore);
    if (last.ready && thisBoot) return last;
    const now = !last.registered
      ? `booting: ${guestStep(node.dir)}`
      : thisBoot
        ? 'registered, not Ready yet'
        : `booting (the Node says ${last.ready ? 'Ready' : 'not Ready'} from its previous boot): ${guestStep(node.dir)}`;
    if (now !== told) {
      say(`  ${node.name}: ${now} (${Math.round((Date.now() - started) / 1000)} s)`);
      told = now;
    }
    await new Promise((r) => setTimeout(r, 2_000));
  }
  throw new RealClusterError(
    `node ${node.name} never became Ready within ${timeoutS} s (${last.reason}) — console log: ${node.console}; kubelet: npm run real-node -- ssh ${node.name} -- journalctl -u kubelet`,
  );
}

export async function nodesUp(options: NodesUpOptions): Promise<NodesState> {
  const say = options.say ?? (() => undefined);
  const dir = resolve(options.dir ?? DEFAULT_NODE_STATE_DIR);
  const clusterDir = resolve(options.clusterDir ?? CLUSTER_DIR);
  mkdirSync(dir, { recursive: true });
  let cluster = readState(clusterDir);
  if (!cluster) {
    say(`no control plane is up from ${clusterDir}: starting one (npm run real-cluster -- up)`);
  }
  // `up` returns the running one when it is already up, and restarts a half-dead one.
  cluster = await clusterUp({
    version: parseKubernetesVersion(
      cluster?.version ?? process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
    ),
    dir: clusterDir,
    say,
  });
  const controlPlane = parseKubernetesVersion(cluster.version);
  const previous = readNodesState(dir);
  if (previous) await nodesDown(dir);

  const diskKey = (spec: NodeSpec) =>
    `${(spec.version ?? controlPlane).full}${spec.kubeadm ? '-kubeadm' : ''}`;
  const disks = new Map<string, NodeDisk>();
  for (const spec of options.nodes) {
    if (disks.has(diskKey(spec))) continue;
    if (spec.kubeadm && !options.packages) {
      throw new RealClusterError(
        `node ${spec.name} is a kubeadm node: it needs the package repository (packages)`,
      );
    }
    const version = spec.version ?? controlPlane;
    const kubeadm = spec.kubeadm ? options.packages : undefined;
    disks.set(diskKey(spec), await buildNode(version, options.images ?? [], say, kubeadm));
  }
  const key = sshKey(dir);
  const pki = createPki(join(cluster.dir, 'pki'));
  const ports = await freePorts(options.nodes.length * 2);
  const state: NodesState = {
    cluster: cluster.dir,
    apiserverPort: cluster.ports.apiserver,
    nodes: [],
  };
  const bootsBefore = new Map<string, string | undefined>();
  const save = () => writeFileSync(statePath(dir), `${JSON.stringify(state, null, 2)}\n`);
  try {
    for (const [index, spec] of options.nodes.entries()) {
      const version = spec.version ?? controlPlane;
      const disk = disks.get(diskKey(spec)) as NodeDisk;
      const nodeDir = join(dir, spec.name);
      mkdirSync(nodeDir, { recursive: true });
      const nodeDisk = join(nodeDir, 'disk.img');
      const diskFrom = join(nodeDir, 'disk.from');
      // A node keeps its disk (and the images imported into it) unless the image it came from changed.
      const from = existsSync(diskFrom) ? readFileSync(diskFrom, 'utf8') : '';
      if (options.fresh || from !== disk.image || !existsSync(nodeDisk)) {
        say(`  ${spec.name}: a new disk from ${disk.image}`);
        execFileSync('cp', ['--sparse=always', disk.image, nodeDisk]);
        writeFileSync(diskFrom, disk.image);
      }
      const client = pki.client(`node-${spec.name}`, {
        user: `system:node:${spec.name}`,
        groups: ['system:nodes'],
      });
      const kubeletPort = ports[index * 2 + 1] as number;
      const seed = await makeSeed(nodeDir, {
        name: spec.name,
        kubeletPort,
        caCert: pki.caCert,
        clientCert: client.cert,
        clientKey: client.key,
        authorizedKey: `${key}.pub`,
      });
      const record: NodeRecord = {
        name: spec.name,
        dir: nodeDir,
        kubelet: `v${version.full}`,
        sshPort: ports[index * 2] as number,
        kubeletPort,
        console: consoleLog(nodeDir),
        startedAt: new Date().toISOString(),
      };
      bootsBefore.set(spec.name, (await viewNode(cluster, spec.name)).bootID);
      await startVm({
        name: spec.name,
        dir: nodeDir,
        disk: nodeDisk,
        seed,
        kernel: disk.kernel,
        initrd: disk.initrd,
        apiserverPort: cluster.ports.apiserver,
        sshPort: record.sshPort,
        kubeletPort,
        kubeletHost: '127.0.0.1',
        memoryMiB: options.memoryMiB ?? 1024,
        pkgsPort: options.packages?.port,
      });
      state.nodes.push(record);
      save();
      say(
        `  ${spec.name}: VM started (kubelet v${version.full}, ssh 127.0.0.1:${record.sshPort}, console ${record.console})`,
      );
    }
    const timeout = options.readyTimeoutS ?? 2400;
    const views = await Promise.all(
      state.nodes.map((node) => waitReady(cluster, node, bootsBefore.get(node.name), timeout, say)),
    );
    for (const [i, view] of views.entries()) {
      say(
        `  ${state.nodes[i]?.name}: Ready (${view.kubeletVersion}, ${view.osImage}, ${view.containerRuntime})`,
      );
    }
    return state;
  } catch (error) {
    await nodesDown(dir);
    throw error;
  }
}
