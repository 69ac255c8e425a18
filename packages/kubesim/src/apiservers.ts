/**
 * The sim's kube-apiservers as a real HA control plane shows them (kubemaint ADR 0050): `/version`
 * with the compatibility-version fields (KEP-4330: emulationMajor/Minor, minCompatibilityMajor/Minor),
 * and one identity Lease per apiserver in kube-system (KEP-1965: `apiserver-<hash>`, labels
 * `apiserver.kubernetes.io/identity=kube-apiserver` and `kubernetes.io/hostname`, no version). The
 * main apiserver serves the API; each extra one (`apiservers`) only answers `/version`, on a port
 * of its own that its Lease advertises in `kubernetes.io/peer-advertise-address`, as an apiserver
 * with the mixed-version proxy on does. Extra apiservers never serve the API: one store serves all.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { ServerVersion } from './api/discovery.js';
import { versionDocument } from './api/discovery.js';
import type { TlsMaterial } from './tls.js';
import { R, type KObject, type Store } from './types.js';
import { microTime } from './kubelet-objects.js';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
export const PEER_ADDRESS_ANNOTATION = 'kubernetes.io/peer-advertise-address';
const ACTOR = 'system:apiserver';

/**
 * `/version` of a binary (`v1.34.4`) emulating `emulated` (`1.33`; its own minor by default). The
 * minimum compatibility is one minor below the emulated version, as upstream's default.
 */
export function serverVersion(version: string, emulated?: string): ServerVersion {
  const match = /^v(\d+)\.(\d+)\.\d+/.exec(version);
  if (!match)
    throw new RangeError(`version must look like v1.31.4, got ${JSON.stringify(version)}`);
  const [major = '1', minor = '0'] = [match[1], match[2]];
  const emulation = emulated ?? `${major}.${minor}`;
  const e = /^(\d+)\.(\d+)$/.exec(emulation);
  if (!e) {
    throw new RangeError(
      `an emulated version is major.minor like 1.33, got ${JSON.stringify(emulated)}`,
    );
  }
  const [eMajor = major, eMinor = minor] = [e[1], e[2]];
  const below = Number(major) * 1000 + Number(minor) - (Number(eMajor) * 1000 + Number(eMinor));
  // Upstream allows one minor down (KEP-4330); the binary cannot emulate a newer one.
  if (below < 0 || below > 1) {
    throw new RangeError(
      `${version} can emulate ${major}.${minor} or ${major}.${Number(minor) - 1}, not ${emulation}`,
    );
  }
  return {
    major,
    minor,
    emulationMajor: eMajor,
    emulationMinor: eMinor,
    minCompatibilityMajor: eMajor,
    minCompatibilityMinor: String(Number(eMinor) - 1),
    gitVersion: version,
  };
}

/** An extra apiserver: `v1.33.2`, or `v1.34.4@1.33` for one emulating 1.33. */
export function parseApiserver(text: string): ServerVersion {
  const [version = '', emulated] = text.split('@');
  return serverVersion(version.trim(), emulated?.trim());
}

/** The identity Lease name of an apiserver host, as upstream derives it from the hostname. */
export function identityLeaseName(hostname: string): string {
  return `apiserver-${createHash('sha256').update(hostname).digest('hex').slice(0, 26)}`;
}

function identityLease(hostname: string, now: Date, peerAddress?: string): KObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: identityLeaseName(hostname),
      namespace: 'kube-system',
      labels: { [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': hostname },
      ...(peerAddress ? { annotations: { [PEER_ADDRESS_ANNOTATION]: peerAddress } } : {}),
    },
    spec: {
      holderIdentity: `${identityLeaseName(hostname)}_${hostname}`,
      leaseDurationSeconds: 3600,
      renewTime: microTime(now),
    },
  };
}

export interface ExtraApiservers {
  stop(): Promise<void>;
}

/**
 * The identity Leases of the main apiserver and of each extra one, the extras listening for
 * `/version`; Leases a saved sim kept from its last run are replaced (their ports are gone).
 */
export async function startApiservers(
  store: Store,
  options: { tls: TlsMaterial; extra: readonly ServerVersion[]; now: Date },
): Promise<ExtraApiservers> {
  const servers: Server[] = [];
  const leases = [identityLease('sim-apiserver-0', options.now)];
  for (const [i, version] of options.extra.entries()) {
    const server = createServer(
      { key: options.tls.keyPem, cert: options.tls.certPem },
      (req, res) => {
        const path = new URL(req.url ?? '/', 'https://x').pathname;
        if (req.method === 'GET' && (path === '/version' || path === '/version/')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(versionDocument(version)));
          return;
        }
        // An extra apiserver of the sim serves nothing else: the API is the main one's.
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('the sim serves its API on the main apiserver only\n');
      },
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    servers.push(server);
    const port = (server.address() as { port: number }).port;
    leases.push(identityLease(`sim-apiserver-${i + 1}`, options.now, `127.0.0.1:${port}`));
  }
  for (const old of store.list(R.leases, {
    namespace: 'kube-system',
    labelSelector: `${IDENTITY_LABEL}=kube-apiserver`,
  }))
    store.delete(R.leases, 'kube-system', old.metadata.name ?? '', { actor: ACTOR });
  for (const lease of leases) store.create(R.leases, lease, { actor: ACTOR });
  return {
    stop: () =>
      Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      ).then(() => undefined),
  };
}
