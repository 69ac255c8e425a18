/**
 * The executor's ports over a real cluster (or the sim): one KubeClient, one logger, one clock.
 */
import type { Clock, EventsPort, LeasesPort, NodesPort, PodsPort } from '../../app/ports.js';
import type { Logger } from '../../log.js';
import type { KubeClient } from './client.js';
import { kubeEventsPort } from './events.js';
import { kubeLeasesPort } from './leases.js';
import { kubeNodesPort } from './nodes.js';
import { kubePodsPort } from './pods.js';

export interface KubePorts {
  nodes: NodesPort;
  pods: PodsPort;
  leases: LeasesPort;
  events: EventsPort;
}

export function kubePorts(client: KubeClient, log: Logger, clock: Clock): KubePorts {
  return {
    nodes: kubeNodesPort(client),
    pods: kubePodsPort(client),
    leases: kubeLeasesPort(client),
    events: kubeEventsPort(client, log, () => clock.now()),
  };
}
