/**
 * The waiting taint on a node (core/waiting-taint.ts). A Node's taints are a list that a merge patch
 * replaces whole, and others write it too (the node lifecycle controller, people with `kubectl
 * taint`): so read, change only our entry, and write conditionally on the resourceVersion read, again
 * on a conflict. Written by the control plane (serve's account), which admission-policy.yaml lets
 * change PreferNoSchedule taints and nothing else in a node's taints.
 */
import { withWaitingTaint } from '../../core/waiting-taint.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { patchNode, readNodeObject } from './nodes.js';

const ATTEMPTS = 5;

/** True when the node changed; false when it already was so, or is gone. */
export async function setWaitingTaint(
  client: KubeClient,
  name: string,
  key: string,
  present: boolean,
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const node = await readNodeObject(client, name);
    if (!node) return false;
    const taints = withWaitingTaint(node.spec?.taints, key, present);
    if (!taints) return false;
    try {
      // An empty list is written as null: the field goes, as `kubectl taint … -` leaves it.
      const spec = { taints: taints.length > 0 ? taints : null };
      await patchNode(client, name, { spec }, node.metadata?.resourceVersion ?? '');
      return true;
    } catch (error) {
      if (!isKubeError(error, 'conflict') || attempt >= ATTEMPTS) throw error;
    }
  }
}
