/**
 * core/v1 Events on a Node: the audit trail `kubectl describe node` shows. Cluster-scoped objects get
 * their Events in `default` (as the kubelet does). Best effort by design: a lost Event must never fail
 * a drain or a reboot, so errors are logged by the caller's logger and swallowed.
 */
import type { EventsPort, NodeEvent } from '../../app/ports.js';
import type { Logger } from '../../log.js';
import type { KubeClient } from './client.js';
import { withRetry } from './retry.js';

export const EVENT_SOURCE = 'kubemaint';

export async function recordNodeEvent(
  client: KubeClient,
  node: { name: string; uid: string },
  event: NodeEvent,
  now: Date,
): Promise<void> {
  await withRetry(
    `record event on node ${node.name}`,
    () =>
      client.core.createNamespacedEvent({
        namespace: 'default',
        body: {
          metadata: { generateName: `${node.name}.`, namespace: 'default' },
          involvedObject: { apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid },
          reason: event.reason,
          // The API caps messages at 1024 characters.
          message: event.message.slice(0, 1024),
          type: event.type,
          source: { component: EVENT_SOURCE },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      }),
    client.retry,
  );
}

export function kubeEventsPort(client: KubeClient, log: Logger, now: () => Date): EventsPort {
  return {
    async recordNodeEvent(node, event) {
      try {
        await recordNodeEvent(client, node, event, now());
      } catch (error) {
        log.warn({ node: node.name, reason: event.reason, err: error }, 'could not record event');
      }
    },
  };
}
