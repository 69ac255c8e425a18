/**
 * Server-side printing (`meta.k8s.io/v1 Table`), which `kubectl get` asks for with
 * `Accept: application/json;as=Table;…`. kubectl has no printers of its own any more, so without
 * tables `kubectl get nodes -o wide` would show only NAME and AGE. Columns follow kube-apiserver's
 * printers for the kinds people look at (nodes, pods, deployments, PDBs, jobs, leases); other kinds
 * get NAME and AGE. Ages use sim time.
 */
import type { IncomingMessage } from 'node:http';
import type { ResourceDef } from '../resources.js';
import type { KObject } from '../types.js';
import { customResourceTable } from './crd-table.js';
import { humanAge } from './human-age.js';
import { EVENT_COLUMNS } from './event-table.js';
import { selectorText } from './selector-text.js';
import { KIND_COLUMNS, type KindColumn } from './kind-tables.js';

export { humanAge } from './human-age.js';

type Obj = Record<string, unknown>;
const o = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const str = (v: unknown, fallback = '<none>'): string =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : fallback;

export const wantsTable = (req: IncomingMessage): boolean =>
  /;\s*as=Table/.test(req.headers.accept ?? '');

/** A column and how each row fills it (kind-tables.ts declares the later kinds' the same way). */
type Column = KindColumn;

const nameCol: Column = { name: 'Name', cell: (x) => x.metadata.name ?? '' };
const ageCol: Column = {
  name: 'Age',
  cell: (x, now) => humanAge(x.metadata.creationTimestamp, now),
};

function nodeStatus(node: KObject): string {
  const ready = arr(o(node.status)['conditions']).find((c) => c['type'] === 'Ready');
  let s =
    ready?.['status'] === 'True' ? 'Ready' : ready?.['status'] === 'False' ? 'NotReady' : 'Unknown';
  if (o(node.spec)['unschedulable']) s += ',SchedulingDisabled';
  return s;
}

function nodeRoles(node: KObject): string {
  const roles = Object.keys(node.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.length > 0 ? roles.sort().join(',') : '<none>';
}

const address = (node: KObject, type: string) =>
  str(arr(o(node.status)['addresses']).find((a) => a['type'] === type)?.['address']);
const nodeInfo = (node: KObject, field: string) => str(o(o(node.status)['nodeInfo'])[field]);

function podStatus(pod: KObject): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  const status = o(pod.status);
  for (const cs of arr(status['containerStatuses'])) {
    const waiting = o(o(cs['state'])['waiting'])['reason'];
    const terminated = o(o(cs['state'])['terminated'])['reason'];
    if (typeof waiting === 'string') return waiting;
    if (typeof terminated === 'string' && status['phase'] !== 'Succeeded') return terminated;
  }
  return str(status['reason'], str(status['phase'], 'Unknown'));
}

function podReady(pod: KObject): string {
  const total = arr(o(pod.spec)['containers']).length;
  const ready = arr(o(pod.status)['containerStatuses']).filter((c) => c['ready'] === true).length;
  return `${ready}/${total}`;
}

const containers = (x: KObject) => arr(o(o(o(x.spec)['template'])['spec'])['containers']);

const restarts = (pod: KObject) =>
  arr(o(pod.status)['containerStatuses']).reduce((n, c) => n + (Number(c['restartCount']) || 0), 0);

const COLUMNS: Record<string, Column[]> = {
  nodes: [
    nameCol,
    { name: 'Status', cell: nodeStatus },
    { name: 'Roles', cell: nodeRoles },
    ageCol,
    { name: 'Version', cell: (x) => nodeInfo(x, 'kubeletVersion') },
    { name: 'Internal-IP', priority: 1, cell: (x) => address(x, 'InternalIP') },
    { name: 'External-IP', priority: 1, cell: (x) => address(x, 'ExternalIP') },
    { name: 'OS-Image', priority: 1, cell: (x) => nodeInfo(x, 'osImage') },
    { name: 'Kernel-Version', priority: 1, cell: (x) => nodeInfo(x, 'kernelVersion') },
    { name: 'Container-Runtime', priority: 1, cell: (x) => nodeInfo(x, 'containerRuntimeVersion') },
  ],
  pods: [
    nameCol,
    { name: 'Ready', cell: podReady },
    { name: 'Status', cell: podStatus },
    { name: 'Restarts', cell: restarts },
    ageCol,
    { name: 'IP', priority: 1, cell: (x) => str(o(x.status)['podIP']) },
    { name: 'Node', priority: 1, cell: (x) => str(o(x.spec)['nodeName']) },
    { name: 'Nominated Node', priority: 1, cell: (x) => str(o(x.status)['nominatedNodeName']) },
    { name: 'Readiness Gates', priority: 1, cell: () => '<none>' },
  ],
  'deployments.apps': [
    nameCol,
    {
      name: 'Ready',
      cell: (x) =>
        `${Number(o(x.status)['readyReplicas'] ?? 0)}/${Number(o(x.spec)['replicas'] ?? 0)}`,
    },
    { name: 'Up-to-date', cell: (x) => Number(o(x.status)['updatedReplicas'] ?? 0) },
    { name: 'Available', cell: (x) => Number(o(x.status)['availableReplicas'] ?? 0) },
    ageCol,
    {
      name: 'Containers',
      priority: 1,
      cell: (x) =>
        containers(x)
          .map((c) => c['name'])
          .join(','),
    },
    {
      name: 'Images',
      priority: 1,
      cell: (x) =>
        containers(x)
          .map((c) => c['image'])
          .join(','),
    },
    { name: 'Selector', priority: 1, cell: (x) => selectorText(o(x.spec)['selector']) || '<none>' },
  ],
  'poddisruptionbudgets.policy': [
    nameCol,
    { name: 'Min Available', cell: (x) => str(o(x.spec)['minAvailable'], 'N/A') },
    { name: 'Max Unavailable', cell: (x) => str(o(x.spec)['maxUnavailable'], 'N/A') },
    { name: 'Allowed Disruptions', cell: (x) => Number(o(x.status)['disruptionsAllowed'] ?? 0) },
    ageCol,
  ],
  'jobs.batch': [
    nameCol,
    {
      name: 'Completions',
      cell: (x) =>
        `${Number(o(x.status)['succeeded'] ?? 0)}/${Number(o(x.spec)['completions'] ?? 1)}`,
    },
    ageCol,
  ],
  'customresourcedefinitions.apiextensions.k8s.io': [
    nameCol,
    { name: 'Created At', cell: (x) => x.metadata.creationTimestamp ?? '' },
  ],
  events: EVENT_COLUMNS,
  'events.events.k8s.io': EVENT_COLUMNS,
  'leases.coordination.k8s.io': [
    nameCol,
    { name: 'Holder', cell: (x) => str(o(x.spec)['holderIdentity'], '') },
    ageCol,
  ],
};

export function toTable(def: ResourceDef, objects: readonly KObject[], now: Date, meta: Obj = {}) {
  if (def.custom) return customResourceTable(def.custom, objects, now, meta);
  const columns: readonly Column[] = COLUMNS[def.key] ?? KIND_COLUMNS[def.key] ?? [nameCol, ageCol];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: columns.map((c) => ({
      name: c.name,
      type:
        c.type ??
        (c.name === 'Restarts' || c.name === 'Allowed Disruptions' ? 'integer' : 'string'),
      format: c.name === 'Name' && c.priority === undefined ? 'name' : '',
      description: c.name,
      priority: c.priority ?? 0,
    })),
    rows: objects.map((x) => ({ cells: columns.map((c) => c.cell(x, now)), object: x })),
  };
}
