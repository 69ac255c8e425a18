/**
 * The host endpoint over HTTP, the "machine" that `kubemaint-sim-host` (a node's host command in the
 * sim's kubemaint config) talks to: `POST /_sim/nodes/<node>/reboot`,
 * `POST /_sim/nodes/<node>/upgrade?version=v1.31.4`, `GET /_sim/nodes/<node>`, `GET /_sim/host-log`.
 * Plain HTTP on loopback: it stands for the node's own machine, never leaves 127.0.0.1, and is not the
 * Kubernetes API (which is TLS).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimError } from './errors.js';
import { RebootInhibited, type Host } from './host.js';

export interface HostAdmin {
  url: string;
  close(): Promise<void>;
}

const ROUTE = /^\/_sim\/nodes\/([^/]+)(?:\/(reboot|upgrade))?\/?$/;

export async function startHostAdmin(host: Host, port = 0): Promise<HostAdmin> {
  const server = createServer((req, res) => {
    const send = (code: number, body: unknown): void => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify(body)}\n`);
    };
    const url = new URL(req.url ?? '/', 'http://host');
    const method = req.method ?? 'GET';
    req.resume();
    try {
      if (url.pathname === '/_sim/host-log' && method === 'GET') {
        return send(200, { items: host.log() });
      }
      const match = ROUTE.exec(url.pathname);
      if (!match) {
        return send(404, {
          error: `no host endpoint ${method} ${url.pathname}`,
          hint: 'POST /_sim/nodes/<node>/reboot, POST /_sim/nodes/<node>/upgrade?version=vX.Y.Z, GET /_sim/nodes/<node>',
        });
      }
      const node = decodeURIComponent(match[1] ?? '');
      const action = match[2];
      if (!action && method === 'GET') return send(200, host.status(node));
      if (action === 'reboot' && method === 'POST') return send(202, host.reboot(node));
      if (action === 'upgrade' && method === 'POST') {
        return send(202, host.upgrade(node, url.searchParams.get('version') ?? ''));
      }
      return send(405, { error: `${method} not allowed on ${url.pathname}` });
    } catch (error) {
      // logind's refusal: systemd's words (what `systemctl reboot` prints) and the lock it met.
      if (error instanceof RebootInhibited) {
        return send(409, { error: error.message, inhibitor: error.inhibitor });
      }
      if (error instanceof SimError) {
        return send(error.code === 'not_found' ? 404 : 400, {
          error: error.message,
          ...(error.hint ? { hint: error.hint } : {}),
        });
      }
      return send(500, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
