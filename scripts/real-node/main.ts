/**
 * `npm run real-node -- <command>`: real Linux VM nodes (Debian 12, containerd, a kubelet built from
 * Kubernetes' Go modules) under QEMU's TCG emulation, joined to `npm run real-cluster`'s control plane.
 * See README "Real nodes". Errors are one line and a non-zero exit.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_STATE_DIR as CLUSTER_DIR, readState } from '../real-cluster/control-plane.js';
import { RealClusterError } from '../real-cluster/errors.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
  PREVIOUS_MINOR_RELEASE,
} from '../real-cluster/versions.js';
import { buildNode, nodesDown, nodesUp, readNodesState, viewNode } from './nodes.js';
import { DEFAULT_NODE_STATE_DIR } from './paths.js';
import { imageArchives } from './preload.js';
import { sshArgs } from './ssh.js';
import { buildTestNodes } from './test-nodes.js';
import { kernelBoots, runningPid } from './vm.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

function count(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 8) {
    throw new InvalidArgumentError(
      'a whole number of nodes from 1 to 8 (each VM takes ~1 GB of memory)',
    );
  }
  return n;
}

function seconds(raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

const program = new Command('real-node')
  .description(
    "Real Linux VM nodes for the real control plane (npm run real-cluster): Debian 12 with Debian's\n" +
      "containerd and a kubelet built from Kubernetes' Go modules, under QEMU TCG, each in user networking\n" +
      'with restrict=on (the apiserver forwarded in; SSH and the kubelet port out on 127.0.0.1; nothing\n' +
      'leaves the machine). Builds are cached under $XDG_CACHE_HOME/kubemaint (else ~/.cache/…).',
  )
  .option(
    '--dir <path>',
    'state folder: node disks, seed disks, console logs',
    DEFAULT_NODE_STATE_DIR,
  )
  .option(
    '--cluster-dir <path>',
    "the control plane's state folder (npm run real-cluster -- --dir)",
    CLUSTER_DIR,
  )
  .showHelpAfterError();

const opts = () => program.opts<{ dir: string; clusterDir: string }>();

program
  .command('build')
  .description(
    `build (or find cached) what nodes boot from. Without versions: exactly what npm run test:node boots — the kubelet, kubeadm and kubectl of the control plane's version ($KUBEMAINT_K8S_VERSION, default ${DEFAULT_KUBERNETES_VERSION}) and of ${PREVIOUS_MINOR_RELEASE}, their apt repository (pkgs.k8s.io layout), the root file system and both nodes' disk images. With versions: a standalone node's disk image for each`,
  )
  .argument('[versions...]', 'kubelet versions, e.g. 1.34.4 1.33.13')
  .option(
    '--image <archive...>',
    "image archives (docker-archive or OCI tar) imported into the disk's containerd (as `up --image`)",
  )
  .action(async (versions: string[], options: { image?: string[] }) => {
    const images = imageArchives(options.image ?? []);
    if (versions.length === 0) {
      const controlPlane = parseKubernetesVersion(
        process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
      );
      const built = await buildTestNodes(controlPlane, images, say);
      console.log(built.repo.root);
      return;
    }
    // One after another: two Go builds at once would only share the machine's cores.
    for (const raw of versions) {
      const disk = await buildNode(parseKubernetesVersion(raw), images, say);
      console.log(disk.image);
    }
  });

program
  .command('up')
  .description(
    'start N VM nodes joined to the control plane (starting the control plane first when it is not up) and wait until every one is Ready',
  )
  .option('--nodes <n>', 'how many VMs', count, 2)
  .option('--kubelet-version <version>', "the kubelets' version (default: the control plane's)")
  .option('--name-prefix <prefix>', 'node names are <prefix>-1, <prefix>-2, …', 'kubemaint-vm')
  .option(
    '--image <archive...>',
    "image archives (docker-archive or OCI tar) in every node's containerd: imported at host speed when the disk image is made (cached by their digest)",
  )
  .option(
    '--ready-timeout <seconds>',
    'fail when a node is not Ready after this long',
    seconds,
    2400,
  )
  .option('--memory <MiB>', "each VM's memory", (raw) => Number(raw), 1024)
  .option(
    '--fresh',
    "new disks from the image (a node's disk is otherwise kept while its disk image is the same)",
  )
  .action(
    async (options: {
      nodes: number;
      kubeletVersion?: string;
      namePrefix: string;
      image?: string[];
      readyTimeout: number;
      memory: number;
      fresh?: boolean;
    }) => {
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(options.namePrefix)) {
        throw new RealClusterError(
          `--name-prefix ${JSON.stringify(options.namePrefix)} is not a DNS label (lower-case letters, digits and '-')`,
        );
      }
      const version = options.kubeletVersion
        ? parseKubernetesVersion(options.kubeletVersion)
        : undefined;
      const started = Date.now();
      const state = await nodesUp({
        nodes: Array.from({ length: options.nodes }, (_, i) => ({
          name: `${options.namePrefix}-${i + 1}`,
          version,
        })),
        dir: opts().dir,
        clusterDir: opts().clusterDir,
        images: imageArchives(options.image ?? []),
        readyTimeoutS: options.readyTimeout,
        memoryMiB: options.memory,
        fresh: options.fresh ?? false,
        say,
      });
      say(
        `${state.nodes.length} node(s) Ready in ${Math.round((Date.now() - started) / 1000)} s; kubectl --kubeconfig ${join(state.cluster, 'admin.kubeconfig')} get nodes -o wide; stop them with: npm run real-node -- down`,
      );
    },
  );

program
  .command('down')
  .description('stop the VMs `up` started (their disks stay for the next `up` unless --purge)')
  .option('--purge', 'also delete the state folder (node disks, console logs)')
  .action(async (options: { purge?: boolean }) => {
    const stopped = await nodesDown(opts().dir, { purge: options.purge ?? false });
    say(stopped ? 'stopped' : `no VM was running from ${opts().dir}`);
  });

program
  .command('status')
  .description(
    'each VM: running or not, kernel boots seen, and its Node as the control plane sees it',
  )
  .action(async () => {
    const state = readNodesState(opts().dir);
    if (!state || state.nodes.length === 0) {
      console.log('nodes: none (npm run real-node -- up)');
      return;
    }
    const cluster = readState(state.cluster);
    for (const node of state.nodes) {
      const running = runningPid(node.dir) !== undefined;
      const view = cluster ? await viewNode(cluster, node.name) : undefined;
      console.log(
        `${node.name}: VM ${running ? 'running' : 'stopped'}, ${kernelBoots(node.dir)} kernel boot(s), ssh 127.0.0.1:${node.sshPort}; ` +
          (view
            ? `node ${view.ready ? 'Ready' : view.reason} ${view.kubeletVersion ?? ''} bootID ${view.bootID ?? '-'}`
            : 'control plane down') +
          `; console ${node.console}`,
      );
    }
  });

program
  .command('ssh')
  .description(
    'run a command on a node as root over SSH (no command: a shell), e.g. ssh kubemaint-vm-1 -- uptime',
  )
  .argument('<name>', 'node name')
  .argument('[command...]', 'the command and its arguments')
  .action((name: string, command: string[]) => {
    const state = readNodesState(opts().dir);
    const node = state?.nodes.find((n) => n.name === name);
    if (!state || !node) {
      throw new RealClusterError(
        `no node ${JSON.stringify(name)} is up from ${opts().dir}${state ? ` (nodes: ${state.nodes.map((n) => n.name).join(', ')})` : ''}`,
      );
    }
    const result = spawnSync('ssh', [...sshArgs(resolve(opts().dir), node.sshPort), ...command], {
      stdio: 'inherit',
    });
    if (result.error)
      throw new RealClusterError(
        `cannot run ssh: ${result.error.message} (apt-get install openssh-client)`,
      );
    process.exitCode = result.status ?? 1;
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof RealClusterError) {
    say(`real-node: ${error.message}`);
    process.exit(error.message.includes('busy') ? 3 : 1);
  }
  throw error;
}
