/**
 * Which pods a drain evicts, skips or refuses: kubectl's filter chain (k8s.io/kubectl/pkg/drain
 * `makeFilters`: skipDeleted, daemonSet, mirrorPod, localStorage, unreplicated, in that order, the first
 * "do not delete" ending the chain) with the same options and the same messages, plus two things of
 * ours that run before it: the pod selector (kubectl sends it to the server, so unmatched pods are
 * never considered) and the executor's own pod, which its own drain must never evict (invariant 7).
 * Pure: the caller lists the pods, answers the DaemonSet lookups and passes `now`.
 */
import { ANN_NODE, LABEL_MANAGED_BY, LABEL_NODE, MANAGED_BY } from './names.js';
import { matchesSelector, parseSelector } from '@kubemaint/label-selector';

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  controller?: boolean;
}

/** The few fields of a core/v1 Pod the filters read, as JSON from the API. */
export interface Pod {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    deletionTimestamp?: string | null;
  };
  spec?: { nodeName?: string; volumes?: { name: string; emptyDir?: object | null }[] };
  status?: { phase?: string };
}

/** What a GET of a pod's DaemonSet returned (kubectl asks the server; core is told). */
export type DaemonSetLookup = 'found' | 'not-found' | { error: string };

export interface DrainFilterOptions {
  /** The node being drained: with the labels below it identifies our own executor pod. */
  node: string;
  /** kubectl `--force`: evict pods without a controller, and pods of a DaemonSet that is gone. */
  force?: boolean;
  /** kubectl `--ignore-daemonsets`: leave DaemonSet pods in place with a warning instead of failing. */
  ignoreDaemonSets?: boolean;
  /** kubectl `--delete-emptydir-data`: evict pods with emptyDir volumes (their data is lost). */
  deleteEmptyDirData?: boolean;
  /** kubectl `--skip-wait-for-delete-timeout`: skip pods deleted more than this many seconds ago. @default 0 */
  skipWaitForDeleteTimeoutSeconds?: number;
  /** kubectl `--pod-selector`: only pods matching it are drained. @default '' (all pods) */
  podSelector?: string;
  /** The executor's own pod, `namespace/name` or `name`, never evicted by its own drain. */
  selfPod?: string;
  /** Answers for DaemonSet GETs by `namespace/name`; a missing entry means the DaemonSet exists. */
  daemonSets?: Readonly<Record<string, DaemonSetLookup>>;
}

export interface DrainSelection {
  evict: Pod[];
  /** Pods left in place on purpose, each with why. */
  skip: { pod: Pod; reason: string }[];
  /** Pods that stop the drain (each also named in `errors`). */
  blocked: { pod: Pod; reason: string }[];
  /** kubectl's grouped warnings: `<message>: ns/a, ns/b`. */
  warnings: string[];
  /** kubectl's grouped errors: `cannot delete <message>: ns/a, ns/b`. Any error means: do not drain. */
  errors: string[];
}

// The messages of kubectl HEAD pkg/drain/filters.go, verbatim.
export const DRAIN_MESSAGES = {
  daemonSetFatal: 'DaemonSet-managed Pods (use --ignore-daemonsets to ignore)',
  daemonSetWarning: 'ignoring DaemonSet-managed Pods',
  localStorageFatal: 'Pods with local storage (use --delete-emptydir-data to override)',
  localStorageWarning: 'deleting Pods with local storage',
  unmanagedFatal: 'Pods that declare no controller (use --force to override)',
  unmanagedWarning: 'deleting Pods that declare no controller',
} as const;

type Verdict =
  | { kind: 'ok' }
  | { kind: 'warn'; delete: boolean; message: string }
  | { kind: 'skip'; reason: string }
  | { kind: 'error'; message: string };

type Filter = (pod: Pod, options: DrainFilterOptions, now: Date) => Verdict;

export const podRef = (pod: Pod): string =>
  `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
const controllerOf = (pod: Pod): OwnerReference | undefined =>
  pod.metadata.ownerReferences?.find((ref) => ref.controller === true);
const finished = (pod: Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

const OK: Verdict = { kind: 'ok' };

const skipDeleted: Filter = (pod, options, now) => {
  const timeout = options.skipWaitForDeleteTimeoutSeconds ?? 0;
  const deleted = pod.metadata.deletionTimestamp;
  if (timeout <= 0 || !deleted) return OK;
  // kubectl truncates the age to whole seconds and skips only when it is strictly older.
  const ageSeconds = Math.trunc((now.getTime() - Date.parse(deleted)) / 1_000);
  return ageSeconds > timeout
    ? { kind: 'skip', reason: `DeletionTimestamp older than ${timeout} seconds` }
    : OK;
};

const daemonSet: Filter = (pod, options) => {
  const ref = controllerOf(pod);
  // kubectl HEAD also requires the apps/v1 group (1.32 checked the kind only).
  if (!ref || ref.kind !== 'DaemonSet' || ref.apiVersion !== 'apps/v1' || finished(pod)) return OK;
  const namespace = pod.metadata.namespace ?? 'default';
  const lookup = options.daemonSets?.[`${namespace}/${ref.name}`] ?? 'found';
  if (lookup !== 'found') {
    const message =
      lookup === 'not-found' ? `daemonsets.apps "${ref.name}" not found` : lookup.error;
    // An orphaned DaemonSet pod is deleted only with --force, exactly as kubectl does.
    return lookup === 'not-found' && options.force
      ? { kind: 'warn', delete: true, message }
      : { kind: 'error', message };
  }
  if (!options.ignoreDaemonSets) return { kind: 'error', message: DRAIN_MESSAGES.daemonSetFatal };
  return { kind: 'warn', delete: false, message: DRAIN_MESSAGES.daemonSetWarning };
};

const mirrorPod: Filter = (pod) =>
  pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined
    ? { kind: 'skip', reason: 'mirror pod (a static pod the kubelet owns; it cannot be evicted)' }
    : OK;

const localStorage: Filter = (pod, options) => {
  // hostPath is not local storage for kubectl: only emptyDir volumes count.
  const hasEmptyDir = (pod.spec?.volumes ?? []).some((v) => v.emptyDir != null);
  if (!hasEmptyDir || finished(pod)) return OK;
  return options.deleteEmptyDirData
    ? { kind: 'warn', delete: true, message: DRAIN_MESSAGES.localStorageWarning }
    : { kind: 'error', message: DRAIN_MESSAGES.localStorageFatal };
};

const unreplicated: Filter = (pod, options) => {
  if (finished(pod) || controllerOf(pod)) return OK;
  return options.force
    ? { kind: 'warn', delete: true, message: DRAIN_MESSAGES.unmanagedWarning }
    : { kind: 'error', message: DRAIN_MESSAGES.unmanagedFatal };
};

const KUBECTL_CHAIN: readonly Filter[] = [
  skipDeleted,
  daemonSet,
  mirrorPod,
  localStorage,
  unreplicated,
];

function isSelf(pod: Pod, options: DrainFilterOptions): boolean {
  const labels = pod.metadata.labels ?? {};
  // The annotation carries the node's full name; the label only a hash of a long one (names.ts).
  const node = pod.metadata.annotations?.[ANN_NODE] ?? labels[LABEL_NODE];
  if (labels[LABEL_MANAGED_BY] === MANAGED_BY && node === options.node) return true;
  const self = options.selfPod;
  if (!self) return false;
  return self.includes('/') ? podRef(pod) === self : pod.metadata.name === self;
}

/** Run the chain over one pod; warnings of every filter are kept (see `selectPodsToDrain`). */
function classify(pod: Pod, options: DrainFilterOptions, now: Date) {
  const warnings: string[] = [];
  for (const filter of KUBECTL_CHAIN) {
    const verdict = filter(pod, options, now);
    if (verdict.kind === 'ok') continue;
    if (verdict.kind === 'warn') {
      warnings.push(verdict.message);
      if (verdict.delete) continue;
      return { outcome: 'skip' as const, reason: verdict.message, warnings };
    }
    if (verdict.kind === 'skip')
      return { outcome: 'skip' as const, reason: verdict.reason, warnings };
    return { outcome: 'error' as const, reason: verdict.message, warnings };
  }
  return { outcome: 'evict' as const, warnings };
}

/** `{message → pods}` in first-seen order; kubectl uses a Go map, whose order is random. */
function grouped(entries: [message: string, pod: string][], prefix: string): string[] {
  const byMessage = new Map<string, string[]>();
  for (const [message, pod] of entries)
    byMessage.set(message, [...(byMessage.get(message) ?? []), pod]);
  return [...byMessage].map(([message, pods]) => `${prefix}${message}: ${pods.join(', ')}`);
}

/**
 * Decide, for the pods listed on `options.node`, which to evict. Every pod lands in exactly one of
 * `evict`, `skip` or `blocked`. Unlike kubectl, a warning of an earlier filter is not lost when a
 * later filter passes (kubectl keeps only the last status, a TODO in its source): people approving a
 * drain should hear that emptyDir data will be deleted even when the pod has a controller.
 */
export function selectPodsToDrain(
  pods: readonly Pod[],
  options: DrainFilterOptions,
  now: Date,
): DrainSelection {
  const out: DrainSelection = { evict: [], skip: [], blocked: [], warnings: [], errors: [] };
  const parsed = parseSelector(options.podSelector ?? '');
  if (!parsed.ok) {
    out.errors.push(
      `--pod-selector=${options.podSelector} must be a valid label selector: ${parsed.error}`,
    );
    return out;
  }
  const warned: [string, string][] = [];
  const failed: [string, string][] = [];
  for (const pod of pods) {
    if (!matchesSelector(parsed.selector, pod.metadata.labels)) {
      out.skip.push({ pod, reason: `does not match the pod selector "${options.podSelector}"` });
      continue;
    }
    if (isSelf(pod, options)) {
      out.skip.push({
        pod,
        reason: 'the kubemaint executor itself (never evicted by its own drain)',
      });
      continue;
    }
    const result = classify(pod, options, now);
    for (const warning of result.warnings) warned.push([warning, podRef(pod)]);
    if (result.outcome === 'evict') out.evict.push(pod);
    else if (result.outcome === 'skip') out.skip.push({ pod, reason: result.reason });
    else {
      out.blocked.push({ pod, reason: result.reason });
      failed.push([result.reason, podRef(pod)]);
    }
  }
  out.warnings = grouped(warned, '');
  out.errors = grouped(failed, 'cannot delete ');
  return out;
}
