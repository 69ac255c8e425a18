/**
 * The volumes a container mounts, for a local process: a pod's ConfigMap, Secret and emptyDir
 * volumes are written to a folder of the pod's, as a kubelet projects them (every key a file, or the
 * `items` named; Secret values decoded). A local process cannot see a mount at the container's path
 * (`/etc/kubemaint`), so a path under a `mountPath` in the container's env is rewritten to the
 * local copy (`KUBEMAINT_CONFIG=/etc/kubemaint/kubemaint.yaml` names the file the kubelet wrote).
 * Args are left as they are: a path given there would name the real machine's file. Volumes of
 * other kinds (hostPath, projected, persistent claims) are not written; a path under them is not
 * rewritten either.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { podSpec, type Container, type KeyProjection, type Volume } from '../controllers/shapes.js';
import type { KObject } from '../types.js';

export type VolumeSource = { kind: 'configmap' | 'secret'; name: string };

/** The ConfigMap or Secret a volume projects, if it is one of those. */
export function volumeSource(volume: Volume): VolumeSource | undefined {
  if (volume.configMap) return { kind: 'configmap', name: volume.configMap.name };
  if (volume.secret) return { kind: 'secret', name: volume.secret.secretName };
  return undefined;
}

/** The volumes `container` mounts, with where each is mounted. */
export function mountedVolumes(
  pod: KObject,
  container: Container,
): { volume: Volume; mountPath: string }[] {
  const volumes = new Map((podSpec(pod).volumes ?? []).map((v) => [v.name, v]));
  return (container.volumeMounts ?? []).flatMap((mount) => {
    const volume = volumes.get(mount.name);
    // A subPath mount is one file or folder of the volume: not modelled, so not rewritten.
    return volume && !mount.subPath ? [{ volume, mountPath: mount.mountPath }] : [];
  });
}

/**
 * Writes a volume's files under `dir` from its source's `data` (undefined: the object does not
 * exist). Throws as a kubelet reports a mount failure when a non-optional source or key is missing.
 */
export function writeVolume(
  dir: string,
  volume: Volume,
  data: Record<string, string> | undefined,
): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const source = volumeSource(volume);
  if (!source) return; // emptyDir: the folder is the volume
  const projection: KeyProjection = volume.configMap ?? volume.secret ?? {};
  if (data === undefined) {
    if (projection.optional) return;
    throw new Error(`${source.kind} ${source.name} not found (volume ${volume.name})`);
  }
  const decode = (value: string) =>
    source.kind === 'secret' ? Buffer.from(value, 'base64') : value;
  const files = projection.items ?? Object.keys(data).map((key) => ({ key, path: key }));
  for (const { key, path } of files) {
    const value = data[key];
    if (value === undefined) {
      if (projection.optional) continue;
      throw new Error(
        `key ${key} not found in ${source.kind} ${source.name} (volume ${volume.name})`,
      );
    }
    const file = normalize(join(dir, path));
    // A kubelet refuses an item path with `..`; so does this, rather than write outside the pod's folder.
    if (relative(dir, file).startsWith('..'))
      throw new Error(`volume ${volume.name}: bad path ${path}`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, decode(value), { mode: 0o600 });
  }
}

/** `env` with every value that is a mount path, or a path under one, pointing at the local copy. */
export function rebasePaths(
  env: Record<string, string>,
  mounts: readonly { mountPath: string; local: string }[],
): Record<string, string> {
  // The longest mount path first: a mount inside another mount wins for its own files.
  const byDepth = [...mounts].sort((a, b) => b.mountPath.length - a.mountPath.length);
  const rebase = (value: string): string => {
    for (const { mountPath, local } of byDepth) {
      const root = mountPath.replace(/\/+$/, '');
      if (value === root) return local;
      if (value.startsWith(`${root}/`)) return join(local, value.slice(root.length + 1));
    }
    return value;
  };
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, rebase(value)]));
}
