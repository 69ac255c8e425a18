/**
 * Real VM nodes for tests in `test/node/`: `npm run test:node` starts a control plane and the VMs
 * (scripts/real-node) and passes their state folder in KUBEMAINT_REAL_NODES_DIR; the control plane's
 * admin kubeconfig comes through KUBEMAINT_REAL_KUBECONFIG as for test/real (./real-cluster.ts).
 * A test reaches a node's host over SSH, as an operator would, and reads its serial console log.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readNodesState, type NodeRecord } from '../../scripts/real-node/nodes.js';
import { DEFAULT_NODE_STATE_DIR } from '../../scripts/real-node/paths.js';
import { sshArgs } from '../../scripts/real-node/ssh.js';
import { kernelBoots } from '../../scripts/real-node/vm.js';
import { waitFor } from '@kubemaint/kubesim/testing';

export interface RealNodes {
  nodes: NodeRecord[];
  /** Runs a shell command on a node's host as root; returns stdout (throws on a non-zero exit). */
  ssh(name: string, command: string): string;
  /** The exit code of a command on the node's host (a node that does not answer: 255). */
  sshCode(name: string, command: string): number;
  /** Kernel boots in the node's serial console log since its VM started. */
  kernelBoots(name: string): number;
  consoleLog(name: string): string;
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
