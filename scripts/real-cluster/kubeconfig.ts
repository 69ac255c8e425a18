/** Self-contained kubeconfig files (certificates embedded), as kubeadm writes them. */
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface KubeconfigSpec {
  server: string;
  caCert: string;
  clientCert: string;
  clientKey: string;
  user: string;
  context: string;
}

const b64 = (path: string) => readFileSync(path).toString('base64');

export function writeKubeconfig(path: string, spec: KubeconfigSpec): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: spec.context,
        cluster: { server: spec.server, 'certificate-authority-data': b64(spec.caCert) },
      },
    ],
    users: [
      {
        name: spec.user,
        user: {
          'client-certificate-data': b64(spec.clientCert),
          'client-key-data': b64(spec.clientKey),
        },
      },
    ],
    contexts: [{ name: spec.context, context: { cluster: spec.context, user: spec.user } }],
    'current-context': spec.context,
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
}
