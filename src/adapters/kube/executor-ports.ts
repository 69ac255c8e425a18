/**
 * The executor's ports over a real cluster (or the sim): one KubeClient, one logger, one clock.
 */
import type {
  Clock,
  EventsPort,
  LeasesPort,
  NodesPort,
  PodsPort,
  RequestsPort,
} from '../../app/ports.js';
import type { Logger } from '../../log.js';
import type { KubeClient } from './client.js';
import { kubeEventsPort } from './events.js';
import { kubeLeasesPort } from './leases.js';
import { kubeNodesPort } from './nodes.js';
import { kubePodsPort } from './pods.js';
import { requestStore } from './requests.js';

export interface KubePorts {
  nodes: NodesPort;
  pods: PodsPort;
  leases: LeasesPort;
  events: EventsPort;
  requests: RequestsPort;
}

export function kubePorts(
  client: KubeClient,
  log: Logger,
  clock: Clock,
  namespace: string,
): KubePorts {
  const store = requestStore(client, { namespace });
  return {
    requests: { get: (id) => store.get(id), writeStatus: (r, v) => store.writeStatus(r, v) },
    nodes: kubeNodesPort(client),
    pods: kubePodsPort(client),
    leases: kubeLeasesPort(client),
    events: kubeEventsPort(client, log, () => clock.now()),
  };
}
