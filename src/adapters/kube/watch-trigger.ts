/**
 * What wakes `serve` between scheduled ticks: watches on kubemaint's requests (a person asked, the
 * executor moved one on) and decisions (an approval recorded from the CLI or kubectl), on the nodes
 * that matter (those with a request, `kubemaint.io/state`, and those carrying the reboot-required
 * label) and on kubemaint's Jobs, so approvals, verification and slot hand-off happen within seconds
 * rather than at the next minute; and
 * on PodDisruptionBudgets turning from refusing to allowing a disruption, which is what a request held
 * by the PDB preflight waits for (typically replacement pods becoming Ready); and on the switches
 * people turn from the CLI: the pause ConfigMap (`resume` acts at once) and the slots' holders (a
 * slot freed by `release` lets the next request start).
 * A change after a quiet spell wakes it at once; the burst that follows (a Job finishing touches
 * the Job, then the node, then the Lease) is debounced into one more `onChange` call, unless a node
 * comes back from its reboot in it, which wakes it at once too. Selectors
 * keep it cheap on a 5,000-node fleet: unmarked, idle nodes never appear.
 */
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PolicyV1Api,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from '../../log.js';
import {
  LABEL_MANAGED_BY,
  LABEL_REBOOT_REQUIRED,
  LABEL_STATE,
  MANAGED_BY,
  PAUSE_CONFIGMAP,
} from '../../core/names.js';
import {
  decisionFingerprint,
  jobFingerprint,
  nodeBack,
  nodeFingerprint,
  pauseFingerprint,
  pdbFingerprint,
  requestFingerprint,
  slotFingerprint,
} from './watch-fingerprints.js';
import { customObjectsPage, listAll, PAGE_SIZE } from './paginate.js';
import { DECISIONS, GROUP, REQUESTS, VERSION } from './request-codec.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import {
  startWatchStream,
  type ChangeDetail,
  type KubeObject,
  type WatchStream,
  type WatchStreamOptions,
} from './watch-stream.js';

export interface WatchTriggerOptions {
  /** kubemaint's namespace, where its Jobs run. */
  namespace: string;
  /** Called once per burst with what changed (for the log). Should not throw. */
  onChange: (changes: string[]) => void;
  log: Logger;
  /** @default 'kubemaint.io/reboot-required' (detection.rebootLabel) */
  rebootLabel?: string;
  /** Quiet time that closes a burst. @default 200 */
  debounceMs?: number;
  /** A steady stream of changes still calls onChange at least this often. @default 2_000 */
  maxWaitMs?: number;
  /** @default { initialMs: 500, maxMs: 30_000 } */
  backoff?: { initialMs: number; maxMs: number };
  /** Told whether the apiserver answered each list and watch request (serve's readiness). */
  onContact?: WatchStreamOptions['onContact'];
}

/** The stream of the pause switch: a change whose text starts with it was a `pause` or `resume`. */
export const PAUSE_STREAM = 'pause';

export interface WatchTrigger {
  /** Settles when every watch has its starting point (or the trigger was stopped). */
  ready: Promise<void>;
  stop(): void;
}

export function watchForChanges(
  kubeConfig: KubeConfig,
  options: WatchTriggerOptions,
): WatchTrigger {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const policy = kubeConfig.makeApiClient(PolicyV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const coordination = kubeConfig.makeApiClient(CoordinationV1Api);
  const watch = new Watch(kubeConfig);
  const debounce = debouncer(options);
  const common = {
    watch,
    onChange: (change: string, detail: ChangeDetail) => debounce.add(change, detail.urgent),
    log: options.log,
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.onContact ? { onContact: options.onContact } : {}),
  };
  // A node with a request that is also marked is in both node streams, and each of its changes
  // comes once from each: the second is dropped, or it would hold a burst open for nothing.
  const nodeVersions = new Map<string, { resourceVersion: string; urgent: boolean }>();
  const onNodeChange = (change: string, detail: ChangeDetail): void => {
    const seen = nodeVersions.get(detail.key);
    if (detail.resourceVersion !== undefined) {
      if (seen?.resourceVersion === detail.resourceVersion && (seen.urgent || !detail.urgent))
        return;
      nodeVersions.set(detail.key, {
        resourceVersion: detail.resourceVersion,
        urgent: detail.urgent,
      });
    }
    debounce.add(change, detail.urgent);
  };
  const nodeStream = (selector: string): WatchStream =>
    startWatchStream({
      ...common,
      onChange: onNodeChange,
      name: `nodes ${selector}`,
      path: '/api/v1/nodes',
      query: { labelSelector: selector },
      list: () =>
        inPages(`list nodes ${selector}`, (page) =>
          core.listNode({ labelSelector: selector, ...page }),
        ),
      fingerprint: nodeFingerprint,
      urgent: nodeBack,
    });
  const jobSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
  const namespace = options.namespace;
  const inNamespace = `namespaces/${encodeURIComponent(namespace)}`;
  // By name: serve may list and watch this one ConfigMap only (infra/k8s/rbac-serve.yaml).
  const pauseSelector = `metadata.name=${PAUSE_CONFIGMAP}`;
  const ours = (plural: string, fingerprint: (object: KubeObject) => string): WatchStream =>
    startWatchStream({
      ...common,
      name: plural,
      path: `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(options.namespace)}/${plural}`,
      query: {},
      list: () =>
        inPages(`list ${plural}`, async (page) =>
          customObjectsPage<object>(
            await custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace: options.namespace,
              plural,
              ...page,
            }),
          ),
        ),
      fingerprint,
    });
  const streams = [
    ours(REQUESTS, requestFingerprint),
    ours(DECISIONS, decisionFingerprint),
    nodeStream(LABEL_STATE),
    nodeStream(options.rebootLabel ?? LABEL_REBOOT_REQUIRED),
    startWatchStream({
      ...common,
      name: `jobs ${jobSelector}`,
      path: `/apis/batch/v1/namespaces/${encodeURIComponent(options.namespace)}/jobs`,
      query: { labelSelector: jobSelector },
      list: () =>
        inPages('list jobs', (page) =>
          batch.listNamespacedJob({
            namespace: options.namespace,
            labelSelector: jobSelector,
            ...page,
          }),
        ),
      fingerprint: jobFingerprint,
    }),
    startWatchStream({
      ...common,
      name: 'poddisruptionbudgets',
      path: '/apis/policy/v1/poddisruptionbudgets',
      query: {},
      list: () =>
        inPages('list poddisruptionbudgets', (page) =>
          policy.listPodDisruptionBudgetForAllNamespaces(page),
        ),
      fingerprint: pdbFingerprint,
    }),
    startWatchStream({
      ...common,
      name: PAUSE_STREAM,
      path: `/api/v1/${inNamespace}/configmaps`,
      query: { fieldSelector: pauseSelector },
      list: () =>
        inPages('list the pause configmap', (page) =>
          core.listNamespacedConfigMap({ namespace, fieldSelector: pauseSelector, ...page }),
        ),
      fingerprint: pauseFingerprint,
    }),
    startWatchStream({
      ...common,
      name: 'slots',
      path: `/apis/coordination.k8s.io/v1/${inNamespace}/leases`,
      query: {},
      list: () =>
        inPages('list leases', (page) => coordination.listNamespacedLease({ namespace, ...page })),
      fingerprint: slotFingerprint,
    }),
  ];
  return {
    ready: Promise.all(streams.map((s) => s.listed)).then(() => undefined),
    stop() {
      for (const stream of streams) stream.stop();
      debounce.stop();
    },
  };
}

interface ListAnswer {
  metadata?: { resourceVersion?: string; _continue?: string };
  items: object[];
}

/**
 * A watch's starting list in pages of PAGE_SIZE, as every other list of serve's: 5,000 marked nodes
 * or a year of PDBs never come back in one answer. Every page is read from the first one's snapshot,
 * so its resourceVersion is where the watch starts. No retry here: the stream backs off and relists.
 */
export async function inPages(
  what: string,
  page: (chunk: { limit: number; _continue?: string }) => Promise<ListAnswer>,
  limit = PAGE_SIZE,
): Promise<{ resourceVersion: string; items: KubeObject[] }> {
  let resourceVersion = '';
  const items = await listAll<object>(
    what,
    async (cont, limit) => {
      const answer = await page({ limit, ...(cont === undefined ? {} : { _continue: cont }) });
      if (cont === undefined) resourceVersion = answer.metadata?.resourceVersion ?? '';
      return { items: answer.items, metadata: { _continue: answer.metadata?._continue ?? '' } };
    },
    ONCE,
    limit,
  );
  return { resourceVersion, items };
}

const ONCE: RetryPolicy = { ...DEFAULT_RETRY, attempts: 1 };

/**
 * Leading and trailing edges, with a ceiling. A change after a quiet spell (no change for
 * `debounceMs`) is passed on at once: a node back from its reboot is verified, and its slot handed
 * on, now rather than a debounce later (issue 20: nothing between nodes waits on a timer it does not
 * need). The changes that follow within the spell are one call when they stop (a Job finishing
 * touches the Job, then the node, then the Lease), and a storm still gets a call every `maxWaitMs`.
 * An urgent change (a node back from its reboot) is never held: the echoes of serve's own writes
 * keep a spell from being quiet through much of a roll, and a node that came back inside one
 * waited for it to end.
 */
export function debouncer(
  options: Pick<WatchTriggerOptions, 'onChange' | 'log' | 'debounceMs' | 'maxWaitMs'>,
) {
  const debounceMs = options.debounceMs ?? 200;
  const maxWaitMs = options.maxWaitMs ?? 2_000;
  let pending: string[] = [];
  let firstAt = 0;
  let lastAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const call = (changes: string[]) => {
    try {
      options.onChange(changes);
    } catch (error) {
      options.log.error(
        { err: error instanceof Error ? error.message : String(error) },
        'onChange threw',
      );
    }
  };
  const fire = () => {
    timer = undefined;
    const changes = pending;
    pending = [];
    call(changes);
  };
  return {
    /** An urgent change is passed on at once, with the burst held so far. */
    add(change: string, urgent = false) {
      if (stopped) return;
      const at = Date.now();
      const quiet = at - lastAt >= debounceMs;
      lastAt = at;
      if (urgent) {
        clearTimeout(timer);
        timer = undefined;
        const changes = [...pending, change];
        pending = [];
        return call(changes);
      }
      if (quiet && pending.length === 0) return call([change]);
      if (pending.length === 0) firstAt = at;
      pending.push(change);
      clearTimeout(timer);
      const wait = Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - at));
      timer = setTimeout(fire, wait);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      pending = [];
    },
  };
}
