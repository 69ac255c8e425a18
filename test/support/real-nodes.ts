/**
 * Real VM nodes for tests in `test/node/`: `npm run test:node` starts a control plane and the VMs
 * (scripts/real-node) and passes their state folder in KUBEMAINT_REAL_NODES_DIR; the control plane's
 * admin kubeconfig comes through KUBEMAINT_REAL_KUBECONFIG as for test/real (./real-cluster.ts).
 * A test reaches a node's host over SSH, as an operator would, and reads its serial console log.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readNodesState, type NodeRecord } from '../../scripts/real-node/nodes.js';
import { DEFAULT_NODE_STATE_DIR } from '../../scripts/real-node/paths.js';
import { sshArgs } from '../../scripts/real-node/ssh.js';
import { kernelBoots, monitor } from '../../scripts/real-node/vm.js';
import { waitFor } from '@kubemaint/kubesim/testing';
import { runCli, startCli, type LongRunning } from './cli-process.js';
import { INFRA_K8S, type RealCluster } from './real-cluster.js';

export interface RealNodes {
  nodes: NodeRecord[];
  /** Runs a shell command on a node's host as root; returns stdout (throws on a non-zero exit). */
  ssh(name: string, command: string): string;
  /** The exit code of a command on the node's host (a node that does not answer: 255). */
  sshCode(name: string, command: string): number;
  /** Kernel boots in the node's serial console log since its VM started. */
  kernelBoots(name: string): number;
  consoleLog(name: string): string;
  /** Cuts the node's power: the guest stops where it is, answering nothing (QEMU `stop`). */
  powerOff(name: string): Promise<void>;
  /** Switches it on again after `powerOff`: a cold boot, nothing of the old one kept in memory. */
  powerOn(name: string): Promise<void>;
}

export function realNodes(): RealNodes {
  const dir = resolve(process.env['KUBEMAINT_REAL_NODES_DIR'] ?? DEFAULT_NODE_STATE_DIR);
  const state = readNodesState(dir);
  if (!state || state.nodes.length === 0) {
    throw new Error(`no real nodes are up from ${dir}: run the tests with npm run test:node`);
  }
  const node = (name: string) => {
    const found = state.nodes.find((n) => n.name === name);
    if (!found)
      throw new Error(`no real node ${name} (${state.nodes.map((n) => n.name).join(', ')})`);
    return found;
  };
  return {
    nodes: state.nodes,
    ssh: (name, command) =>
      execFileSync('ssh', [...sshArgs(dir, node(name).sshPort), command], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      }),
    sshCode: (name, command) =>
      spawnSync('ssh', [...sshArgs(dir, node(name).sshPort), command], {
        stdio: 'ignore',
        timeout: 60_000,
      }).status ?? 255,
    kernelBoots: (name) => kernelBoots(node(name).dir),
    consoleLog: (name) => readFileSync(node(name).console, 'utf8'),
    powerOff: async (name) => void (await monitor(node(name).dir, ['stop'])),
    powerOn: async (name) => void (await monitor(node(name).dir, ['system_reset', 'cont'])),
  };
}

/**
 * Polls `probe` every `everyMs` until it returns a truthy value; fails with the last thing it saw. Slower
 * than the simulator's waitFor by default on purpose: each probe here is a kubectl or an SSH login, and
 * emulated nodes change in seconds, not milliseconds.
 */
export const poll = <T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  everyMs = 2_000,
): Promise<T> => waitFor(what, probe, timeoutMs, everyMs);

/** The image name an archive carries (`io.containerd.image.name`, else a docker-archive's RepoTags). */
export function imageNameOf(archive: string): string {
  const list = execFileSync('tar', ['-tf', archive], { encoding: 'utf8' }).split('\n');
  if (list.includes('index.json')) {
    const index = JSON.parse(
      execFileSync('tar', ['-xOf', archive, 'index.json'], { encoding: 'utf8' }),
    ) as {
      manifests: { annotations?: Record<string, string> }[];
    };
    const name = index.manifests[0]?.annotations?.['io.containerd.image.name'];
    if (name) return name;
  }
  if (list.includes('manifest.json')) {
    const manifest = JSON.parse(
      execFileSync('tar', ['-xOf', archive, 'manifest.json'], { encoding: 'utf8' }),
    ) as {
      RepoTags?: string[];
    }[];
    const tag = manifest[0]?.RepoTags?.[0];
    if (tag) return tag;
  }
  throw new Error(
    `${archive} names no image (no io.containerd.image.name annotation, no RepoTags)`,
  );
}

/** The CLI and agent images `npm run test:node` imported into the nodes (KUBEMAINT_NODE_IMAGES). */
export function nodeImages(): { cli: string; agent: string } {
  const archives = (process.env['KUBEMAINT_NODE_IMAGES'] ?? '').split(':').filter(Boolean);
  const named = archives.map(imageNameOf);
  const find = (pattern: RegExp, what: string) => {
    const name = named.find((n) => pattern.test(n));
    if (!name)
      throw new Error(`no ${what} image in ${archives.join(', ') || 'KUBEMAINT_NODE_IMAGES'}`);
    return name;
  };
  return { cli: find(/\/kubemaint:/, 'CLI'), agent: find(/kubemaint-agent:/, 'agent') };
}

interface Manifest {
  kind: string;
  metadata: { name: string };
  spec?: {
    replicas?: number;
    template?: { spec: { containers: { name: string; image: string; env?: object[] }[] } };
  };
}

/**
 * kubemaint's manifests (infra/k8s) as the node tests install them, written once before any pod
 * starts (a change after would roll the DaemonSet node by node, minutes under TCG): the agent runs the
 * image built here, with API timeouts for an emulated node (one TLS handshake to the apiserver took
 * 10 s under load, twice the agent's default connect limit); serve's Deployment has no replica (serve
 * runs outside, as `npx kubemaint serve` against a kubeconfig). Applying it again changes nothing.
 */
export function installKubemaint(cluster: RealCluster, agentImage: string): void {
  const docs = parseAllDocuments(cluster.kubectl(['kustomize', INFRA_K8S]))
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
  const agent = docs.find((d) => d.kind === 'DaemonSet' && d.metadata.name === 'kubemaint-agent');
  const serve = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'kubemaint-serve');
  const container = agent?.spec?.template?.spec.containers.find((c) => c.name === 'agent');
  if (!container || !serve?.spec)
    throw new Error(`${INFRA_K8S} has no agent DaemonSet or serve Deployment`);
  container.image = agentImage;
  container.env = [
    ...(container.env ?? []),
    { name: 'API_CONNECT_TIMEOUT_SECONDS', value: '60' },
    { name: 'API_TIMEOUT_SECONDS', value: '120' },
  ];
  serve.spec.replicas = 0;
  cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }),
  });
}

export interface KubemaintServe {
  /** The folder serve and the CLI run in (kubemaint.yaml). */
  dir: string;
  serve: LongRunning;
  /**
   * alice's, bob's and carol's kubeconfigs: people with kubemaint's person role and node read access,
   * each an approver (carol asks for a reboot by hand where alice and bob approve it).
   */
  kubeconfigs: Record<'alice' | 'bob' | 'carol', string>;
  /** The CLI run as one of them in serve's folder (`kubemaint <args> --kubeconfig theirs`); throws unless it exits 0. */
  cli(person: 'alice' | 'bob' | 'carol', args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * alice, bob and carol (kubemaint's person role, infra/k8s/rbac-people.yaml, and node read access), a
 * kubemaint.yaml of `config` plus the two-person rule with them as approvers and the executor's image
 * (built here, never pulled), and serve running against the real control plane as its service account.
 */
export async function startServe(
  cluster: RealCluster,
  cliImage: string,
  config: string,
): Promise<KubemaintServe> {
  const people = ['alice', 'bob', 'carol'] as const;
  const subjects = people.map((name) => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'User',
    name,
  }));
  const roleRef = (name: string) => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name,
  });
  cluster.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'node-e2e-node-reader' },
          rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'node-e2e-node-reader' },
          roleRef: roleRef('node-e2e-node-reader'),
          subjects,
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'node-e2e-people', namespace: 'kubemaint' },
          roleRef: roleRef('kubemaint:person'),
          subjects,
        },
      ],
    }),
  });
  const kubeconfigs = {
    alice: cluster.userKubeconfig('alice'),
    bob: cluster.userKubeconfig('bob'),
    carol: cluster.userKubeconfig('carol'),
  };
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-node-e2e-'));
  writeFileSync(
    join(dir, 'kubemaint.yaml'),
    `cluster:
  type: kubeconfig
  kubeconfig:
    path: ${cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve')}
approval:
  twoPerson: true
  approvers:
    kubernetes:
      users: [alice, bob, carol]
agent:
  period: 10s
# The executor's image is the one built here and imported into the nodes: never pulled.
executor:
  image: ${cliImage}
  imagePullPolicy: IfNotPresent
${config}`,
  );
  const serve = startCli(
    ['serve', '--config', 'kubemaint.yaml', '--ops-port', '0', '--ops-host', '127.0.0.1'],
    { cwd: dir },
  );
  await serve.waitFor(/serve ready: /, 2 * 60_000);
  return {
    dir,
    serve,
    kubeconfigs,
    cli: async (person, args) => {
      const result = await runCli(
        [...args, '--kubeconfig', kubeconfigs[person], '--config', 'kubemaint.yaml'],
        { cwd: dir },
      );
      if (result.code !== 0)
        throw new Error(
          `kubemaint ${args.join(' ')} as ${person}: exit ${result.code}: ${result.stderr}`,
        );
      return result.stdout;
    },
    stop: async () => {
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Node as `kubectl get node -o json` shows it, the fields the node tests read. */
export interface NodeJson {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { unschedulable?: boolean; taints?: { key: string; effect: string }[] };
  status: {
    nodeInfo: { bootID: string; kubeletVersion: string };
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  };
}

/** A Pod as `kubectl get pods -o json` shows it, the fields the node tests read. */
export interface PodJson {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status: {
    phase: string;
    containerStatuses?: {
      containerID?: string;
      image: string;
      imageID: string;
      ready: boolean;
      restartCount: number;
      lastState?: { terminated?: { reason?: string; exitCode?: number } };
    }[];
  };
}

export function nodeJson(cluster: RealCluster, name: string): NodeJson {
  return JSON.parse(cluster.kubectl(['get', 'node', name, '-o', 'json'])) as NodeJson;
}

export function podsJson(cluster: RealCluster, namespace: string, selector?: string): PodJson[] {
  const args = [
    'get',
    'pods',
    '-n',
    namespace,
    ...(selector ? ['-l', selector] : []),
    '-o',
    'json',
  ];
  return (JSON.parse(cluster.kubectl(args)) as { items: PodJson[] }).items;
}
