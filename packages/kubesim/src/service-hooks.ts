/**
 * What kube-apiserver's Service registry does on create: the defaults (type, session affinity, IP
 * family, traffic policies, each port's protocol and targetPort) and the allocation of a ClusterIP
 * from the service CIDR and of NodePorts from their range, refusing addresses already taken or out of
 * range with the allocator's words. EndpointSlices get their one required field checked.
 */
import type { StatusCause } from './status-errors.js';
import { invalid } from './status-errors.js';
import type { KObject, Store } from './types.js';
import { asObj } from './resource-hooks.js';

type Obj = Record<string, unknown>;

/** kubeadm's default `--service-cluster-ip-range`: 10.96.0.0/12. */
export const SERVICE_CIDR = { base: ipNumber('10.96.0.0'), bits: 12, text: '10.96.0.0/12' };
/** The `kubernetes` Service's ClusterIP: the range's first address, as the apiserver reserves it. */
export const KUBERNETES_SERVICE_IP = ipText(SERVICE_CIDR.base + 1);
/** `--service-node-port-range`'s default. */
const NODE_PORTS = { first: 30000, last: 32767 };
const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function ipNumber(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return NaN;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

function ipText(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

const setDefault = (o: Obj, key: string, value: unknown) => {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
};

const portsOf = (spec: Obj): Obj[] =>
  Array.isArray(spec['ports']) ? (spec['ports'] as unknown[]).map(asObj) : [];

export function serviceDefaults(service: KObject): void {
  const spec = (service.spec ??= {});
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  const type = spec['type'];
  for (const port of portsOf(spec)) {
    setDefault(port, 'protocol', 'TCP');
    setDefault(port, 'targetPort', port['port']);
  }
  if (type !== 'ExternalName') {
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
    setDefault(spec, 'ipFamilies', ['IPv4']);
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  }
  if (type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
  service.status = { loadBalancer: {}, ...service.status };
}

const allocationError = (service: KObject, field: string, value: string, why: string) =>
  invalid({ plural: 'services', group: '', kind: 'Service' }, service.metadata.name ?? '', [
    { reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${why}` },
  ]);

/** Allocates what the create asks the apiserver for: a ClusterIP and NodePorts (random, free). */
export function admitService(service: KObject, store: Store): void {
  const spec = (service.spec ??= {});
  if (spec['type'] === 'ExternalName') return;
  const others = store.list('services');
  allocateClusterIP(service, spec, others);
  if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer') {
    allocateNodePorts(service, spec, others);
  }
}

function allocateClusterIP(service: KObject, spec: Obj, others: KObject[]): void {
  const used = new Set(others.map((s) => asObj(s.spec)['clusterIP']));
  const asked = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
  if (asked === 'None') {
    spec['clusterIPs'] = ['None'];
    return;
  }
  const size = 2 ** (32 - SERVICE_CIDR.bits);
  if (asked !== '') {
    const n = ipNumber(asked);
    const list = `[]string{${JSON.stringify(asked)}}`;
    if (Number.isNaN(n)) return; // validation names it
    if (n <= SERVICE_CIDR.base || n >= SERVICE_CIDR.base + size - 1) {
      throw allocationError(
        service,
        'spec.clusterIPs',
        list,
        `failed to allocate IP ${asked}: the provided IP (${asked}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR.text}`,
      );
    }
    if (used.has(asked)) {
      throw allocationError(
        service,
        'spec.clusterIPs',
        list,
        `failed to allocate IP ${asked}: provided IP is already allocated`,
      );
    }
    spec['clusterIPs'] = [asked];
    return;
  }
  // Dynamic addresses come from above the lower band, which is kept for static ones (KEP-3070).
  const lower = Math.min(Math.max(16, size / 16), 256);
  for (;;) {
    const ip = ipText(SERVICE_CIDR.base + lower + Math.floor(Math.random() * (size - lower - 1)));
    if (used.has(ip)) continue;
    spec['clusterIP'] = ip;
    spec['clusterIPs'] = [ip];
    return;
  }
}

function allocateNodePorts(service: KObject, spec: Obj, others: KObject[]): void {
  const used = new Set(others.flatMap((s) => portsOf(asObj(s.spec)).map((p) => p['nodePort'])));
  portsOf(spec).forEach((port, i) => {
    const asked = port['nodePort'];
    if (typeof asked === 'number' && asked !== 0) {
      const why =
        asked < NODE_PORTS.first || asked > NODE_PORTS.last
          ? `provided port is not in the valid range. The range of valid ports is ${NODE_PORTS.first}-${NODE_PORTS.last}`
          : used.has(asked)
            ? 'provided port is already allocated'
            : undefined;
      if (why) throw allocationError(service, `spec.ports[${i}].nodePort`, String(asked), why);
      used.add(asked);
      return;
    }
    let n: number;
    do n = NODE_PORTS.first + Math.floor(Math.random() * (NODE_PORTS.last - NODE_PORTS.first + 1));
    while (used.has(n));
    used.add(n);
    port['nodePort'] = n;
  });
}

export function serviceValidate(service: KObject, old?: KObject): StatusCause[] {
  const spec = asObj(service.spec);
  const causes: StatusCause[] = [];
  const type = spec['type'];
  if (typeof type !== 'string' || !TYPES.includes(type)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.type',
      message: `Unsupported value: ${JSON.stringify(type)}: supported values: ${TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
    });
  }
  const ports = portsOf(spec);
  if (type === 'ExternalName') {
    if (!spec['externalName']) {
      causes.push({
        reason: 'FieldValueRequired',
        field: 'spec.externalName',
        message: 'Required value',
      });
    }
  } else if (ports.length === 0 && spec['clusterIP'] !== 'None') {
    causes.push({ reason: 'FieldValueRequired', field: 'spec.ports', message: 'Required value' });
  }
  ports.forEach((port, i) => {
    if (ports.length > 1 && !port['name']) {
      causes.push({
        reason: 'FieldValueRequired',
        field: `spec.ports[${i}].name`,
        message: 'Required value',
      });
    }
    const n = port['port'];
    if (typeof n !== 'number' || n < 1 || n > 65535) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `spec.ports[${i}].port`,
        message: `Invalid value: ${typeof n === 'number' ? n : 0}: must be between 1 and 65535, inclusive`,
      });
    }
  });
  const oldIP = asObj(old?.spec)['clusterIP'];
  if (old && typeof oldIP === 'string' && oldIP !== '' && spec['clusterIP'] !== oldIP) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.clusterIPs[0]',
      message: `Invalid value: ${JSON.stringify(spec['clusterIP'] ?? '')}: may not change once set`,
    });
  }
  return causes;
}

export function endpointSliceValidate(slice: KObject): StatusCause[] {
  const type = slice['addressType'];
  if (type === undefined || type === '') {
    return [{ reason: 'FieldValueRequired', field: 'addressType', message: 'Required value' }];
  }
  if (type !== 'IPv4' && type !== 'IPv6' && type !== 'FQDN') {
    return [
      {
        reason: 'FieldValueNotSupported',
        field: 'addressType',
        message: `Unsupported value: ${JSON.stringify(type)}: supported values: "FQDN", "IPv4", "IPv6"`,
      },
    ];
  }
  return [];
}
