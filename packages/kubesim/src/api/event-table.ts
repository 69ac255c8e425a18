/**
 * `kubectl get events` columns, as kube-apiserver's event printer gives them (LAST SEEN, TYPE, REASON,
 * OBJECT, MESSAGE; SUBOBJECT, SOURCE, FIRST SEEN, COUNT and NAME with `-o wide`). The same printer
 * serves core/v1 and events.k8s.io/v1 Events, so each cell reads either version's field names.
 */
import type { KObject } from '../types.js';
import { humanAge } from './human-age.js';

type Obj = Record<string, unknown>;
const o = (v: unknown): Obj => (v !== null && typeof v === 'object' ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const either = (e: KObject, core: string, v1: string): unknown => e[core] ?? e[v1];

const ref = (e: KObject): Obj => o(either(e, 'involvedObject', 'regarding'));
const count = (e: KObject): number =>
  Number(o(e['series'])['count'] ?? either(e, 'count', 'deprecatedCount') ?? 1) || 1;
const firstSeen = (e: KObject): string | undefined =>
  text(either(e, 'firstTimestamp', 'deprecatedFirstTimestamp')) ||
  text(e['eventTime']) ||
  e.metadata.creationTimestamp;
const lastSeen = (e: KObject): string | undefined =>
  text(o(e['series'])['lastObservedTime']) ||
  text(either(e, 'lastTimestamp', 'deprecatedLastTimestamp')) ||
  text(e['eventTime']) ||
  e.metadata.creationTimestamp;

function lastSeenCell(e: KObject, now: Date): string {
  const last = humanAge(lastSeen(e), now);
  const n = count(e);
  return n > 1 ? `${last} (x${n} over ${humanAge(firstSeen(e), now)})` : last;
}

function source(e: KObject): string {
  const s = o(either(e, 'source', 'deprecatedSource'));
  const component =
    text(s['component']) || text(either(e, 'reportingComponent', 'reportingController'));
  const host = text(s['host']);
  return host ? `${component}, ${host}` : component;
}

export const EVENT_COLUMNS = [
  { name: 'Last Seen', cell: lastSeenCell },
  { name: 'Type', cell: (e: KObject) => text(e['type']) },
  { name: 'Reason', cell: (e: KObject) => text(e['reason']) },
  {
    name: 'Object',
    cell: (e: KObject) => `${text(ref(e)['kind']).toLowerCase()}/${text(ref(e)['name'])}`,
  },
  { name: 'Subobject', priority: 1, cell: (e: KObject) => text(ref(e)['fieldPath']) },
  { name: 'Source', priority: 1, cell: source },
  { name: 'Message', cell: (e: KObject) => text(either(e, 'message', 'note')) },
  { name: 'First Seen', priority: 1, cell: (e: KObject, now: Date) => humanAge(firstSeen(e), now) },
  { name: 'Count', priority: 1, cell: (e: KObject) => String(count(e)) },
  { name: 'Name', priority: 1, cell: (e: KObject) => e.metadata.name ?? '' },
];
