/**
 * What a sim's identity is made of, kept in `credentials.json` of its state directory so a restarted
 * sim is the same cluster to every client: the CA (clients verify the server with it, and it signed
 * the client certificates people were given), the serving certificate, the administrator's bearer
 * token (the kubeconfig's user) and the key service-account tokens are signed with. Made once, when
 * the directory is new; written 0600, since it holds keys.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { newServerTls, type TlsMaterial } from '../tls.js';
import { checkHeader, readJsonFile, unreadableState, writeFileAtomic } from './files.js';

export interface SimCredentials {
  tls: TlsMaterial;
  adminToken: string;
  serviceAccountKey: Buffer;
}

const KIND = 'KubesimCredentials';
const VERSION = 1;
export const CREDENTIALS_FILE = 'credentials.json';

export function loadOrMakeCredentials(dir: string, hosts: readonly string[]): SimCredentials {
  const path = join(dir, CREDENTIALS_FILE);
  const saved = readJsonFile(path, dir);
  if (saved === undefined) {
    const made: SimCredentials = {
      tls: newServerTls(hosts),
      adminToken: randomBytes(24).toString('hex'),
      serviceAccountKey: randomBytes(32),
    };
    writeFileAtomic(
      path,
      `${JSON.stringify({
        kind: KIND,
        version: VERSION,
        ...made.tls,
        adminToken: made.adminToken,
        serviceAccountKey: made.serviceAccountKey.toString('base64'),
      })}\n`,
    );
    return made;
  }
  const record = checkHeader(saved, path, dir, KIND, VERSION);
  const text = (field: string): string => {
    const value = record[field];
    if (typeof value !== 'string' || value === '')
      throw unreadableState(path, `has no ${field}`, dir);
    return value;
  };
  return {
    tls: {
      caPem: text('caPem'),
      caKeyPem: text('caKeyPem'),
      certPem: text('certPem'),
      keyPem: text('keyPem'),
    },
    adminToken: text('adminToken'),
    serviceAccountKey: Buffer.from(text('serviceAccountKey'), 'base64'),
  };
}
