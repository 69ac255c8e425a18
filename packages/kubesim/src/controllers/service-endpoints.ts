/**
 * Which pods back a Service, and on which ports, as the endpoints and EndpointSlice controllers read
 * it (`pkg/controller/endpoint`, `staging/.../endpointslice`): the pods its selector matches that
 * have an IP and have not finished, each service port's `targetPort` resolved (a named port through
 * the pod's containers; a pod without it is left out of that port). Pure: endpoints.ts writes it.
 */
import type { KObject } from '../types.js';
import { isPodReady, isPodTerminal, podSpec, podStatus } from './shapes.js';

type Obj = Record<string, unknown>;

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
  appProtocol?: string;
}

/** One pod as an endpoint, with the port each service port maps to on it. */
export interface PodEndpoint {
  pod: KObject;
  ip: string;
  ready: boolean;
  terminating: boolean;
  /** The endpoint ports (name, port, protocol) of the service ports this pod serves. */
  ports: { name?: string; port: number; protocol: string; appProtocol?: string }[];
}

export const servicePorts = (service: KObject): ServicePort[] =>
  Array.isArray(service.spec?.['ports']) ? (service.spec['ports'] as ServicePort[]) : [];

export const serviceSelector = (service: KObject): Record<string, string> | undefined => {
  const selector = service.spec?.['selector'] as Record<string, string> | undefined;
  return selector && Object.keys(selector).length > 0 ? selector : undefined;
};

function containerPort(pod: KObject, name: string, protocol: string): number | undefined {
  for (const container of (podSpec(pod).containers ?? []) as unknown as Obj[]) {
    for (const port of (container['ports'] ?? []) as Obj[]) {
      if (port['name'] === name && (port['protocol'] ?? 'TCP') === protocol) {
        return port['containerPort'] as number;
      }
    }
  }
  return undefined;
}

/** The service's endpoints among `pods` (terminating ones included: slices show them). */
export function podEndpoints(service: KObject, pods: readonly KObject[]): PodEndpoint[] {
  const out: PodEndpoint[] = [];
  for (const pod of pods) {
    const ip = podStatus(pod).podIP;
    if (!ip || isPodTerminal(pod)) continue;
    const ports: PodEndpoint['ports'] = [];
    for (const sp of servicePorts(service)) {
      const protocol = sp.protocol ?? 'TCP';
      const target = sp.targetPort ?? sp.port;
      const port = typeof target === 'number' ? target : containerPort(pod, target, protocol);
      if (port === undefined) continue;
      ports.push({
        ...(sp.name ? { name: sp.name } : {}),
        port,
        protocol,
        ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
      });
    }
    if (servicePorts(service).length > 0 && ports.length === 0) continue;
    out.push({
      pod,
      ip,
      ready: isPodReady(pod) && !pod.metadata.deletionTimestamp,
      terminating: pod.metadata.deletionTimestamp !== undefined,
      ports,
    });
  }
  return out.sort((a, b) => compareIPs(a.ip, b.ip));
}

function compareIPs(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

const targetRef = (pod: KObject) => ({
  kind: 'Pod',
  namespace: pod.metadata.namespace,
  name: pod.metadata.name,
  uid: pod.metadata.uid,
});

/**
 * v1 Endpoints `subsets`: ready pods in `addresses`, the others in `notReadyAddresses`, pods being
 * deleted left out, one subset per distinct port list (RepackSubsets).
 */
export function endpointSubsets(service: KObject, endpoints: readonly PodEndpoint[]): Obj[] {
  const subsets = new Map<string, { ports: PodEndpoint['ports']; ready: Obj[]; notReady: Obj[] }>();
  const publishNotReady = service.spec?.['publishNotReadyAddresses'] === true;
  for (const e of endpoints) {
    if (e.terminating) continue;
    const key = JSON.stringify(e.ports);
    const subset = subsets.get(key) ?? { ports: e.ports, ready: [], notReady: [] };
    subsets.set(key, subset);
    const nodeName = podSpec(e.pod).nodeName;
    const address = { ip: e.ip, ...(nodeName ? { nodeName } : {}), targetRef: targetRef(e.pod) };
    (e.ready || publishNotReady ? subset.ready : subset.notReady).push(address);
  }
  return [...subsets.values()].map((s) => ({
    ...(s.ready.length > 0 ? { addresses: s.ready } : {}),
    ...(s.notReady.length > 0 ? { notReadyAddresses: s.notReady } : {}),
    ...(s.ports.length > 0 ? { ports: s.ports } : {}),
  }));
}

/** EndpointSlice `endpoints` and `ports`, one group per distinct port list. */
export function sliceGroups(
  endpoints: readonly PodEndpoint[],
  zoneOf: (node: string) => string | undefined,
): { ports: Obj[]; endpoints: Obj[] }[] {
  const groups = new Map<string, { ports: Obj[]; endpoints: Obj[] }>();
  for (const e of endpoints) {
    const key = JSON.stringify(e.ports);
    const group = groups.get(key) ?? {
      ports: e.ports.map((p) => ({ name: p.name ?? '', ...p })),
      endpoints: [] as Obj[],
    };
    groups.set(key, group);
    const nodeName = podSpec(e.pod).nodeName;
    const zone = nodeName ? zoneOf(nodeName) : undefined;
    const serving = isPodReady(e.pod);
    group.endpoints.push({
      addresses: [e.ip],
      conditions: { ready: e.ready, serving, terminating: e.terminating },
      targetRef: targetRef(e.pod),
      ...(nodeName ? { nodeName } : {}),
      ...(zone ? { zone } : {}),
    });
  }
  return [...groups.values()];
}
