/**
 * The environment a container sees, resolved as the kubelet does: literal `value`s, the downward API
 * (`fieldRef`: metadata.name/namespace/uid, labels/annotations, spec.nodeName, serviceAccountName,
 * status.podIP/hostIP) and ConfigMap / Secret keys, read through a lookup (the embedded store, or what
 * an attached kubelet fetched from the API beforehand: `envSources` names it); `envFrom` first, every
 * key of its ConfigMap or Secret, then `env`, which wins for a name both give (as in Kubernetes). A
 * missing non-optional reference is an error naming it, as `CreateContainerConfigError` does.
 */
import type { KObject, Store } from './types.js';
import { R } from './types.js';
import { podSpec, podStatus, type Container, type EnvFromSource } from './controllers/shapes.js';
import type { PrepareLaunch } from './jobs-runner.js';

export type EnvSourceKind = 'configmap' | 'secret';

/** A ConfigMap's or Secret's `data` (Secret values base64, as stored), or undefined if there is none. */
export type EnvLookup = (
  kind: EnvSourceKind,
  namespace: string | undefined,
  name: string,
) => Record<string, string> | undefined;

/** The ConfigMaps and Secrets a container's env refers to, each once. */
export function envSources(container: Container): { kind: EnvSourceKind; name: string }[] {
  const seen = new Map<string, { kind: EnvSourceKind; name: string }>();
  for (const from of container.envFrom ?? []) {
    const ref = fromRef(from);
    if (ref) seen.set(`${ref.kind}/${ref.name}`, { kind: ref.kind, name: ref.name });
  }
  for (const env of container.env ?? []) {
    const from = env.valueFrom;
    const ref = from?.configMapKeyRef ?? from?.secretKeyRef;
    if (!ref) continue;
    const kind: EnvSourceKind = from?.secretKeyRef ? 'secret' : 'configmap';
    seen.set(`${kind}/${ref.name}`, { kind, name: ref.name });
  }
  return [...seen.values()];
}

export const storeLookup =
  (store: Store): EnvLookup =>
  (kind, namespace, name) => {
    const object = store.get(kind === 'secret' ? R.secrets : R.configmaps, namespace, name);
    // Found with no data is not missing: an envFrom of it adds nothing, and is no error.
    return object ? ((object['data'] as Record<string, string> | undefined) ?? {}) : undefined;
  };

function fromRef(from: EnvFromSource) {
  if (from.secretRef) return { kind: 'secret' as const, ...from.secretRef };
  if (from.configMapRef) return { kind: 'configmap' as const, ...from.configMapRef };
  return undefined;
}

/** What a kubelet takes as a variable name from an envFrom key; others are skipped (with an Event). */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** The embedded sim's launch: env from its store, and its own kubeconfig for every process. */
export const storeLaunch =
  (store: Store, kubeconfigPath: () => string): PrepareLaunch =>
  (pod, container) => ({
    env: resolveEnv(storeLookup(store), pod, container),
    kubeconfigPath: kubeconfigPath(),
  });

function fieldValue(pod: KObject, path: string): string {
  const bracket = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (bracket) {
    const map = bracket[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[bracket[2] ?? ''] ?? '';
  }
  const values: Record<string, string | undefined> = {
    'metadata.name': pod.metadata.name,
    'metadata.namespace': pod.metadata.namespace,
    'metadata.uid': pod.metadata.uid,
    'spec.nodeName': podSpec(pod).nodeName,
    'spec.serviceAccountName': podSpec(pod).serviceAccountName,
    'status.podIP': podStatus(pod).podIP,
    'status.hostIP': podStatus(pod).hostIP,
  };
  return values[path] ?? '';
}

export function resolveEnv(
  lookup: EnvLookup,
  pod: KObject,
  container: Container,
): Record<string, string> {
  const namespace = pod.metadata.namespace;
  const out: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const ref = fromRef(from);
    if (!ref) continue;
    const data = lookup(ref.kind, namespace, ref.name);
    if (data === undefined) {
      if (ref.optional) continue;
      throw new Error(`${ref.kind} "${ref.name}" not found (envFrom)`);
    }
    for (const [key, raw] of Object.entries(data)) {
      const name = `${from.prefix ?? ''}${key}`;
      if (!ENV_NAME.test(name)) continue;
      out[name] = ref.kind === 'secret' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    }
  }
  for (const env of container.env ?? []) {
    const from = env.valueFrom;
    if (!from) {
      out[env.name] = env.value ?? '';
      continue;
    }
    if (from.fieldRef) {
      out[env.name] = fieldValue(pod, from.fieldRef.fieldPath);
      continue;
    }
    const ref = from.configMapKeyRef ?? from.secretKeyRef;
    if (!ref) continue;
    const isSecret = from.secretKeyRef !== undefined;
    const data = lookup(isSecret ? 'secret' : 'configmap', namespace, ref.name) ?? {};
    const raw = data[ref.key];
    if (raw === undefined) {
      if (ref.optional) continue;
      const kind = isSecret ? 'secret' : 'configmap';
      throw new Error(
        `couldn't find key ${ref.key} in ${kind} ${namespace ?? ''}/${ref.name} (env ${env.name})`,
      );
    }
    out[env.name] = isSecret ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  }
  return out;
}
