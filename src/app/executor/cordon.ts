/**
 * Cordon and uncordon, remembering who cordoned: a node that was unschedulable before kubemaint
 * touched it stays unschedulable afterwards (invariant 4, kured's `metadata.unschedulable`).
 */
import type { NodeInfo, NodesPort } from '../ports.js';

/** Cordon unless already cordoned (kubectl: "already cordoned", no request). */
export async function cordon(nodes: NodesPort, node: NodeInfo): Promise<NodeInfo> {
  return node.unschedulable ? node : nodes.setUnschedulable(node.name, true);
}

/** Uncordon only what we cordoned; returns whether the node was made schedulable. */
export async function uncordonIfOurs(
  nodes: NodesPort,
  name: string,
  cordonedByUs: boolean | undefined,
  wasCordoned: boolean | undefined,
): Promise<boolean> {
  if (!cordonedByUs || wasCordoned) return false;
  await nodes.setUnschedulable(name, false);
  return true;
}
