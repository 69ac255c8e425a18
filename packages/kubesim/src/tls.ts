/**
 * TLS material for the sim's API server: a throwaway CA and a server certificate for 127.0.0.1 and
 * localhost, so clients verify the server through the kubeconfig's certificate-authority-data and
 * need no insecure flags (a real cluster is TLS; client-node refuses plain http without them).
 *
 * node:crypto can generate keys and parse certificates but cannot sign X.509 certificates, so the
 * `openssl` binary does the signing. Keys are EC P-256 (fast to make). The result is cached per
 * process and per host list: every sim started by one test run shares one CA (a sim with saved
 * state keeps a CA of its own, newServerTls).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimError } from './errors.js';

export interface TlsMaterial {
  caPem: string;
  /** The CA's key: the sim signs client certificates for users with it (client-certificates.ts). */
  caKeyPem: string;
  certPem: string;
  keyPem: string;
}

const cache = new Map<string, TlsMaterial>();

/** EC P-256 key generation arguments for `openssl req`. */
export const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Runs openssl, or fails saying how to get it. */
export function runOpenssl(args: readonly string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new SimError('unexpected', `the sim could not run openssl ${args[0] ?? ''}`, {
      hint: 'install openssl (apt-get install openssl): the sim serves HTTPS with a generated CA',
      cause: error,
    });
  }
}

/** @param hosts IP addresses and DNS names the certificate is valid for. */
export function serverTls(hosts: readonly string[] = ['127.0.0.1', 'localhost']): TlsMaterial {
  const cacheKey = hosts.join(',');
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const material = newServerTls(hosts);
  cache.set(cacheKey, material);
  return material;
}

/** A CA and server certificate of their own, not shared with other sims (a sim with saved state). */
export function newServerTls(hosts: readonly string[]): TlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => runOpenssl(args);
  const ec = EC_KEY;
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.crt'),
      '-days',
      '3650',
      '-subj',
      '/CN=kubemaint-sim-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl(
      'req',
      ...ec,
      '-keyout',
      at('server.key'),
      '-out',
      at('server.csr'),
      '-subj',
      '/CN=kubemaint-sim',
    );
    const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
    writeFileSync(
      at('ext.cnf'),
      `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('server.crt'),
      '-days',
      '3650',
      '-extfile',
      at('ext.cnf'),
    );
    return {
      caPem: readFileSync(at('ca.crt'), 'utf8'),
      caKeyPem: readFileSync(at('ca.key'), 'utf8'),
      certPem: readFileSync(at('server.crt'), 'utf8'),
      keyPem: readFileSync(at('server.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
