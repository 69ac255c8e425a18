/**
 * Checks DESIGN §5 invariants after the fact, from what the sim recorded: the API audit log (every
 * write, in resourceVersion order), the host log (every reboot and upgrade issued) and the final
 * state of the store. Decides, for a run, the list of violations (empty is the goal) and the figures
 * the reliability report quotes. It reads only what the sim saw on the wire, so it holds kubemaint
 * to what it did, not to what it believes it did. PDBs are judged apart (invariants-pdb.ts).
 *
 * A request is its MaintenanceRequest object (ADR 0012), read through the kube adapter's codec; a
 * node's request at any point is the one the control plane sees it with (its active request, else its
 * newest: requestsByNode), replayed from the writes of both the nodes and the requests.
 */
import { requestsByNode } from '../../src/adapters/kube/control-cluster.js';
import {
  decodeRequest,
  GROUP,
  REQUESTS,
  type StoredRequest,
} from '../../src/adapters/kube/request-codec.js';
import { LABEL_REQUEST } from '../../src/core/names.js';
import { isActive, type MaintenanceRequest } from '../../src/core/request.js';
import type { HostAction } from '@kubemaint/kubesim';
import { R, type AuditEntry, type KObject, type Store } from '@kubemaint/kubesim';
import { checkEvictions } from './invariants-pdb.js';

/** The store key of MaintenanceRequest objects in the sim. */
export const R_REQUESTS = `${REQUESTS}.${GROUP}`;

export interface InvariantInput {
  audit: readonly AuditEntry[];
  hostLog: readonly HostAction[];
  store: Pick<Store, 'list'>;
  /** The configured lock concurrency (DESIGN §5.1). */
  concurrency: number;
  /**
   * Who may approve in this run (person ids, `policy:<rule>`): an approval by anyone else makes a
   * request count as unapproved (DESIGN §5.2), however many approvals it carries.
   */
  approvers: ReadonlySet<string>;
  /** Only audit entries after this resourceVersion count (a test's own setup writes come before). */
  fromRv?: number;
  /** @default 'kubemaint' */
  namespace?: string;
}

export interface InvariantReport {
  violations: string[];
  /** Most nodes disrupted by kubemaint at once, from the replayed node and request writes. */
  maxDisrupted: number;
  /** Host actions issued (reboots and upgrades), duplicates included. */
  hostActions: number;
  /** Executor Jobs created. */
  jobs: number;
  /** Evictions that succeeded, each checked against its PDB (invariants-pdb.ts). */
  evictions: number;
  /**
   * Slots whose holder's request is finished or superseded. The executor's lock counts such a holder
   * stale (slots.ts) and takes the slot over, so §5.1 holds, but `locks` shows it held until then.
   */
  staleSlots: string[];
}

/** A MaintenanceRequest object as the control plane reads it (undefined: not a readable request). */
export function readStored(object: KObject): StoredRequest | undefined {
  const decoded = decodeRequest(object);
  return decoded.ok ? decoded.stored : undefined;
}

export function readRequest(object: KObject): MaintenanceRequest | undefined {
  return readStored(object)?.request;
}

/**
 * A proposal that lost a creation race (two serves proposing one node at once): kubemaint cancelled
 * it as it was born, because the node already had an active request (persist.ts). It never was the
 * node's request, though it is newer than the one that was.
 */
export function lostCreationRace(request: MaintenanceRequest): boolean {
  const [only, ...more] = request.history;
  return (
    request.state === 'cancelled' &&
    more.length === 0 &&
    only?.by === 'kubemaint' &&
    only.from === 'proposed' &&
    /already has request/.test(only.note ?? '')
  );
}

/**
 * Each node's request as the control plane sees it (its active one, else its newest; requestsByNode),
 * leaving out proposals that lost a creation race.
 */
export function nodeRequests(stored: readonly StoredRequest[]): Map<string, MaintenanceRequest> {
  const counted = stored.filter((s) => !lostCreationRace(s.request));
  return new Map([...requestsByNode(counted)].map(([node, s]) => [node, s.request]));
}

/** Each node's request in a store (nodeRequests). */
export function requestsOfNodes(store: Pick<Store, 'list'>): Map<string, MaintenanceRequest> {
  const stored = store
    .list(R_REQUESTS)
    .map(readStored)
    .filter((s): s is StoredRequest => s !== undefined);
  return nodeRequests(stored);
}

/**
 * Cordoned, drained or rebooting by kubemaint: the node is unschedulable because kubemaint cordoned
 * it (not a person before), or its request is past the host command. A request marked running whose
 * executor has not taken a slot yet has touched nothing, so it does not count.
 */
export function disruptedByKubemaint(
  node: KObject,
  request: MaintenanceRequest | undefined,
): boolean {
  if (!request) return false;
  if (request.state === 'verifying') return true;
  return (
    request.cordonedByUs === true &&
    request.wasCordoned !== true &&
    node.spec?.['unschedulable'] === true &&
    (request.state === 'running' || request.state === 'failed')
  );
}

/** Approved, and by the run's approvers only: not "any approval". */
const approved = (r: MaintenanceRequest, approvers: ReadonlySet<string>): boolean =>
  r.approvals.length > 0 &&
  r.approvals.every((a) => approvers.has(a.by)) &&
  r.state !== 'proposed' &&
  r.state !== 'rejected';

const approvalsOf = (r: MaintenanceRequest): string =>
  r.approvals.length > 0 ? ` approved by ${r.approvals.map((a) => a.by).join(', ')}` : '';

/** A node's request (or one request's versions) as of each write, from the replayed writes. */
interface NodeHistory {
  /** [rv, sim time ms, request] in write order. */
  writes: { rv: number; at: number; request: MaintenanceRequest | undefined }[];
}

interface Replayed {
  /** Each node's request as of each write to the node or to one of its requests. */
  byNode: Map<string, NodeHistory>;
  /** Each request's versions, by id. */
  byRequest: Map<string, NodeHistory>;
  maxDisrupted: number;
}

function replayNodes(input: InvariantInput, violations: string[]): Replayed {
  const byNode = new Map<string, NodeHistory>();
  const byRequest = new Map<string, NodeHistory>();
  const nodes = new Map<string, KObject>();
  const requests = new Map<string, StoredRequest>();
  const disrupted = new Set<string>();
  let maxDisrupted = 0;
  const requestOfNode = (node: string): MaintenanceRequest | undefined => {
    const mine = [...requests.values()].filter((s) => s.request.node === node);
    return nodeRequests(mine).get(node);
  };
  const push = (map: Map<string, NodeHistory>, key: string, write: NodeHistory['writes'][number]) =>
    map.set(key, { writes: [...(map.get(key)?.writes ?? []), write] });
  for (const entry of input.audit) {
    let node: string;
    if (entry.resource === R.nodes) {
      node = entry.name;
      if (entry.verb === 'delete') nodes.delete(node);
      else nodes.set(node, entry.object);
    } else if (entry.resource === R_REQUESTS) {
      const before = requests.get(entry.name);
      const stored = entry.verb === 'delete' ? undefined : readStored(entry.object);
      if (stored) requests.set(entry.name, stored);
      else requests.delete(entry.name);
      const request = stored?.request ?? before?.request;
      if (!request) continue;
      node = request.node;
      push(byRequest, entry.name, {
        rv: entry.rv,
        at: Date.parse(entry.at),
        request: stored?.request,
      });
    } else continue;
    const object = nodes.get(node);
    const request = object ? requestOfNode(node) : undefined;
    push(byNode, node, { rv: entry.rv, at: Date.parse(entry.at), request });
    if (entry.rv <= (input.fromRv ?? 0)) continue;
    if (object && disruptedByKubemaint(object, request)) disrupted.add(node);
    else disrupted.delete(node);
    if (disrupted.size > maxDisrupted) maxDisrupted = disrupted.size;
    if (disrupted.size > input.concurrency) {
      violations.push(
        `§5.1 at rv ${entry.rv}: ${disrupted.size} nodes disrupted at once (concurrency ${input.concurrency}): ${[...disrupted].join(', ')}`,
      );
    }
  }
  return { byNode, byRequest, maxDisrupted };
}

/** The request on `node` as of a point in the log: the last write at or before it. */
function requestAt(
  history: NodeHistory | undefined,
  before: (w: NodeHistory['writes'][number]) => boolean,
): MaintenanceRequest | undefined {
  let found: MaintenanceRequest | undefined;
  for (const write of history?.writes ?? []) {
    if (!before(write)) break;
    found = write.request;
  }
  return found;
}

function checkHostActions(
  input: InvariantInput,
  byNode: Map<string, NodeHistory>,
  violations: string[],
): number {
  const perRequest = new Map<string, number>();
  let count = 0;
  for (const action of input.hostLog) {
    const at = Date.parse(action.issuedAt);
    if (input.fromRv !== undefined) {
      const first = byNode.get(action.node)?.writes.find((w) => w.rv > (input.fromRv ?? 0));
      if (!first || first.at > at) continue;
    }
    count++;
    // The host command is issued after the executor wrote the bootID it saw; that write is the last
    // one at or before the command's sim time (both clocks are the sim's).
    const request = requestAt(byNode.get(action.node), (w) => w.at <= at);
    if (!request || !approved(request, input.approvers)) {
      violations.push(
        `§5.2: ${action.action} of ${action.node} at ${action.issuedAt} without an approved request (${request ? `${request.id} ${request.state}${approvalsOf(request)}` : 'none'})`,
      );
      continue;
    }
    const key = `${action.node}/${request.id}`;
    const seen = (perRequest.get(key) ?? 0) + 1;
    perRequest.set(key, seen);
    if (seen > 1) violations.push(`§5.5: request ${key} issued ${seen} host actions`);
  }
  return count;
}

function checkJobs(
  input: InvariantInput,
  byRequest: Map<string, NodeHistory>,
  violations: string[],
): number {
  const perRequest = new Map<string, string[]>();
  for (const entry of input.audit) {
    if (entry.resource !== R.jobs || entry.verb !== 'create') continue;
    if (entry.rv <= (input.fromRv ?? 0)) continue;
    const node = entry.object.spec?.['template'] as { spec?: { nodeName?: string } } | undefined;
    const nodeName = node?.spec?.nodeName ?? '';
    const requestId = entry.object.metadata.labels?.[LABEL_REQUEST] ?? entry.name;
    const names = perRequest.get(requestId) ?? [];
    names.push(entry.name);
    perRequest.set(requestId, names);
    const request = requestAt(byRequest.get(requestId), (w) => w.rv <= entry.rv);
    if (!request || request.node !== nodeName || !approved(request, input.approvers)) {
      violations.push(
        `§5.2: Job ${entry.name} created at rv ${entry.rv} for ${nodeName}, whose request was ${request ? `${request.id} ${request.state}${approvalsOf(request)}` : 'absent'}`,
      );
    }
  }
  for (const [id, names] of perRequest) {
    if (names.length > 1) violations.push(`one Job per request: ${id} had ${names.join(', ')}`);
  }
  return [...perRequest.values()].reduce((n, names) => n + names.length, 0);
}

function checkFinalState(input: InvariantInput, violations: string[], staleSlots: string[]): void {
  const nodes = new Map(input.store.list(R.nodes).map((n) => [n.metadata.name ?? '', n]));
  const ofNode = requestsOfNodes(input.store);
  const byId = new Map(
    input.store
      .list(R_REQUESTS)
      .map(readRequest)
      .filter((r): r is MaintenanceRequest => r !== undefined)
      .map((r) => [r.id, r]),
  );
  for (const [name, node] of nodes) {
    const request = ofNode.get(name);
    const cordonedByUs =
      node.spec?.['unschedulable'] === true &&
      request?.cordonedByUs === true &&
      request.wasCordoned !== true;
    if (!cordonedByUs || isActive(request.state)) continue;
    // Invariant 8 allows a node left cordoned when handing it back is unsafe, if the report says so.
    const said = request.state === 'failed' && /cordon/i.test(request.failure ?? '');
    if (!said)
      violations.push(
        `left cordoned by kubemaint: ${name} (request ${request.id} ${request.state})`,
      );
  }
  const namespace = input.namespace ?? 'kubemaint';
  for (const lease of input.store.list(R.leases, { namespace })) {
    const holder = (lease.spec?.['holderIdentity'] as string | undefined) ?? '';
    if (!holder) continue;
    const slash = holder.lastIndexOf('/');
    const request = byId.get(holder.slice(slash + 1));
    if (request && leftToExpire(lease, request)) continue;
    if (!request || request.node !== holder.slice(0, slash) || !isActive(request.state)) {
      staleSlots.push(
        `slot ${lease.metadata.name ?? ''} held by ${holder}, whose request is ${request ? `${request.id} ${request.state}` : 'gone'}`,
      );
    }
  }
}

/**
 * A slot its request held when it failed after the host command (the node did not come back, or its
 * state is unknown) is not released: nobody renews it and it expires at its TTL (real/faults.test.ts
 * watches it expire). It is stale only if someone renewed it after the failure.
 */
function leftToExpire(lease: KObject, request: MaintenanceRequest): boolean {
  if (request.state !== 'failed' || !request.hostCommandIssuedAt) return false;
  const spec = lease.spec as { renewTime?: string; acquireTime?: string } | undefined;
  const renewed = Date.parse(spec?.renewTime ?? spec?.acquireTime ?? '');
  return Number.isFinite(renewed) && renewed <= Date.parse(request.updatedAt);
}

/**
 * Every check at once; `violations` empty means the run kept DESIGN §5 (1, 2, 5, the end state) and
 * no eviction went past its PDB. Stale slot holders are listed apart (InvariantReport.staleSlots).
 */
export function checkInvariants(input: InvariantInput): InvariantReport {
  const violations: string[] = [];
  const { byNode, byRequest, maxDisrupted } = replayNodes(input, violations);
  const hostActions = checkHostActions(input, byNode, violations);
  const jobs = checkJobs(input, byRequest, violations);
  const evictions = checkEvictions(input.audit, input.fromRv ?? 0, violations);
  const staleSlots: string[] = [];
  checkFinalState(input, violations, staleSlots);
  return { violations, maxDisrupted, hostActions, jobs, evictions, staleSlots };
}

/**
 * The requests (`node/id`) that issued their host command after `fromRv`, from the request writes:
 * exactly these, no more and no fewer, may have rebooted a node.
 */
export function requestsThatIssuedHostCommands(
  audit: readonly AuditEntry[],
  fromRv = 0,
): Set<string> {
  const issued = new Set<string>();
  for (const entry of audit) {
    if (entry.resource !== R_REQUESTS || entry.rv <= fromRv || entry.verb === 'delete') continue;
    const request = readRequest(entry.object);
    if (request?.hostCommandIssuedAt) issued.add(`${request.node}/${request.id}`);
  }
  return issued;
}

/** The same, straight from a sim. */
export function checkSim(
  sim: {
    store: Pick<Store, 'list'>;
    admin: { audit(): readonly AuditEntry[]; hostLog(): readonly HostAction[] };
  },
  options: {
    concurrency: number;
    approvers: ReadonlySet<string>;
    fromRv?: number;
    namespace?: string;
  },
): InvariantReport {
  return checkInvariants({
    audit: sim.admin.audit(),
    hostLog: sim.admin.hostLog(),
    store: sim.store,
    ...options,
  });
}
