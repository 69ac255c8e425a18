/**
 * Writes a node's maintenance conditions (KEP-5683, core/node-conditions.ts) through `nodes/status`,
 * as Node Problem Detector writes its own: a strategic-merge patch whose `conditions` list is merged
 * by `type`, so the kubelet's conditions (Ready, …) and anyone else's stay as they are, and no read
 * comes first. The maintenance types not given are removed with `$patch: delete` (a no-op when
 * absent). admission-policy.yaml lets kubemaint's accounts change nothing else of a node's status.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  MAINTENANCE_CONDITION_TYPES,
  type MaintenanceCondition,
} from '../../core/node-conditions.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { withRetry } from './retry.js';

const STRATEGIC_MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

/** The patch body: exactly these conditions, the other maintenance types deleted. Pure. */
export function maintenanceConditionsPatch(conditions: readonly MaintenanceCondition[]): {
  status: { conditions: Record<string, unknown>[] };
} {
  const given = new Set<string>(conditions.map((c) => c.type));
  return {
    status: {
      conditions: [
        ...conditions.map((c) => ({ ...c, lastHeartbeatTime: c.lastTransitionTime })),
        ...MAINTENANCE_CONDITION_TYPES.filter((type) => !given.has(type)).map((type) => ({
          $patch: 'delete',
          type,
        })),
      ],
    },
  };
}

/** Set the node's maintenance conditions; a node that is gone is not an error (nothing to mark). */
export async function setMaintenanceConditions(
  client: KubeClient,
  name: string,
  conditions: readonly MaintenanceCondition[],
): Promise<void> {
  const body = maintenanceConditionsPatch(conditions);
  try {
    await withRetry(
      `patch node ${name} status (maintenance conditions)`,
      () => client.core.patchNodeStatus({ name, body }, STRATEGIC_MERGE_PATCH),
      client.retry,
    );
  } catch (error) {
    if (!isKubeError(error, 'not-found')) throw error;
  }
}
