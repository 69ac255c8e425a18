/**
 * The nodes `npm run test:node` runs on, in one place so that `npm run real-node -- build` (CI's warm
 * step) builds exactly what the tests will boot: kubemaint-vm-1 at the control plane's version (the
 * reboot), kubemaint-vm-2 a kubeadm node one minor behind (the kubelet upgrade, through the test
 * repository served as pkgs.k8s.io), and the packages of both versions in that repository.
 */
import { RealClusterError } from '../real-cluster/errors.js';
import {
  parseKubernetesVersion,
  PREVIOUS_MINOR_RELEASE,
  type KubernetesVersion,
} from '../real-cluster/versions.js';
import { type AptRepository, packageRepository } from './apt-repo.js';
import { buildNode, type NodeSpec } from './nodes.js';
import { pkgsTls, type PkgsTls } from './pkgs-server.js';

export interface TestNodes {
  nodes: NodeSpec[];
  /** The repository's versions: the upgrade's start and target. */
  versions: KubernetesVersion[];
}

export function testNodes(controlPlane: KubernetesVersion): TestNodes {
  const previous = parseKubernetesVersion(PREVIOUS_MINOR_RELEASE);
  if (previous.major !== controlPlane.major || previous.minor + 1 !== controlPlane.minor) {
    throw new RealClusterError(
      `the upgrade test's kubelet ${previous.full} is not one minor below the control plane's ${controlPlane.full}: change PREVIOUS_MINOR_RELEASE in scripts/real-cluster/versions.ts to a ${controlPlane.major}.${controlPlane.minor - 1}.x release`,
    );
  }
  return {
    nodes: [
      { name: 'kubemaint-vm-1' },
      { name: 'kubemaint-vm-2', version: previous, kubeadm: true },
    ],
    versions: [previous, controlPlane],
  };
}

export interface TestNodesBuilt {
  repo: AptRepository;
  tls: PkgsTls;
}

/**
 * Builds (or finds cached) everything the test's nodes boot from: each version's kubelet, kubeadm and
 * kubectl, their repository, the server's certificate, the root file system and each node's disk
 * image (with `images` imported into it).
 */
export async function buildTestNodes(
  controlPlane: KubernetesVersion,
  images: string[],
  say: (line: string) => void,
): Promise<TestNodesBuilt> {
  const { nodes, versions } = testNodes(controlPlane);
  const repo = await packageRepository(versions, say);
  const tls = pkgsTls();
  const packages = { repo, caCert: tls.caCert };
  for (const node of nodes) {
    await buildNode(node.version ?? controlPlane, images, say, node.kubeadm ? packages : undefined);
  }
  return { repo, tls };
}
