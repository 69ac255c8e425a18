/**
 * The ops endpoint of `kubemaint serve` (port 9090 in the Deployment): `/healthz` (or `/livez`) says the process
 * is alive (liveness: it never calls the cluster, so a slow API server cannot get the pod killed),
 * `/readyz` says whether the control plane is doing its job (the last tick succeeded recently and
 * the cluster answered), `/metrics` is the Prometheus exposition, and `/status` the status page
 * when it is on (status-page.ts). Anything else is 404. Closing ends the page's streams, stops
 * accepting, lets requests in flight finish, and cuts what is still open after a grace period.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubemaintError } from '../../errors.js';
import { metricsText, type Metrics } from '../metrics/registry.js';
import type { StatusPage } from './status-page.js';

export interface Readiness {
  ok: boolean;
  /** Why not ready (or a note when ready), shown in the `/readyz` body. */
  why?: string;
}

export interface OpsServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /**
   * Where to listen; `serve` decides it (config/listen.ts: 0.0.0.0 in a cluster, where the kubelet
   * probes the pod IP). @default '127.0.0.1' (this machine only: /metrics is not for everyone)
   */
  host?: string;
  metrics: Metrics;
  ready: () => Readiness | Promise<Readiness>;
  /** How long close() waits for requests in flight before cutting them. @default 5_000 */
  closeGraceMs?: number;
  /** The status page under `/status`, when it is on. */
  page?: StatusPage;
}

export interface OpsServer {
  /** `http://host:port`, with the port actually bound (127.0.0.1 when listening everywhere). */
  url: string;
  /** The address listened on, as bound. */
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const host = options.host ?? '127.0.0.1';
  let closing = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://ops');
    if (options.page && (url.pathname === '/status' || url.pathname.startsWith('/status/'))) {
      options.page.handle(req, res, url);
      return;
    }
    route(req, options)
      .then((answer) => send(res, answer, closing))
      .catch((error: unknown) =>
        send(
          res,
          {
            status: 500,
            body: `error: ${error instanceof Error ? error.message : String(error)}\n`,
          },
          closing,
        ),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new KubemaintError(
          'config_invalid',
          `ops server cannot listen on ${host}:${options.port}: ${error.code ?? error.message}`,
          {
            hint:
              error.code === 'EADDRNOTAVAIL'
                ? 'the address is not one of this machine: use 127.0.0.1, 0.0.0.0 or one of its own'
                : 'choose another ops port, or stop whatever holds this one',
            cause: error,
          },
        ),
      ),
    );
    server.listen(options.port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const port = bound.port;
  const shown =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    host: bound.address,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        // Event streams never end by themselves: end them first, or close() waits out the grace.
        options.page?.close();
        const force = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 5_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        // Keep-alive connections with nothing in flight would hold close() open until they time out.
        server.closeIdleConnections();
      }),
  };
}

interface Answer {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

async function route(req: IncomingMessage, options: OpsServerOptions): Promise<Answer> {
  const path = new URL(req.url ?? '/', 'http://ops').pathname;
  const known =
    path === '/healthz' || path === '/livez' || path === '/readyz' || path === '/metrics';
  if (path === '/status' || path.startsWith('/status/'))
    return {
      status: 404,
      body: 'the status page is off: turn it on with serve.statusPage: true or --status-page\n',
    };
  if (!known)
    return { status: 404, body: `not found: ${path} (try /healthz, /livez, /readyz, /metrics)\n` };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return {
      status: 405,
      body: `method ${req.method ?? '?'} not allowed\n`,
      headers: { allow: 'GET, HEAD' },
    };
  }
  // /livez is /healthz by the name Kubernetes' own components use.
  if (path === '/healthz' || path === '/livez') return { status: 200, body: 'ok\n' };
  if (path === '/readyz') {
    const readiness = await options.ready();
    const why = readiness.why ? `: ${readiness.why}` : '';
    return readiness.ok
      ? { status: 200, body: `ok${why}\n` }
      : { status: 503, body: `not ready${why}\n` };
  }
  const text = await metricsText(options.metrics);
  return { status: 200, body: text.body, contentType: text.contentType };
}

function send(res: ServerResponse, answer: Answer, closing: boolean): void {
  // Once closing, answers end their connection so close() does not wait out keep-alive timeouts.
  if (closing) res.shouldKeepAlive = false;
  res.writeHead(answer.status, {
    'content-type': answer.contentType ?? 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    ...answer.headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : answer.body);
}
