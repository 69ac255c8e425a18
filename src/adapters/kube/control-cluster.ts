/**
 * The control plane's ClusterPort over the real API: nodes with their request, Jobs with the executor's
 * exit code, slots, pods, dry-run evictions, Events and the pause switch. Built on the same
 * helpers as the executor's ports (typed errors, retries, pagination, merge patches).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { V1Node } from '@kubernetes/client-node';
import type {
  ClusterPort,
  JobView,
  NodeView,
  RequestScope,
  SlotView,
} from '../../app/control/ports.js';
import { LABEL_STATE, PAUSE_CONFIGMAP } from '../../core/names.js';
import { maintenanceConditions } from '../../core/node-conditions.js';
import {
  ACTIVE_STATES,
  endedUnreported,
  isActive,
  type MaintenanceRequest,
} from '../../core/request.js';
import { allEnded } from '../../all-ended.js';
import { readApiserverFacts } from './apiservers.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { recordNodeEvent } from './events.js';
import { createJob, getJob } from './jobs.js';
import { replaceLease, toLeaseInfo } from './leases.js';
import { setWaitingTaint } from './taints.js';
import { listAll } from './paginate.js';
import { listNodeObjects, patchNode, readNodeObject, toNodeInfo } from './nodes.js';
import { setMaintenanceConditions } from './node-conditions.js';
import { evictPod, listPodsOnNode, toPodInfo } from './pods.js';
import type { NodeCache } from './node-cache.js';
import { phaseOf } from '../../core/retention.js';
import { requestStore, type RequestStore, type StoredRequest } from './requests.js';
import { withRetry } from './retry.js';

const isNode = (node: V1Node | undefined): node is V1Node => node !== undefined;

export function toNodeView(node: V1Node): NodeView {
  const info = toNodeInfo(node);
  const conditions = Object.fromEntries(
    (node.status?.conditions ?? []).map((c) => [c.type, c.status]),
  );
  const readySince = node.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  return {
    ...info,
    conditions,
    ...(readySince ? { readySince: new Date(readySince).toISOString() } : {}),
  };
}

/**
 * The request a node is seen with: its active one (the first created, should two proposals have
 * raced), else its newest.
 */
export function requestsByNode(requests: readonly StoredRequest[]): Map<string, StoredRequest> {
  const byNode = new Map<string, StoredRequest>();
  for (const stored of requests) {
    const current = byNode.get(stored.request.node);
    if (!current || precedes(stored.request, current.request))
      byNode.set(stored.request.node, stored);
  }
  return byNode;
}

function precedes(a: MaintenanceRequest, b: MaintenanceRequest): boolean {
  const activeA = isActive(a.state);
  if (activeA !== isActive(b.state)) return activeA;
  const order = creation(a, b);
  return activeA ? order < 0 : order > 0;
}

/** > 0 when `a` was created after `b`: by the apiserver's versions, else createdAt, then id. */
function creation(a: MaintenanceRequest, b: MaintenanceRequest): number {
  return (
    createdOrder(a.createdVersion, b.createdVersion) ||
    a.createdAt.localeCompare(b.createdAt) ||
    a.id.localeCompare(b.id)
  );
}

/**
 * Which object the apiserver created first. resourceVersions are etcd revisions, decimal integers
 * on every apiserver we know; anything else (or a missing one) decides nothing here.
 */
function createdOrder(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return 0;
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function withRequest(view: NodeView, stored: StoredRequest | undefined): NodeView {
  if (!stored) return view;
  return {
    ...view,
    request: stored.request,
    requestVersion: stored.resourceVersion,
    requestAccepted: stored.accepted,
  };
}

/** A request whose node is gone: a view with the name only, so the tick can end it. */
function missingNode(stored: StoredRequest): NodeView {
  return withRequest(
    {
      name: stored.request.node,
      uid: '',
      resourceVersion: '',
      unschedulable: false,
      bootId: '',
      kubeletVersion: '',
      ready: 'Unknown',
      labels: {},
      annotations: {},
      conditions: {},
      missing: true,
    },
    stored,
  );
}

/**
 * One pass over the cluster (a tick): the requests not ended (core/retention.ts: a label selector,
 * so a year of history is not read on every tick) as read once, until a write in the pass.
 */
interface Pass {
  requests?: ReturnType<RequestStore['list']>;
}

/** Above this many nodes with requests, one node list is cheaper than a read per node. */
const READ_EACH_UP_TO = 10;

/**
 * The nodes whose requests are in these states, as their `kubemaint.io/state` mirror says: what
 * kube-apiserver can select for us, where listing every node read the whole fleet on each tick of a
 * roll (5,000 nodes, five pages, for fifty requests; issue 34). A mirror is a convenience and may
 * lag (its write failed, a person's request not accepted yet): the caller reads those nodes one by
 * one.
 */
export function stateSelector(states: Iterable<string>): string {
  return `${LABEL_STATE} in (${[...new Set(states)].sort().join(',')})`;
}

export function controlCluster(
  client: KubeClient,
  options: {
    namespace: string;
    now: () => Date;
    slackTeam?: string;
    /** Told when a node's mirror (its maintenance conditions) could not be written. */
    warn?: (fields: Record<string, unknown>, message: string) => void;
    /** `serve`'s watch of every node (ADR 0059): the whole fleet read from it, not listed. */
    nodeCache?: NodeCache;
  },
): ClusterPort {
  const cache = options.nodeCache;
  const { namespace } = options;
  const store = requestStore(client, {
    namespace,
    keepsPhase: true,
    ...(options.slackTeam ? { slackTeam: options.slackTeam } : {}),
  });
  // The pass is the async context of `onePass(work)`: what `work` calls reuses its read, while
  // everything else on this port (a Slack click during a tick) reads afresh, as without a pass.
  const passes = new AsyncLocalStorage<Pass>();
  const storedRequests = (): ReturnType<RequestStore['list']> => {
    const pass = passes.getStore();
    if (!pass) return store.list();
    pass.requests ??= store.list({ notEnded: true }).catch((error: unknown) => {
      delete pass.requests; // a failed read is not remembered
      throw error;
    });
    return pass.requests;
  };
  /**
   * What this pass read of the requests is out of date once it wrote one. Said before the write and
   * again after it lands: the tick steps several nodes at once, and a list another step began while
   * this write was on its way may not have it.
   */
  const stale = (): void => void delete passes.getStore()?.requests;
  const writing = async <T>(write: () => Promise<T>): Promise<T> => {
    stale();
    try {
      return await write();
    } finally {
      stale();
    }
  };

  async function joined(nodes: V1Node[]): Promise<NodeView[]> {
    // No node, nothing to join: an idle tick's empty label-selected list costs no request read.
    if (nodes.length === 0) return [];
    const { requests } = await storedRequests();
    const byNode = requestsByNode(requests);
    return nodes.map((node) => {
      const view = toNodeView(node);
      return withRequest(view, byNode.get(view.name));
    });
  }

  /** How many active requests the last read of them found. */
  let activeLastRead = 0;

  /**
   * Each node's uid as last read, for the Events serve writes on it (an Event names its node's
   * uid). A read per Event was the most frequent request of a roll, and one lay between each
   * request's `done` and the next node's start (issue 34). Learned from every read of a node with
   * a request (each tick reads those again, so a node made anew under its old name is learned
   * anew); a node not read yet is read. One short string per node.
   */
  const uids = new Map<string, string>();
  const learn = <N extends V1Node | undefined>(node: N): N => {
    const { name, uid } = node?.metadata ?? {};
    if (name && uid) uids.set(name, uid);
    return node;
  };

  async function nodesFor(scope: RequestScope): Promise<NodeView[]> {
    // In a roll (more active requests than are read one by one, as the last read found) the nodes
    // of every active state are listed beside the requests, not after them: one answer less to
    // wait for on the way of each slot hand-off, which reads them after the tick's steps (issue 34).
    // An idle cluster's read stays one request.
    const early =
      scope === 'active' && activeLastRead > READ_EACH_UP_TO
        ? listNodeObjects(client, stateSelector(ACTIVE_STATES))
        : undefined;
    // Each node's latest request may be an ended one: that scope reads the history, never the pass's.
    // Both reads end before either's failure is thrown: nothing is left under way.
    const [{ requests }, listed] = await allEnded([
      scope === 'all' ? store.list() : storedRequests(),
      early,
    ]);
    // Every active request (two for one node when a person asked while another was active: the
    // tick refuses the later one), or each node's request once.
    const wanted =
      scope === 'active'
        ? requests.filter((stored) => isActive(stored.request.state))
        : scope === 'unreported'
          ? requests.filter((stored) => endedUnreported(stored.request))
          : [...requestsByNode(requests).values()];
    if (scope === 'active') activeLastRead = wanted.length;
    if (wanted.length === 0) return [];
    const found = new Map<string, V1Node>();
    const keep = (nodes: readonly V1Node[]) => {
      for (const node of nodes) found.set(node.metadata?.name ?? '', learn(node));
    };
    // Every node with a request, history included, is the status page's (seconds behind is fine
    // there); the tick's scopes verify and dispatch, so they read the API itself.
    const cached = scope === 'all' ? await cache?.nodes() : undefined;
    if (cached) keep(cached);
    else if (listed) keep(listed);
    // Every active state beside the requests' own: an executor writes `verifying` to the request
    // and only serve's next write moves the node's mirror, so a selector of the requests' states
    // missed those nodes and each tick of a roll read them one by one, after the list (issue 34).
    else if (wanted.length > READ_EACH_UP_TO)
      keep(
        await listNodeObjects(
          client,
          stateSelector([...ACTIVE_STATES, ...wanted.map((s) => s.request.state)]),
        ),
      );
    const names = [...new Set(wanted.map((s) => s.request.node))].filter((n) => !found.has(n));
    // Each node the list did not bring (few, or none), read alone: one that is gone is missing.
    keep((await Promise.all(names.map((name) => readNodeObject(client, name)))).filter(isNode));
    return wanted.map((stored) => {
      const node = found.get(stored.request.node);
      return node ? withRequest(toNodeView(node), stored) : missingNode(stored);
    });
  }

  /**
   * The node's requests as stored before an ended request is written (undefined for an active one,
   * which needs none of them): its own list (a field selector, the node's few objects), because the
   * pass's read leaves out the ended ones.
   */
  async function nodeHistory(request: MaintenanceRequest): Promise<StoredRequest[] | undefined> {
    if (isActive(request.state)) return undefined;
    const { requests } = await store.list({ node: request.node });
    return requests.filter((stored) => stored.request.node === request.node);
  }

  /**
   * Whether the node's state label follows this request: an active one always does; an ended one
   * only while no other request of the node comes before it as stored (an executor's end reported
   * after the node got a newer request must not relabel the node with the old request's state; a
   * request that was active until this write still comes first).
   */
  function mirroredBy(request: MaintenanceRequest, history: StoredRequest[] | undefined): boolean {
    if (!history) return true;
    const first = requestsByNode(history).get(request.node);
    return first === undefined || first.request.id === request.id;
  }

  /**
   * A `quiet` request keeps detection from proposing its node again, and the tick's read of the
   * requests (not labelled ended) carries it, but only while it is its node's newest
   * (core/retention.ts). So once a request ends, every quiet one of its node that a newer one
   * follows is labelled ended, this one too: left quiet, it would stand for its node in that read
   * once the newer one ended `done` (which leaves the read), and hold back a new mark until the
   * next retention sweep. A request written before labels existed counts by its state.
   * The label is a convenience for reads (ADR 0043): one not written is said and left to the sweep.
   */
  async function endOutdatedQuiet(request: MaintenanceRequest, history: StoredRequest[]) {
    const stored = history.find((s) => s.request.id === request.id);
    const after: StoredRequest[] = [
      ...history.filter((s) => s.request.id !== request.id),
      { resourceVersion: '', accepted: true, ...stored, request, phase: phaseOf(request) },
    ];
    const outdated = after.filter(
      (s) =>
        (s.phase ?? phaseOf(s.request)) === 'quiet' &&
        after.some((other) => creation(other.request, s.request) > 0),
    );
    await Promise.all(
      outdated.map((s) =>
        store
          .relabel(s.request.id, 'ended')
          .catch((error: unknown) =>
            options.warn?.(
              { request: s.request.id, err: error },
              'could not label an outdated quiet request ended (the next skew scan will)',
            ),
          ),
      ),
    );
  }

  /** The node's request as a view shows it (this pass's read when it has one, else the node's). */
  async function nodeRequest(name: string): Promise<StoredRequest | undefined> {
    // The filter keeps what the spec says (an apiserver without the selectable field lists all).
    const { requests } = await (passes.getStore()?.requests ?? store.list({ node: name }));
    const mine = requests.filter((stored) => stored.request.node === name);
    return requestsByNode(mine).get(name);
  }

  const fleet = async (): Promise<V1Node[]> =>
    (await cache?.nodes()) ?? (await listNodeObjects(client));
  /** A node write's answer: the cache's reads wait until its watch has seen it. */
  const wroteNode = <T extends { resourceVersion: string }>(written: T): T => {
    cache?.wrote(written.resourceVersion);
    return written;
  };

  return {
    // Every node (the health gates, the status page) from the cache when serve keeps one; a
    // selected few (the marked ones) from the API, as fresh as can be.
    listNodes: async (labelSelector) =>
      joined(
        labelSelector === undefined ? await fleet() : await listNodeObjects(client, labelSelector),
      ),
    listRequestNodes: nodesFor,
    async listRequests(options) {
      const { requests, problems } = await store.list();
      if (options?.strict && problems.length > 0)
        throw new Error(
          `${problems.map((p) => `MaintenanceRequest ${p.name} cannot be read (${p.problem})`).join('; ')}`,
        );
      return requests.map((stored) => stored.request);
    },
    async getNode(name) {
      const node = learn(await readNodeObject(client, name));
      if (!node) return undefined;
      // This node's requests only: a click or a proposal reads one node, not the fleet's requests
      // (unless this pass has read them all already).
      return withRequest(toNodeView(node), await nodeRequest(name));
    },
    async findRequest(id) {
      const stored = await store.get(id);
      if (!stored) return undefined;
      const node = learn(await readNodeObject(client, stored.request.node));
      return node ? withRequest(toNodeView(node), stored) : missingNode(stored);
    },
    onePass: (work) => passes.run({}, work),
    async writeRequest(request, requestVersion) {
      const history = await nodeHistory(request);
      const mirrored = mirroredBy(request, history);
      const resourceVersion = await writing(async () =>
        requestVersion === undefined
          ? (await store.create(request)).resourceVersion
          : await store.writeStatus(request, requestVersion),
      );
      if (history) await writing(() => endOutdatedQuiet(request, history));
      // The mirror label (kubectl get nodes -L kubemaint.io/state) is a convenience: the request is
      // written, so a node that is gone or a refused patch does not undo it.
      if (mirrored)
        await Promise.all([
          patchNode(client, request.node, {
            metadata: { labels: { [LABEL_STATE]: request.state } },
          })
            .then(wroteNode)
            .catch(() => undefined),
          // The same for the node's maintenance conditions (ADR 0041): other tools' view of it.
          // A refusal is said, not thrown: the request is written (an install whose RBAC predates
          // nodes/status gets a warning per write until it is updated).
          setMaintenanceConditions(client, request.node, maintenanceConditions(request)).catch(
            (error: unknown) =>
              options.warn?.(
                { node: request.node, request: request.id, err: error },
                'could not write the node maintenance conditions',
              ),
          ),
        ]);
      return resourceVersion;
    },
    async submit(request) {
      await writing(() => store.submit(request));
    },
    withdrawRequest: (id) => writing(() => store.remove(id)),
    decisions: async (requestId) => (await store.decisions(requestId)).decisions,
    decide: (decision) => store.decide(decision),
    async patchNode(node, patch) {
      const body: Record<string, unknown> = {};
      if (patch.unschedulable !== undefined) body.spec = { unschedulable: patch.unschedulable };
      const metadata: Record<string, unknown> = {};
      if (patch.labels && Object.keys(patch.labels).length) metadata.labels = patch.labels;
      if (patch.annotations && Object.keys(patch.annotations).length)
        metadata.annotations = patch.annotations;
      if (Object.keys(metadata).length) body.metadata = metadata;
      if (Object.keys(body).length) wroteNode(await patchNode(client, node, body));
    },
    setWaitingTaint: (node, key, present) => setWaitingTaint(client, node, key, present),
    apiserverFacts: () => readApiserverFacts(client),
    async getJob(name): Promise<JobView | undefined> {
      const job = await getJob(client, namespace, name);
      if (!job || job.phase !== 'failed') return job;
      const ended = await failedContainer(client, namespace, name);
      return { ...job, ...ended };
    },
    createJob: (manifest) => createJob(client, manifest),
    async listSlots(): Promise<SlotView[]> {
      const leases = await withRetry(
        `list leases in ${namespace}`,
        () => client.coordination.listNamespacedLease({ namespace }),
        client.retry,
      );
      return leases.items
        .map(toLeaseInfo)
        .filter((l) => l.name.startsWith('kubemaint-slot-'))
        .map((l) => ({
          name: l.name,
          holder: l.holder,
          ...(l.renewedAt ? { renewedAt: l.renewedAt } : {}),
          durationSeconds: l.durationSeconds,
        }))
        .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    },
    async releaseSlot(name, holder) {
      const lease = await withRetry(
        `get lease ${namespace}/${name}`,
        () => client.coordination.readNamespacedLease({ name, namespace }),
        client.retry,
      ).catch((error: unknown) => {
        if (isKubeError(error, 'not-found')) return undefined;
        throw error;
      });
      if (!lease) return false;
      const info = toLeaseInfo(lease);
      if (info.holder !== holder) return false;
      const now = options.now();
      try {
        await replaceLease(client, namespace, name, info.resourceVersion, {
          holder: '',
          durationSeconds: info.durationSeconds || 1,
          acquiredAt: info.acquiredAt ?? now,
          renewedAt: now,
          transitions: info.transitions,
        });
        return true;
      } catch (error) {
        if (isKubeError(error, 'conflict')) return false;
        throw error;
      }
    },
    async listPods({ node, labelSelector }) {
      if (node) return listPodsOnNode(client, node, labelSelector);
      const pods = await listAll(
        'list pods',
        (cont, limit) =>
          client.core.listPodForAllNamespaces({
            limit,
            ...(cont === undefined ? {} : { _continue: cont }),
            ...(labelSelector ? { labelSelector } : {}),
          }),
        client.retry,
      );
      return pods.map(toPodInfo);
    },
    async dryRunEvict(podNamespace, name) {
      const result = await evictPod(
        client,
        { namespace: podNamespace, name, uid: '' },
        { dryRun: true },
      );
      return result.outcome === 'refused' ||
        result.outcome === 'failed' ||
        result.outcome === 'unavailable'
        ? result.message
        : undefined;
    },
    async recordEvent(node, event) {
      const uid =
        uids.get(node) ??
        learn(await readNodeObject(client, node).catch(() => undefined))?.metadata?.uid;
      await recordNodeEvent(
        client,
        { name: node, uid: uid ?? '' },
        { reason: event.reason, message: event.message, type: event.type ?? 'Normal' },
        options.now(),
      );
    },
    async readPause() {
      try {
        const cm = await withRetry(
          'read pause state',
          () => client.core.readNamespacedConfigMap({ name: PAUSE_CONFIGMAP, namespace }),
          client.retry,
        );
        const data = cm.data ?? {};
        return {
          paused: data.paused === 'true',
          ...(data.reason ? { reason: data.reason } : {}),
          ...(data.by ? { by: data.by } : {}),
          ...(data.at ? { at: data.at } : {}),
        };
      } catch (error) {
        if (isKubeError(error, 'not-found')) return { paused: false };
        throw error;
      }
    },
    async writePause(state) {
      const data: Record<string, string> = { paused: String(state.paused) };
      if (state.reason) data.reason = state.reason;
      if (state.by) data.by = state.by;
      if (state.at) data.at = state.at;
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: PAUSE_CONFIGMAP, namespace },
        data,
      };
      try {
        await withRetry(
          'write pause state',
          () => client.core.replaceNamespacedConfigMap({ name: PAUSE_CONFIGMAP, namespace, body }),
          client.retry,
        );
      } catch (error) {
        if (!isKubeError(error, 'not-found')) throw error;
        await withRetry(
          'create pause state',
          () => client.core.createNamespacedConfigMap({ namespace, body }),
          client.retry,
        );
      }
    },
  };
}

/**
 * How the Job's container ended, read from its pod: the executor's exit code says why it failed, the
 * kubelet's reason when it did not end by itself (OOMKilled, or Unknown: lost with its node's boot),
 * a hook's termination message (the end of its log) what went wrong.
 */
async function failedContainer(
  client: KubeClient,
  namespace: string,
  job: string,
): Promise<{ exitCode?: number; exitReason?: string; podMessage?: string }> {
  const pods = await withRetry(
    `list pods of job ${job}`,
    () => client.core.listNamespacedPod({ namespace, labelSelector: `job-name=${job}` }),
    client.retry,
  );
  for (const pod of pods.items) {
    // The container that failed (a hook's init container may be the one), else the first one's end.
    const statuses = [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ];
    const ended =
      statuses.find((c) => (c.state?.terminated?.exitCode ?? 0) !== 0)?.state?.terminated ??
      pod.status?.containerStatuses?.[0]?.state?.terminated;
    if (ended)
      return {
        exitCode: ended.exitCode,
        ...(ended.reason ? { exitReason: ended.reason } : {}),
        ...(ended.message ? { podMessage: ended.message.slice(-2_000) } : {}),
      };
  }
  return {};
}
