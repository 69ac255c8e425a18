/**
 * https://pkgs.k8s.io for the test's nodes, served from 127.0.0.1: the guest's /etc/hosts maps the name
 * to a QEMU guestfwd address whose connections reach this server (vm.ts), and the guest trusts the test
 * CA that signed its certificate. Nothing leaves the machine, and the node's apt source stays the real
 * one. The CA and the certificate are made once per cache folder with `openssl`.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';
import { RealClusterError } from '../real-cluster/errors.js';
import { nodeCacheDir } from './paths.js';

export const PKGS_HOST = 'pkgs.k8s.io';
/** The guest address /etc/hosts gives pkgs.k8s.io; QEMU forwards it to the server (vm.ts). */
export const PKGS_GUEST_ADDRESS = '10.0.2.101';
export const PKGS_GUEST_PORT = 443;

export interface PkgsTls {
  caCert: string;
  cert: string;
  key: string;
}

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
    throw new RealClusterError(
      e.code === 'ENOENT'
        ? 'openssl is not installed: the test apt repository is served over HTTPS (apt-get install openssl)'
        : `openssl ${args[0]} failed: ${e.stderr?.toString().trim() ?? e.message}`,
    );
  }
}

/** The test CA (trusted by the nodes' disks) and pkgs.k8s.io's certificate, made once. */
export function pkgsTls(dir = join(nodeCacheDir(), 'pkgs-tls')): PkgsTls {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const at = (name: string) => join(dir, name);
  const key = (path: string) => {
    if (!existsSync(path))
      openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path]);
  };
  key(at('ca.key'));
  if (!existsSync(at('ca.crt'))) {
    openssl([
      'req', '-x509', '-new', '-key', at('ca.key'), '-subj', '/CN=kubemaint test package CA',
      '-days', '3650', '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature', '-out', at('ca.crt'),
    ]); // prettier-ignore
  }
  key(at('pkgs.key'));
  if (!existsSync(at('pkgs.crt'))) {
    openssl([
      'req', '-x509', '-new', '-key', at('pkgs.key'), '-subj', `/CN=${PKGS_HOST}`, '-days', '3650',
      '-CA', at('ca.crt'), '-CAkey', at('ca.key'),
      // 127.0.0.1 too: the host-side test asks the server by address (it has no /etc/hosts of its own).
      '-addext', `subjectAltName=DNS:${PKGS_HOST},IP:127.0.0.1`,
      '-addext', 'extendedKeyUsage=serverAuth',
      '-addext', 'keyUsage=critical,digitalSignature', '-out', at('pkgs.crt'),
    ]); // prettier-ignore
  }
  return { caCert: at('ca.crt'), cert: at('pkgs.crt'), key: at('pkgs.key') };
}

export interface PkgsServer {
  port: number;
  /** Every path asked for, with its answer's status (what apt fetched). */
  requests: { path: string; status: number }[];
  close(): Promise<void>;
}

/** Serves `root` (the repository tree, apt-repo.ts) over HTTPS on 127.0.0.1; files only, no listings. */
export function servePkgs(
  root: string,
  tls: PkgsTls,
  port = 0,
  onRequest?: (path: string, status: number) => void,
): Promise<PkgsServer> {
  const requests: PkgsServer['requests'] = [];
  const base = normalize(root) + sep;
  const server: Server = createServer(
    { cert: readFileSync(tls.cert), key: readFileSync(tls.key) },
    (request, response) => {
      const path = decodeURIComponent(new URL(request.url ?? '/', 'https://x').pathname);
      const file = normalize(join(root, path));
      const ok =
        (request.method === 'GET' || request.method === 'HEAD') &&
        file.startsWith(base) &&
        existsSync(file) &&
        statSync(file).isFile();
      requests.push({ path, status: ok ? 200 : 404 });
      onRequest?.(path, ok ? 200 : 404);
      if (!ok) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, {
        'content-length': statSync(file).size,
        'content-type': 'application/octet-stream',
      });
      if (request.method === 'HEAD') response.end();
      else createReadStream(file).pipe(response);
    },
  );
  // Node closes a keep-alive connection 5 s after the response left its socket, without TLS's
  // close_notify; an emulated guest reads a 20 MB .deb through QEMU's user network for tens of seconds
  // after that, and GnuTLS then reports the early close as a read error (apt: "Error reading from
  // server - read (5: Input/output error)", the whole file received). The client closes instead.
  server.keepAliveTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
