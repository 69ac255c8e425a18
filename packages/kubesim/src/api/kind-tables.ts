/**
 * `kubectl get` columns of DaemonSets, ControllerRevisions, Services, Endpoints, EndpointSlices,
 * PersistentVolumeClaims and CronJobs, as kube-apiserver's printers (`pkg/printers/internalversion`)
 * fill them: the same names, the same `<none>`/`<unset>`/`<pending>` placeholders, three addresses
 * then `+ N more...`.
 */
import type { KObject } from '../types.js';
import { humanAge } from './human-age.js';
import { selectorText } from './selector-text.js';

type Obj = Record<string, unknown>;
const o = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** A string or number field as text; `fallback` for anything else. */
const text = (v: unknown, fallback = ''): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : fallback;

export interface KindColumn {
  name: string;
  type?: 'integer' | 'string' | 'boolean';
  priority?: number;
  cell: (obj: KObject, now: Date) => string | number;
}

const name: KindColumn = { name: 'Name', cell: (x) => x.metadata.name ?? '' };
const age: KindColumn = {
  name: 'Age',
  cell: (x, now) => humanAge(x.metadata.creationTimestamp, now),
};
const count = (title: string, read: (x: KObject) => unknown): KindColumn => ({
  name: title,
  type: 'integer',
  cell: (x) => num(read(x)),
});

/** `labels.FormatLabels`: sorted `k=v` pairs, `<none>` for none. */
const formatLabels = (labels: unknown): string =>
  Object.entries(o(labels))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',') || '<none>';

/** `metav1.FormatLabelSelector`: `<none>` for an absent or empty selector. */
const formatSelector = (selector: unknown): string => selectorText(selector) || '<none>';

/** CONTAINERS, IMAGES and SELECTOR of `-o wide`, for a pod template at `template`. */
function wideTemplate(template: (x: KObject) => Obj, selector: (x: KObject) => unknown) {
  const containers = (x: KObject) => arr(o(template(x)['spec'])['containers']);
  return [
    {
      name: 'Containers',
      priority: 1,
      cell: (x: KObject) =>
        containers(x)
          .map((c) => c['name'])
          .join(','),
    },
    {
      name: 'Images',
      priority: 1,
      cell: (x: KObject) =>
        containers(x)
          .map((c) => c['image'])
          .join(','),
    },
    { name: 'Selector', priority: 1, cell: (x: KObject) => formatSelector(selector(x)) },
  ];
}

/** Up to three items, then ` + N more...`; `empty` when there are none. */
function upToThree(items: string[], empty: string): string {
  const shown = items.slice(0, 3).join(',');
  if (items.length > 3) return `${shown} + ${items.length - 3} more...`;
  return shown || empty;
}

const status = (x: KObject) => o(x.status);
const spec = (x: KObject) => o(x.spec);

function externalIP(svc: KObject): string {
  const s = spec(svc);
  const external = Array.isArray(s['externalIPs']) ? (s['externalIPs'] as string[]) : [];
  const ingress = arr(o(status(svc)['loadBalancer'])['ingress']).map((i) =>
    text(i['ip'] ?? i['hostname'], ''),
  );
  switch (s['type']) {
    case 'ExternalName':
      return text(s['externalName'], '');
    case 'LoadBalancer':
      return [...ingress, ...external].join(',') || '<pending>';
    default:
      return external.join(',') || '<none>';
  }
}

const servicePorts = (svc: KObject): string =>
  arr(spec(svc)['ports'])
    .map((p) =>
      p['nodePort']
        ? `${text(p['port'])}:${text(p['nodePort'])}/${text(p['protocol'])}`
        : `${text(p['port'])}/${text(p['protocol'])}`,
    )
    .join(',') || '<none>';

/** `formatEndpoints`: ready addresses with each port, `<none>` without subsets. */
function endpointAddresses(ep: KObject): string {
  const subsets = arr(ep['subsets']);
  if (subsets.length === 0) return '<none>';
  const list = subsets.flatMap((ss) => {
    const ips = arr(ss['addresses']).map((a) => text(a['ip']));
    const ports = arr(ss['ports']);
    return ports.length === 0
      ? ips
      : ports.flatMap((p) => ips.map((ip) => `${ip}:${text(p['port'])}`));
  });
  return upToThree(list, '');
}

const ACCESS_MODES: Readonly<Record<string, string>> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

export const KIND_COLUMNS: Readonly<Record<string, readonly KindColumn[]>> = {
  'daemonsets.apps': [
    name,
    count('Desired', (x) => status(x)['desiredNumberScheduled']),
    count('Current', (x) => status(x)['currentNumberScheduled']),
    count('Ready', (x) => status(x)['numberReady']),
    count('Up-to-date', (x) => status(x)['updatedNumberScheduled']),
    count('Available', (x) => status(x)['numberAvailable']),
    {
      name: 'Node Selector',
      cell: (x) => formatLabels(o(o(spec(x)['template'])['spec'])['nodeSelector']),
    },
    age,
    ...wideTemplate(
      (x) => o(spec(x)['template']),
      (x) => spec(x)['selector'],
    ),
  ],
  'controllerrevisions.apps': [
    name,
    {
      name: 'Controller',
      cell: (x) => {
        const ref = x.metadata.ownerReferences?.find((r) => r.controller);
        if (!ref) return '<none>';
        const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
        return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
      },
    },
    // An integer cell under a `string` column, as upstream declares it.
    { name: 'Revision', cell: (x) => num(x['revision']) },
    age,
  ],
  services: [
    name,
    { name: 'Type', cell: (x) => text(spec(x)['type'], '') },
    {
      name: 'Cluster-IP',
      cell: (x) => String((spec(x)['clusterIPs'] as string[] | undefined)?.[0] ?? '<none>'),
    },
    { name: 'External-IP', cell: externalIP },
    { name: 'Port(s)', cell: servicePorts },
    age,
    { name: 'Selector', priority: 1, cell: (x) => formatLabels(spec(x)['selector']) },
  ],
  endpoints: [name, { name: 'Endpoints', cell: endpointAddresses }, age],
  'endpointslices.discovery.k8s.io': [
    name,
    { name: 'AddressType', cell: (x) => text(x['addressType'], '') },
    {
      name: 'Ports',
      cell: (x) =>
        upToThree(
          arr(x['ports']).map((p) => text(p['port'] ?? p['name'], '*')),
          '<unset>',
        ),
    },
    {
      name: 'Endpoints',
      cell: (x) =>
        upToThree(
          arr(x['endpoints']).flatMap((e) => (e['addresses'] as string[] | undefined) ?? []),
          '<unset>',
        ),
    },
    age,
  ],
  persistentvolumeclaims: [
    name,
    {
      name: 'Status',
      cell: (x) => (x.metadata.deletionTimestamp ? 'Terminating' : text(status(x)['phase'], '')),
    },
    { name: 'Volume', cell: (x) => text(spec(x)['volumeName'], '') },
    {
      name: 'Capacity',
      cell: (x) => (spec(x)['volumeName'] ? text(o(status(x)['capacity'])['storage']) : ''),
    },
    {
      name: 'Access Modes',
      cell: (x) =>
        spec(x)['volumeName']
          ? ((status(x)['accessModes'] as string[] | undefined) ?? [])
              .map((m) => ACCESS_MODES[m] ?? m)
              .join(',')
          : '',
    },
    { name: 'StorageClass', cell: (x) => text(spec(x)['storageClassName'], '') },
    {
      name: 'VolumeAttributesClass',
      cell: (x) => {
        const name = spec(x)['volumeAttributesClassName'];
        return typeof name === 'string' ? name : '<unset>';
      },
    },
    age,
    {
      name: 'VolumeMode',
      priority: 1,
      cell: (x) => text(spec(x)['volumeMode'], '<unset>'),
    },
  ],
  'cronjobs.batch': [
    name,
    { name: 'Schedule', cell: (x) => text(spec(x)['schedule'], '') },
    { name: 'Timezone', cell: (x) => text(spec(x)['timeZone'], '<none>') },
    {
      name: 'Suspend',
      type: 'boolean',
      cell: (x) =>
        typeof spec(x)['suspend'] === 'boolean'
          ? spec(x)['suspend']
            ? 'True'
            : 'False'
          : '<unset>',
    },
    count('Active', (x) => arr(status(x)['active']).length),
    {
      name: 'Last Schedule',
      cell: (x, now) => {
        const last = status(x)['lastScheduleTime'];
        return typeof last === 'string' ? humanAge(last, now) : '<none>';
      },
    },
    age,
    ...wideTemplate(
      (x) => o(o(o(spec(x)['jobTemplate'])['spec'])['template']),
      (x) => o(o(spec(x)['jobTemplate'])['spec'])['selector'],
    ),
  ],
};
