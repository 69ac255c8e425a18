/**
 * What a pod's local process starts with on an attached node, prepared as a kubelet prepares a
 * container: its env, with ConfigMap and Secret keys read from the API as the node (the Node
 * authorizer lets a node read exactly those its pods refer to), and, when the pod runs as a service
 * account, a kubeconfig with a token minted for the pod: a TokenRequest bound to it (kind Pod, name,
 * uid), asked as the node, which the apiserver grants only for a pod bound to that node. The server
 * URL and CA come from the given kubeconfig; its credentials never reach the process. A real kubelet
 * rotates the token before it expires; these processes live minutes, so one hour is enough.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { isKubeError } from '../../adapters/kube/errors.js';
import { once, withRetry } from '../../adapters/kube/retry.js';
import { podSpec } from '../controllers/shapes.js';
import type { PodLaunch, PrepareLaunch } from '../jobs-runner.js';
import { envSources, resolveEnv, type EnvSourceKind } from '../jobs-runner-env.js';
import { kubeconfigYaml } from '../kubeconfig.js';
import type { KObject } from '../types.js';
import type { KubeJson } from './kube-json.js';

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
      return object['data'] as Record<string, string> | undefined;
    } catch (error) {
      if (isKubeError(error, 'not-found')) return undefined;
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
    const path = join(dir, `${namespace}.${name}.${next++}.kubeconfig`);
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
    return { env: {}, kubeconfigPath: path, release: () => rmSync(path, { force: true }) };
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
      const env = resolveEnv((kind, _ns, name) => data.get(`${kind}/${name}`), pod, container);
      const automount = (pod.spec?.['automountServiceAccountToken'] as boolean | undefined) ?? true;
      if (!automount) return { env };
      return { ...(await podKubeconfig(client, pod)), env };
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
