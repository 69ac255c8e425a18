/**
 * An in-memory cluster behind the executor's ports: nodes, pods, leases and MaintenanceRequests with
 * resourceVersions and conflicts, evictions decided by a `refuse` rule (a stand-in for PDBs), graceful
 * deletion that ends after `terminationMs`, a pod watch, and Events. It records what happened (`log`),
 * it asserts nothing.
 *
 * Requests behave as the status subresource does (ADR 0012): a status write is conditional on the
 * object's resourceVersion (stale → `conflict`), goes over the wire through the kube adapter's codec,
 * and changes only the status: the spec (node, action, who asked…) stays as it was created.
 */
import { decodeRequest, encodeRequest } from '../../src/adapters/kube/request-codec.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import type { MaintenanceCondition } from '../../src/core/node-conditions.js';
import { KubemaintError } from '../../src/errors.js';
import type {
  Clock,
  EventsPort,
  EvictionResult,
  HostPort,
  LeaseInfo,
  LeasesPort,
  NodeEvent,
  NodeInfo,
  NodesPort,
  PodInfo,
  PodWatchEvent,
  PodsPort,
  RequestsPort,
  StoredRequest,
} from '../../src/app/ports.js';

export const conflict = (what: string): KubemaintError =>
  new KubemaintError('conflict', `${what}: the object has been modified`);

export interface FakeClusterOptions {
  /** Wall ms a terminating pod takes to disappear. @default 5 */
  terminationMs?: number;
  /** An eviction refusal (a PDB at its minimum), or undefined to allow it. */
  refuse?: (pod: PodInfo, cluster: FakeCluster) => string | undefined;
  /** Pods that never go away once deleted (no kubelet). */
  stuck?: (pod: PodInfo) => boolean;
}

export class FakeCluster {
  rv = 1;
  readonly nodes = new Map<string, NodeInfo>();
  readonly pods = new Map<string, PodInfo>();
  readonly leases = new Map<string, LeaseInfo>();
  /** MaintenanceRequests by id, as stored. */
  readonly requests = new Map<string, StoredRequest>();
  /** Every status write the executor made through `requestsPort()`: the states it moved between. */
  readonly statusWrites: { id: string; from: string; to: string }[] = [];
  readonly events: { node: string; event: NodeEvent }[] = [];
  readonly log: string[] = [];
  /** Each node's maintenance conditions (KEP-5683 types) as last written, and every write's types. */
  readonly maintenanceConditions = new Map<string, MaintenanceCondition[]>();
  readonly conditionWrites: { node: string; types: string[]; hostCommandsBefore: number }[] = [];
  readonly host: string[] = [];
  readonly options: FakeClusterOptions;
  private readonly watchers = new Set<{ node: string; handler: (e: PodWatchEvent) => void }>();

  constructor(options: FakeClusterOptions = {}) {
    this.options = options;
  }

  nextRv(): string {
    this.rv += 1;
    return String(this.rv);
  }

  addNode(name: string, extra: Partial<NodeInfo> = {}): NodeInfo {
    const node: NodeInfo = {
      name,
      uid: `uid-${name}`,
      resourceVersion: this.nextRv(),
      unschedulable: false,
      bootId: `boot-${name}-1`,
      kubeletVersion: 'v1.31.4',
      ready: 'True',
      labels: {},
      annotations: {},
      ...extra,
    };
    this.nodes.set(name, node);
    return node;
  }

  addPod(pod: Partial<PodInfo> & { name: string; nodeName: string }): PodInfo {
    const full: PodInfo = {
      namespace: 'default',
      uid: `uid-${pod.name}`,
      phase: 'Running',
      labels: {},
      annotations: {},
      owners: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', controller: true }],
      hasEmptyDir: false,
      ...pod,
    };
    this.pods.set(`${full.namespace}/${full.name}`, full);
    this.notify('ADDED', full);
    return full;
  }

  /** Create a request (spec and status), as the control plane does. */
  addRequest(request: MaintenanceRequest): StoredRequest {
    if (this.requests.has(request.id))
      throw conflict(`maintenancerequests "${request.id}" already exists`);
    const stored = { request: wire(request), resourceVersion: this.nextRv() };
    this.requests.set(request.id, stored);
    return structuredClone(stored);
  }

  /** The request as stored now (a copy). */
  request(id: string): MaintenanceRequest | undefined {
    const stored = this.requests.get(id);
    return stored ? structuredClone(stored.request) : undefined;
  }

  /**
   * The control plane writes a request's status (a cancel, a drain decision, a forger with status
   * rights): unconditionally, and it changes the resourceVersion, so the executor's next write conflicts.
   */
  writeRequestStatus(
    id: string,
    change: (request: MaintenanceRequest) => MaintenanceRequest,
  ): void {
    const stored = this.requests.get(id);
    if (!stored) throw new KubemaintError('not_found', `maintenancerequests "${id}" not found`);
    this.requests.set(id, {
      request: statusOnly(stored.request, change(structuredClone(stored.request))),
      resourceVersion: this.nextRv(),
    });
  }

  podsOn(node: string): PodInfo[] {
    return [...this.pods.values()].filter((p) => p.nodeName === node);
  }

  private notify(type: PodWatchEvent['type'], pod: PodInfo): void {
    for (const w of this.watchers)
      if (w.node === pod.nodeName) w.handler({ type, pod: { ...pod } });
  }

  private terminate(pod: PodInfo): void {
    const key = `${pod.namespace}/${pod.name}`;
    if (!pod.deletionTimestamp) {
      pod.deletionTimestamp = new Date();
      this.notify('MODIFIED', pod);
    }
    if (this.options.stuck?.(pod)) return;
    setTimeout(() => {
      if (this.pods.get(key)?.uid !== pod.uid) return;
      this.pods.delete(key);
      this.log.push(`gone ${key}`);
      this.notify('DELETED', pod);
    }, this.options.terminationMs ?? 5);
  }

  nodesPort(): NodesPort {
    return {
      getNode: async (name) => {
        const node = this.nodes.get(name);
        return node ? structuredClone(node) : undefined;
      },
      writeNodeMeta: async (name, resourceVersion, meta) => {
        const node = this.nodes.get(name);
        if (!node) throw new KubemaintError('not_found', `nodes "${name}" not found`);
        if (node.resourceVersion !== resourceVersion) throw conflict(`nodes "${name}"`);
        for (const [k, v] of Object.entries(meta.annotations ?? {})) {
          if (v === null) delete node.annotations[k];
          else node.annotations[k] = v;
        }
        for (const [k, v] of Object.entries(meta.labels ?? {})) {
          if (v === null) delete node.labels[k];
          else node.labels[k] = v;
        }
        node.resourceVersion = this.nextRv();
        this.log.push(`write-request ${name}`);
        return structuredClone(node);
      },
      setUnschedulable: async (name, unschedulable) => {
        const node = this.nodes.get(name)!;
        node.unschedulable = unschedulable;
        node.resourceVersion = this.nextRv();
        this.log.push(`${unschedulable ? 'cordon' : 'uncordon'} ${name}`);
        return structuredClone(node);
      },
      setMaintenanceConditions: async (name, conditions) => {
        this.maintenanceConditions.set(name, structuredClone([...conditions]));
        this.conditionWrites.push({
          node: name,
          types: conditions.map((c) => c.type),
          hostCommandsBefore: this.host.length,
        });
      },
    };
  }

  requestsPort(): RequestsPort {
    return {
      get: async (id) => {
        const stored = this.requests.get(id);
        return stored ? structuredClone(stored) : undefined;
      },
      writeStatus: async (request, resourceVersion) => {
        const stored = this.requests.get(request.id);
        if (!stored) {
          throw new KubemaintError('not_found', `maintenancerequests "${request.id}" not found`);
        }
        if (stored.resourceVersion !== resourceVersion) {
          throw conflict(`maintenancerequests "${request.id}"`);
        }
        const next = {
          request: statusOnly(stored.request, request),
          resourceVersion: this.nextRv(),
        };
        this.requests.set(request.id, next);
        this.statusWrites.push({ id: request.id, from: stored.request.state, to: request.state });
        this.log.push(`write-request ${request.id}`);
        return next.resourceVersion;
      },
    };
  }

  podsPort(): PodsPort {
    return {
      listPodsOnNode: async (node) => this.podsOn(node).map((p) => ({ ...p })),
      evictPod: async (ref): Promise<EvictionResult> => {
        const pod = this.pods.get(`${ref.namespace}/${ref.name}`);
        if (!pod || pod.uid !== ref.uid) return { outcome: 'gone' };
        const refusal = pod.deletionTimestamp ? undefined : this.options.refuse?.(pod, this);
        if (refusal) {
          this.log.push(`refused ${ref.namespace}/${ref.name}`);
          return { outcome: 'refused', message: refusal, pdbBlocked: true };
        }
        this.log.push(`evict ${ref.namespace}/${ref.name}`);
        this.terminate(pod);
        return { outcome: 'evicting' };
      },
      deletePod: async (ref) => {
        const pod = this.pods.get(`${ref.namespace}/${ref.name}`);
        if (!pod || pod.uid !== ref.uid) return;
        this.log.push(`delete ${ref.namespace}/${ref.name}`);
        if (this.options.stuck?.(pod)) {
          // A forced delete (grace 0 semantics are the caller's) removes even a stuck pod.
          this.pods.delete(`${ref.namespace}/${ref.name}`);
          this.notify('DELETED', pod);
          return;
        }
        this.terminate(pod);
      },
      watchPodsOnNode: async (node, handler) => {
        const watcher = { node, handler };
        this.watchers.add(watcher);
        return () => this.watchers.delete(watcher);
      },
    };
  }

  leasesPort(): LeasesPort {
    return {
      getLease: async (ns, name) => {
        const lease = this.leases.get(`${ns}/${name}`);
        return lease ? { ...lease } : undefined;
      },
      createLease: async (ns, name, record) => {
        if (this.leases.has(`${ns}/${name}`)) throw conflict(`leases "${name}" already exists`);
        const lease: LeaseInfo = { name, resourceVersion: this.nextRv(), ...record };
        this.leases.set(`${ns}/${name}`, lease);
        this.log.push(`lease ${name} → ${record.holder}`);
        return { ...lease };
      },
      replaceLease: async (ns, name, rv, record) => {
        const current = this.leases.get(`${ns}/${name}`);
        if (!current || current.resourceVersion !== rv) throw conflict(`leases "${name}"`);
        const lease: LeaseInfo = { name, resourceVersion: this.nextRv(), ...record };
        this.leases.set(`${ns}/${name}`, lease);
        if (current.holder !== record.holder) this.log.push(`lease ${name} → ${record.holder}`);
        return { ...lease };
      },
    };
  }

  eventsPort(): EventsPort {
    return {
      recordNodeEvent: async (node, event) => {
        this.events.push({ node: node.name, event });
        this.log.push(`event ${event.reason}`);
      },
    };
  }

  hostPort(exitCode = 0): HostPort {
    return {
      run: async (argv) => {
        this.host.push(argv.join(' '));
        this.log.push(`host ${argv.join(' ')}`);
        return { exitCode, stderr: exitCode === 0 ? '' : 'boom' };
      },
      signal: (pid, signal) => {
        this.host.push(`kill -${signal} ${pid}`);
        this.log.push(`host kill -${signal} ${pid}`);
      },
    };
  }
}

const NAMESPACE = 'kubemaint';

/** A request as it comes back from the apiserver: encoded, sent as JSON, decoded by the one codec. */
function wire(request: MaintenanceRequest): MaintenanceRequest {
  const sent: unknown = JSON.parse(JSON.stringify(encodeRequest(request, NAMESPACE)));
  return decoded(sent, request.id);
}

/** A status-subresource write: the written status over the stored spec. */
function statusOnly(stored: MaintenanceRequest, written: MaintenanceRequest): MaintenanceRequest {
  const object = encodeRequest(stored, NAMESPACE);
  const { status } = encodeRequest(written, NAMESPACE);
  const sent: unknown = JSON.parse(JSON.stringify({ ...object, status }));
  return decoded(sent, stored.id);
}

function decoded(object: unknown, id: string): MaintenanceRequest {
  const result = decodeRequest(object);
  if (!result.ok) {
    throw new KubemaintError(
      'unexpected',
      `maintenancerequests "${id}" is invalid: ${result.problem}`,
    );
  }
  return result.stored.request;
}

/** The wall clock, for tests whose timings are a few milliseconds. */
export const testClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
