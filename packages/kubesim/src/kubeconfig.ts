/**
 * Writes the kubeconfig that lets kubectl, @kubernetes/client-node and kubemaint itself talk to the
 * sim: the server URL, the sim CA as certificate-authority-data (no insecure flags) and the bearer
 * token. The file is written 0600 because it carries a credential.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigInput {
  url: string;
  /** The server's CA; without one the client trusts the system's CAs. */
  caPem?: string;
  /** For a server the given kubeconfig already reached without verifying its certificate. */
  insecureSkipTlsVerify?: boolean;
  token: string;
  /** @default 'kubemaint-sim' */
  contextName?: string;
  /** @default 'default' */
  namespace?: string;
}

export function kubeconfigYaml(input: KubeconfigInput): string {
  const name = input.contextName ?? 'kubemaint-sim';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: {
          server: input.url,
          ...(input.caPem
            ? { 'certificate-authority-data': Buffer.from(input.caPem).toString('base64') }
            : {}),
          ...(input.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [{ name, user: { token: input.token } }],
    contexts: [
      { name, context: { cluster: name, user: name, namespace: input.namespace ?? 'default' } },
    ],
    'current-context': name,
  });
}

export function writeKubeconfig(path: string, input: KubeconfigInput): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(input), { mode: 0o600 });
}
