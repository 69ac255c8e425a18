/**
 * The environment a container sees, resolved as the kubelet does: literal `value`s, the downward API
 * (`fieldRef`: metadata.name/namespace/uid, labels/annotations, spec.nodeName, serviceAccountName,
 * status.podIP/hostIP) and ConfigMap / Secret keys from the store. A missing non-optional reference is
 * an error naming the variable, as `CreateContainerConfigError` does.
 */
import type { KObject, Store } from './types.js';
import { R } from './types.js';
import { podSpec, podStatus, type Container } from './controllers/shapes.js';

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
  store: Store,
  pod: KObject,
  container: Container,
): Record<string, string> {
  const namespace = pod.metadata.namespace;
  const out: Record<string, string> = {};
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
    const source = store.get(isSecret ? R.secrets : R.configmaps, namespace, ref.name);
    const data = (source?.['data'] ?? {}) as Record<string, string>;
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
