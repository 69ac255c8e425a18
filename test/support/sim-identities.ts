/**
 * Identities on the embedded sim, with the same shape as the real cluster's (test/support/real-cluster.ts):
 * a kubeconfig for any user and groups (a client certificate signed by the sim's CA: CN=user,
 * O=groups, exactly what kube-apiserver reads) and one carrying a ServiceAccount's token (minted by
 * the sim's TokenRequest code, optionally bound to a pod, which adds the pod and node extras). Both
 * are synchronous and make no request: tests run the sim in their own process, where a blocking
 * `kubectl create token` would wait forever for a server it blocks. An attack suite written against
 * `Identities` runs on either backend:
 *
 *   const ids = backend === 'sim' ? simIdentities(sim.credentials) : await realCluster();
 *   kubectl(['auth', 'whoami'], { kubeconfig: ids.userKubeconfig('mallory', ['devs']) });
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ClientCertificate } from '@kubemaint/kubesim/testing';

/** What a test needs to act as someone; RealCluster has the same two methods. */
export interface Identities {
  /** A kubeconfig for `user` in `groups` (plus system:authenticated, as the apiserver adds). */
  userKubeconfig(user: string, groups?: string[]): string;
  /** A kubeconfig with a ServiceAccount's token (1 h); bound to a pod of that namespace if named. */
  serviceAccountKubeconfig(namespace: string, name: string, boundToPod?: string): string;
}

/** What the sim's API server offers for that (ApiServer, or `Sim.credentials`). */
export interface SimCredentials {
  url: string;
  caPem: string;
  clientCertificate(user: string, groups?: readonly string[]): ClientCertificate;
  serviceAccountToken(namespace: string, name: string, boundToPod?: string): string;
}

const safe = (text: string): string => text.replace(/[^a-zA-Z0-9.-]/g, '_');

function kubeconfig(server: string, caPem: string, name: string, user: Record<string, string>) {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kubemaint-sim',
        cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
      },
    ],
    users: [{ name, user }],
    contexts: [{ name: 'kubemaint-sim', context: { cluster: 'kubemaint-sim', user: name } }],
    'current-context': 'kubemaint-sim',
  });
}

export function simIdentities(sim: SimCredentials): Identities {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-ids-'));
  const write = (file: string, text: string): string => {
    const path = join(dir, file);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  return {
    userKubeconfig(user, groups = []) {
      const cert = sim.clientCertificate(user, groups);
      return write(
        `user-${safe(user)}-${safe(groups.join('_'))}.kubeconfig`,
        kubeconfig(sim.url, sim.caPem, user, {
          'client-certificate-data': Buffer.from(cert.certPem).toString('base64'),
          'client-key-data': Buffer.from(cert.keyPem).toString('base64'),
        }),
      );
    },
    serviceAccountKubeconfig(namespace, name, boundToPod) {
      const token = sim.serviceAccountToken(namespace, name, boundToPod);
      return write(
        `sa-${safe(namespace)}-${safe(name)}${boundToPod ? `-${safe(boundToPod)}` : ''}.kubeconfig`,
        kubeconfig(sim.url, sim.caPem, `${namespace}/${name}`, { token }),
      );
    },
  };
}

/** `simIdentities(sim).userKubeconfig(user, groups)`: the counterpart of RealCluster.userKubeconfig. */
export const simUserKubeconfig = (
  sim: SimCredentials,
  user: string,
  groups: string[] = [],
): string => simIdentities(sim).userKubeconfig(user, groups);

/** The counterpart of RealCluster.serviceAccountKubeconfig. */
export const simServiceAccountKubeconfig = (
  sim: SimCredentials,
  namespace: string,
  name: string,
  boundToPod?: string,
): string => simIdentities(sim).serviceAccountKubeconfig(namespace, name, boundToPod);
