/**
 * The control plane's certificates and keys, made with the `openssl` binary (node:crypto cannot sign
 * X.509 certificates): one CA for serving and client certificates (also the controller-manager's
 * signer for CSRs), the apiserver's serving certificate for loopback and the in-cluster names, one
 * client certificate per identity, and the service-account signing key pair. EC P-256 throughout.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RealClusterError } from './errors.js';

export interface ClientIdentity {
  /** Certificate CN: the user name. */
  user: string;
  /** Certificate O: the groups. */
  groups: string[];
}

/** The in-cluster names the serving certificate carries besides loopback (reference §3.2). */
const SERVING_NAMES = [
  'DNS:localhost',
  'DNS:kubernetes',
  'DNS:kubernetes.default',
  'DNS:kubernetes.default.svc',
  'DNS:kubernetes.default.svc.cluster.local',
  'IP:127.0.0.1',
  'IP:10.0.0.1',
];

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n')[0] ?? '';
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new RealClusterError(
      missing
        ? "openssl is not installed: the control plane's certificates are made with it (apt-get install openssl)"
        : `openssl ${args[0]} failed: ${stderr}`,
    );
  }
}

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  saKey: string;
  saPub: string;
  /** Makes (once) a client certificate and key for an identity; returns their paths. */
  client(name: string, identity: ClientIdentity): { cert: string; key: string };
}

export function createPki(dir: string): Pki {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const at = (name: string) => join(dir, name);
  const key = (path: string) => {
    if (!existsSync(path)) {
      openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path]);
    }
  };
  const signed = (name: string, subject: string, extensions: string[]) => {
    const cert = at(`${name}.crt`);
    const keyPath = at(`${name}.key`);
    key(keyPath);
    if (!existsSync(cert)) {
      openssl([
        'req',
        '-x509',
        '-new',
        '-key',
        keyPath,
        '-subj',
        subject,
        '-days',
        '365',
        '-CA',
        at('ca.crt'),
        '-CAkey',
        at('ca.key'),
        ...extensions.flatMap((e) => ['-addext', e]),
        '-out',
        cert,
      ]);
    }
    return { cert, key: keyPath };
  };

  key(at('ca.key'));
  if (!existsSync(at('ca.crt'))) {
    openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      at('ca.key'),
      '-subj',
      '/CN=kubemaint-real-cluster-ca',
      '-days',
      '3650',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
      '-out',
      at('ca.crt'),
    ]);
  }
  const serving = signed('apiserver', '/CN=kube-apiserver', [
    `subjectAltName=${SERVING_NAMES.join(',')}`,
    'extendedKeyUsage=serverAuth',
    'keyUsage=critical,digitalSignature,keyEncipherment',
  ]);
  key(at('sa.key'));
  if (!existsSync(at('sa.pub')))
    openssl(['pkey', '-in', at('sa.key'), '-pubout', '-out', at('sa.pub')]);

  return {
    dir,
    caCert: at('ca.crt'),
    caKey: at('ca.key'),
    servingCert: serving.cert,
    servingKey: serving.key,
    saKey: at('sa.key'),
    saPub: at('sa.pub'),
    client: (name, identity) =>
      signed(name, `/CN=${identity.user}${identity.groups.map((g) => `/O=${g}`).join('')}`, [
        'extendedKeyUsage=clientAuth',
        'keyUsage=critical,digitalSignature',
      ]),
  };
}
