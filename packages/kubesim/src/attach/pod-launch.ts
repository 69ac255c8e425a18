/**
 * What a pod's local process starts with on an attached node, prepared as a kubelet prepares a
 * container: its env, with ConfigMap and Secret keys read from the API as the node (the Node
 * authorizer lets a node read exactly those its pods refer to), and, when the pod runs as a service
 * account, a kubeconfig with a token minted for the pod: a TokenRequest bound to it (kind Pod, name,
 * uid), asked as the node, which the apiserver grants only for a pod bound to that node. The server
 * URL and CA come from the given kubeconfig; its credentials never reach the process. A real kubelet
 * rotates the token before it expires; these processes live minutes, so one hour is enough.
 *
 * What a container finds at fixed paths (the projected service-account volume, a hostPath mount of the
 * host's `/`) cannot be at those paths for a local process, so it is written to a folder of the pod's
 * and named in the env: `KUBEMAINT_SIM_SERVICEACCOUNT_DIR` (token, ca.crt, namespace) and, with a hosts
 * folder, `KUBEMAINT_SIM_HOST_ROOT`. `KUBERNETES_SERVICE_HOST`/`_PORT` are set as a kubelet sets them,
 * pointing at the apiserver the fleet is attached to. ConfigMap, Secret and emptyDir volumes are
 * written there too, and a path under their mount in the env names the copy (pod-volumes.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { isApiError } from './api-errors.js';
import { once, withRetry } from './api-errors.js';
import { podSpec, type Container } from '../controllers/shapes.js';
import type { PodLaunch, PrepareLaunch } from '../jobs-runner.js';
import { envSources, resolveEnv, type EnvSourceKind } from '../jobs-runner-env.js';
import { kubeconfigYaml } from '../kubeconfig.js';
import type { HostRoots } from '../host-root.js';
import type { KObject } from '../types.js';
import type { KubeJson } from './kube-json.js';
import { mountedVolumes, rebasePaths, volumeSource, writeVolume } from './pod-volumes.js';

/** The token's lifetime, as a projected service-account volume defaults it. */
const TOKEN_SECONDS = 3600;

export interface PodLaunches {
  prepare: PrepareLaunch;
  /** Removes the folder of the pods' kubeconfigs. */
  close(): void;
}

/** The CA of the kubeconfig's current cluster, as PEM, if it names one. */
export function clusterCa(config: KubeConfig): string | undefined {
  const cluster = config.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile) return readFileSync(cluster.caFile, 'utf8');
  return undefined;
}

export function podLaunches(
  clientFor: (node: string) => KubeJson | undefined,
  base: KubeConfig,
  hosts?: HostRoots,
): PodLaunches {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-attach-'));
  const caPem = clusterCa(base);
  const insecure = base.getCurrentCluster()?.skipTLSVerify ?? false;
  let next = 0;

  const read = async (
    client: KubeJson,
    kind: EnvSourceKind,
    namespace: string,
    name: string,
  ): Promise<Record<string, string> | undefined> => {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind}s/${encodeURIComponent(name)}`;
    try {
      const object = await withRetry(`get ${kind} ${namespace}/${name}`, () =>
        client.request<KObject>('GET', path),
      );
      // Found with no data is not missing: its volume is an empty folder.
      return (object['data'] as Record<string, string> | undefined) ?? {};
    } catch (error) {
      if (isApiError(error, 'not-found')) return undefined;
      throw error;
    }
  };

  const podKubeconfig = async (client: KubeJson, pod: KObject): Promise<PodLaunch> => {
    const { namespace = '', name = '', uid = '' } = pod.metadata;
    const account = podSpec(pod).serviceAccountName ?? 'default';
    const answer = await once(`token for pod ${namespace}/${name}`, () =>
      client.request<{ status: { token: string } }>(
        'POST',
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(account)}/token`,
        {
          body: {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            spec: {
              expirationSeconds: TOKEN_SECONDS,
              boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name, uid },
            },
          },
        },
      ),
    );
    const stem = join(dir, `${namespace}.${name}.${next++}`);
    const path = `${stem}.kubeconfig`;
    const accountDir = `${stem}.serviceaccount`;
    mkdirSync(accountDir, { mode: 0o700 });
    writeFileSync(join(accountDir, 'token'), answer.status.token, { mode: 0o600 });
    writeFileSync(join(accountDir, 'namespace'), namespace);
    if (caPem) writeFileSync(join(accountDir, 'ca.crt'), caPem);
    const server = new URL(client.server);
    writeFileSync(
      path,
      kubeconfigYaml({
        url: client.server,
        ...(caPem ? { caPem } : {}),
        ...(insecure ? { insecureSkipTlsVerify: true } : {}),
        token: answer.status.token,
        contextName: `${namespace}/${name}`,
        namespace,
      }),
      { mode: 0o600 },
    );
    return {
      env: {
        KUBEMAINT_SIM_SERVICEACCOUNT_DIR: accountDir,
        KUBERNETES_SERVICE_HOST: server.hostname,
        KUBERNETES_SERVICE_PORT: server.port || '443',
      },
      kubeconfigPath: path,
      release: () => {
        rmSync(path, { force: true });
        rmSync(accountDir, { recursive: true, force: true });
      },
    };
  };

  /** The container's ConfigMap, Secret and emptyDir volumes, written to a folder of the pod's. */
  const writeVolumes = async (client: KubeJson, pod: KObject, container: Container) => {
    const { namespace = '', name = '' } = pod.metadata;
    const root = join(dir, `${namespace}.${name}.${next++}.volumes`);
    const release = () => rmSync(root, { recursive: true, force: true });
    const mounts: { mountPath: string; local: string }[] = [];
    try {
      for (const { volume, mountPath } of mountedVolumes(pod, container)) {
        const source = volumeSource(volume);
        if (!source && !volume.emptyDir) continue;
        const local = join(root, volume.name);
        const data = source ? await read(client, source.kind, namespace, source.name) : {};
        writeVolume(local, volume, data);
        mounts.push({ mountPath, local });
      }
    } catch (error) {
      release();
      throw error;
    }
    return { mounts, release };
  };

  return {
    async prepare(pod, container) {
      const node = podSpec(pod).nodeName ?? '';
      const client = clientFor(node);
      if (!client) throw new Error(`no attached kubelet for node ${JSON.stringify(node)}`);
      const namespace = pod.metadata.namespace ?? '';
      const data = new Map<string, Record<string, string> | undefined>();
      for (const source of envSources(container)) {
        data.set(
          `${source.kind}/${source.name}`,
          await read(client, source.kind, namespace, source.name),
        );
      }
      const resolved = {
        ...resolveEnv((kind, _ns, name) => data.get(`${kind}/${name}`), pod, container),
        ...(hosts ? { KUBEMAINT_SIM_HOST_ROOT: hosts.of(node) } : {}),
      };
      const volumes = await writeVolumes(client, pod, container);
      const env = rebasePaths(resolved, volumes.mounts);
      const automount = (pod.spec?.['automountServiceAccountToken'] as boolean | undefined) ?? true;
      if (!automount) return { env, release: volumes.release };
      const launch = await podKubeconfig(client, pod).catch((error: unknown) => {
        volumes.release();
        throw error;
      });
      return {
        ...launch,
        env: { ...launch.env, ...env },
        release: () => {
          launch.release?.();
          volumes.release();
        },
      };
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
