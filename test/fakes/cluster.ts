/**
 * An in-memory cluster behind the executor's ports: nodes, pods and leases with resourceVersions and
 * conflicts, evictions decided by a `refuse` rule (a stand-in for PDBs), graceful deletion that ends
 * after `terminationMs`, a pod watch, and Events. It records what happened (`log`), it asserts nothing.
 */
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
  readonly events: { node: string; event: NodeEvent }[] = [];
  readonly log: string[] = [];
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
