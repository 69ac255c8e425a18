/**
 * The few Kubernetes field shapes the controllers and kubelets read and write, typed once. Objects in
 * the store are plain JSON (`KObject`); these views are casts over them, not copies.
 */
import type { KObject, OwnerReference } from '../types.js';

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  lastProbeTime?: string | null;
  lastUpdateTime?: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  volumeMounts?: VolumeMount[];
}

/** Every key of a ConfigMap or Secret as a variable (`prefix` before each name). */
export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
}

/** The files a ConfigMap or Secret volume projects: every key, or the `items` named. */
export interface KeyProjection {
  items?: { key: string; path: string }[];
  optional?: boolean;
}

export interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  configMap?: KeyProjection & { name: string };
  secret?: KeyProjection & { secretName: string };
}

export interface NodeSelectorTerm {
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
  matchFields?: { key: string; operator: string; values?: string[] }[];
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  containers?: Container[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  serviceAccountName?: string;
  volumes?: Volume[];
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
    };
  };
  [field: string]: unknown;
}

export interface ContainerStatus {
  name: string;
  image?: string;
  imageID?: string;
  containerID?: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state: {
    waiting?: { reason: string; message?: string };
    running?: { startedAt: string };
    terminated?: {
      exitCode: number;
      reason?: string;
      message?: string;
      startedAt?: string;
      finishedAt: string;
    };
  };
  lastState?: ContainerStatus['state'];
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: Condition[];
  containerStatuses?: ContainerStatus[];
  hostIP?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  reason?: string;
  message?: string;
  [field: string]: unknown;
}

export const podSpec = (pod: KObject): PodSpec => pod.spec ?? {};
export const podStatus = (pod: KObject): PodStatus => pod.status ?? {};

export function controllerRef(object: KObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

export const keyOf = (object: KObject): string =>
  object.metadata.namespace
    ? `${object.metadata.namespace}/${object.metadata.name ?? ''}`
    : (object.metadata.name ?? '');

/** `ns/name` → [ns, name]; a cluster-scoped key has no slash. */
export function splitKey(key: string): [string | undefined, string] {
  const slash = key.indexOf('/');
  return slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)];
}

export function findCondition(
  conditions: Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/**
 * Set a condition in place; `lastTransitionTime` moves only when the status changes (as the real
 * controllers do), so an unchanged condition does not make a write.
 */
export function setCondition(
  holder: { conditions?: Condition[] },
  next: Omit<Condition, 'lastTransitionTime'>,
  nowIso: string,
): void {
  holder.conditions ??= [];
  const existing = holder.conditions.find((condition) => condition.type === next.type);
  if (!existing) {
    holder.conditions.push({ ...next, lastTransitionTime: nowIso });
    return;
  }
  if (existing.status !== next.status) existing.lastTransitionTime = nowIso;
  Object.assign(existing, next);
}

export const isPodTerminal = (pod: KObject): boolean =>
  podStatus(pod).phase === 'Succeeded' || podStatus(pod).phase === 'Failed';

export const isPodReady = (pod: KObject): boolean =>
  findCondition(podStatus(pod).conditions, 'Ready')?.status === 'True';

/** Counts toward a controller's replicas: not terminal, not being deleted. */
export const isPodActive = (pod: KObject): boolean =>
  !isPodTerminal(pod) && pod.metadata.deletionTimestamp === undefined;

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** The apiserver's generateName suffix: five characters that never spell words. */
export function randomSuffix(length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  }
  return out;
}
