/**
 * Every kube-apiserver the cluster shows, with its binary and emulated version (ADR 0050). Sources,
 * as upstream writes them:
 * - identity Leases (`kube-system`, label `apiserver.kubernetes.io/identity=kube-apiserver`, KEP-1965):
 *   one per apiserver host, no version; with the mixed-version proxy (UnknownVersionInteroperability-
 *   Proxy) an annotation `kubernetes.io/peer-advertise-address` (`ip:port`) that answers `/version`;
 * - the `default/kubernetes` EndpointSlice: each address answers `/version` (none on loopback);
 * - kubeadm's static pods `kube-system/kube-apiserver-*` (label `component=kube-apiserver`): the image
 *   tag and `--emulated-version`;
 * - the one `/version` the connection's server answers, always (it is one of them, maybe the only one).
 * An address is asked without credentials (`/version` is public) and trusted only with the cluster's
 * CA for the name `kubernetes.default.svc`, which every apiserver's serving certificate carries.
 */
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { checkServerIdentity } from 'node:tls';
import {
  DiscoveryV1Api,
  type V1Lease,
  type V1Pod,
  type VersionInfo,
} from '@kubernetes/client-node';
import type { ApiserverFact, ApiserverFacts } from '../../core/apiserver-bound.js';
import { parseMinor } from '../../core/apiserver-bound.js';
import type { KubeClient } from './client.js';
import { withRetry } from './retry.js';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity=kube-apiserver';
export const PEER_ADDRESS_ANNOTATION = 'kubernetes.io/peer-advertise-address';
export const STATIC_POD_LABEL = 'component=kube-apiserver';
/** The name every kube-apiserver serving certificate carries (in-cluster clients dial it). */
const SERVED_NAME = 'kubernetes.default.svc';
const ASK_TIMEOUT_MS = 5_000;

export async function readApiserverFacts(client: KubeClient): Promise<ApiserverFacts> {
  const said: string[] = [];
  const facts: ApiserverFact[] = [];
  const asked = new Set<string>();
  const ask = async (address: string, source: ApiserverFact['source']): Promise<string> => {
    if (asked.has(address)) return `${address}: asked already`;
    asked.add(address);
    try {
      const fact = factOf(await versionAt(client, address), address, source);
      facts.push(fact);
      return `${address}: ${describe(fact)}`;
    } catch (error) {
      return `${address}: ${(error as Error).message}`;
    }
  };

  const leases = await tryRead(() =>
    withRetry(
      'list apiserver identity leases in kube-system',
      () =>
        client.coordination.listNamespacedLease({
          namespace: 'kube-system',
          labelSelector: IDENTITY_LABEL,
        }),
      client.retry,
    ),
  );
  const identities = 'error' in leases ? undefined : leases.value.items.length;
  if ('error' in leases) said.push(`identity leases: not readable (${leases.error})`);
  else {
    const peers = leases.value.items.map(peerAddress).filter((a) => a !== undefined);
    const answers = await Promise.all(peers.map((a) => ask(a, 'peer-address')));
    said.push(
      `identity leases: ${identities} kube-apiserver${identities === 1 ? '' : 's'}, ` +
        (peers.length
          ? `peer addresses ${answers.join(', ')}`
          : `no version and no ${PEER_ADDRESS_ANNOTATION} (the mixed-version proxy is off)`),
    );
  }

  const slices = await tryRead(() =>
    withRetry(
      'list the default/kubernetes EndpointSlices',
      () =>
        client.config.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({
          namespace: 'default',
          labelSelector: 'kubernetes.io/service-name=kubernetes',
        }),
      client.retry,
    ),
  );
  if ('error' in slices)
    said.push(`EndpointSlice default/kubernetes: not readable (${slices.error})`);
  else {
    const addresses = slices.value.items.flatMap((slice) => {
      const port = slice.ports?.find((p) => p.name === 'https')?.port ?? slice.ports?.[0]?.port;
      return port === undefined
        ? []
        : (slice.endpoints ?? []).flatMap((e) => e.addresses.map((a) => hostPort(a, port)));
    });
    const answers = await Promise.all(addresses.map((a) => ask(a, 'endpointslice')));
    said.push(
      `EndpointSlice default/kubernetes: ${answers.length ? answers.join(', ') : 'no address (none on loopback, or the endpoint reconciler is off)'}`,
    );
  }

  const pods = await tryRead(() =>
    withRetry(
      'list kube-apiserver static pods in kube-system',
      () =>
        client.core.listNamespacedPod({
          namespace: 'kube-system',
          labelSelector: STATIC_POD_LABEL,
        }),
      client.retry,
    ),
  );
  if ('error' in pods)
    said.push(`static pods kube-system/kube-apiserver-*: not readable (${pods.error})`);
  else {
    const found = pods.value.items.map(staticPodFact).filter((f) => f !== undefined);
    facts.push(...found);
    said.push(
      `static pods kube-system/kube-apiserver-*: ${found.length ? found.map((f) => `${f.name} ${describe(f)}`).join(', ') : 'none (not a kubeadm control plane)'}`,
    );
  }

  // Always: the server this connection reaches is an apiserver too, and the fallback when none of
  // the above gave a version. Its failure is the scan's failure, as before ADR 0050.
  const info = await withRetry('get /version', () => client.version.getCode(), client.retry);
  const server = client.config.getCurrentCluster()?.server ?? 'the server';
  const answered = factOf(info, server, 'version');
  facts.push(answered);
  said.push(`/version of ${server}: ${describe(answered)}`);
  return { facts, ...(identities === undefined ? {} : { identities }), said };
}

async function tryRead<T>(read: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function peerAddress(lease: V1Lease): string | undefined {
  const address = lease.metadata?.annotations?.[PEER_ADDRESS_ANNOTATION]?.trim();
  return address ? address : undefined;
}

const hostPort = (address: string, port: number): string =>
  address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;

/** `/version`'s emulation fields are `""` on binaries before 1.32 and on kubeadm's own client. */
function minorOf(major: string | undefined, minor: string | undefined): string | undefined {
  if (!major || !minor) return undefined;
  return parseMinor(`${major}.${minor.replace(/\+$/, '')}`) ? `${major}.${minor}` : undefined;
}

export function factOf(
  info: VersionInfo,
  name: string,
  source: ApiserverFact['source'],
): ApiserverFact {
  const emulated = minorOf(info.emulationMajor, info.emulationMinor);
  const minCompatibility = minorOf(info.minCompatibilityMajor, info.minCompatibilityMinor);
  return {
    name,
    source,
    binary: info.gitVersion,
    ...(emulated ? { emulated } : {}),
    ...(minCompatibility ? { minCompatibility } : {}),
  };
}

/** A kubeadm static pod: the image tag is the binary, `--emulated-version` (kube's) the emulation. */
export function staticPodFact(pod: V1Pod): ApiserverFact | undefined {
  const container =
    pod.spec?.containers.find((c) => c.name === 'kube-apiserver') ?? pod.spec?.containers[0];
  const tag = container?.image?.split('@')[0]?.split('/').at(-1)?.split(':')[1];
  if (!container || !tag) return undefined;
  const flag = [...(container.command ?? []), ...(container.args ?? [])]
    .map((arg) => /^--emulated-version=(.*)$/.exec(arg)?.[1])
    .find((v) => v !== undefined);
  // `1.33`, or per component: `kube=1.33,wardle=1.2`.
  const emulated = flag
    ?.split(',')
    .map((part) => (part.includes('=') ? (part.startsWith('kube=') ? part.slice(5) : '') : part))
    .find((v) => parseMinor(v ?? ''));
  return {
    name: `kube-system/${pod.metadata?.name ?? '?'}`,
    source: 'static-pod',
    binary: tag,
    ...(emulated ? { emulated } : {}),
  };
}

const describe = (f: ApiserverFact): string =>
  `${f.binary}${f.emulated ? ` emulating ${f.emulated}` : ''}${f.minCompatibility ? ` (min compatibility ${f.minCompatibility})` : ''}`;

/** `/version` at one apiserver address, CA-verified as kubernetes.default.svc, without credentials. */
async function versionAt(client: KubeClient, address: string): Promise<VersionInfo> {
  const cluster = client.config.getCurrentCluster();
  const ca = cluster?.caData
    ? Buffer.from(cluster.caData, 'base64')
    : cluster?.caFile
      ? readFileSync(cluster.caFile)
      : undefined;
  const url = new URL(`https://${address}/version`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ...(ca ? { ca } : {}),
        servername: SERVED_NAME,
        // The address is an IP: the certificate must name the service, as in-cluster clients see it.
        checkServerIdentity: (_host, cert) => checkServerIdentity(SERVED_NAME, cert),
        timeout: ASK_TIMEOUT_MS,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(new Error(`/version answered ${res.statusCode}`));
            return;
          }
          try {
            resolve(JSON.parse(body) as VersionInfo);
          } catch {
            reject(new Error('/version answered no JSON'));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${ASK_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}
