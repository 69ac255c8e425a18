/**
 * Client certificates for the sim's users, as a real cluster's CA issues them: the certificate's
 * CN is the user name and each O is a group (kube-apiserver's x509 authenticator reads them so).
 * Tests and the demo act as `mallory` or as `alice` in `kubemaint-approvers` with one of these,
 * through the same kind of kubeconfig they would use on a real cluster. Signed with openssl, which
 * tls.ts already needs; made in a temporary folder that is removed afterwards.
 */
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from './api/identity.js';
import { EC_KEY, runOpenssl, type TlsMaterial } from './tls.js';

export interface ClientCertificate {
  certPem: string;
  keyPem: string;
}

/** openssl -subj escapes: `/`, `+`, `=` and `\` inside a value. */
const subjectValue = (value: string): string => value.replace(/[\\/+=]/g, (c) => `\\${c}`);

export function clientCertificate(
  tls: Pick<TlsMaterial, 'caPem' | 'caKeyPem'>,
  user: string,
  groups: readonly string[] = [],
): ClientCertificate {
  if (user === '') throw new RangeError('a client certificate needs a user name (its CN)');
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-client-'));
  const at = (name: string) => join(dir, name);
  try {
    writeFileSync(at('ca.crt'), tls.caPem);
    writeFileSync(at('ca.key'), tls.caKeyPem, { mode: 0o600 });
    const subject = [
      ...groups.map((g) => `/O=${subjectValue(g)}`),
      `/CN=${subjectValue(user)}`,
    ].join('');
    runOpenssl([
      'req',
      ...EC_KEY,
      '-keyout',
      at('client.key'),
      '-out',
      at('client.csr'),
      '-subj',
      subject,
    ]);
    writeFileSync(
      at('ext.cnf'),
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
    );
    runOpenssl([
      'x509',
      '-req',
      '-in',
      at('client.csr'),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('client.crt'),
      '-days',
      '365',
      '-extfile',
      at('ext.cnf'),
    ]);
    return {
      certPem: readFileSync(at('client.crt'), 'utf8'),
      keyPem: readFileSync(at('client.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The user of a verified client certificate on this connection, else undefined. Like kube-apiserver
 * 1.34, the credential is named in the `authentication.kubernetes.io/credential-id` extra as
 * `X509SHA256=<hex SHA-256 of the certificate>`.
 */
export function certificateUser(socket: TLSSocket): UserInfo | undefined {
  if (!socket.authorized) return undefined;
  const peer = socket.getPeerCertificate();
  const subject = peer.subject as Record<string, string | string[] | undefined> | undefined;
  const cn = subject?.['CN'];
  const user = Array.isArray(cn) ? cn[0] : cn;
  if (!user) return undefined;
  const o = subject?.['O'];
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  const fingerprint = peer.fingerprint256.replace(/:/g, '').toLowerCase();
  return {
    username: user,
    groups: [...groups, 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fingerprint}`] },
  };
}
