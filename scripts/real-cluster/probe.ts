/** Waiting for a component to answer: ports that must be free, and health endpoints that must say ok. */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { RealClusterError } from './errors.js';

/** A free loopback port, or the given one after checking it is free (a clear error when it is not). */
export function freePort(port = 0, what = 'port'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new RealClusterError(
          error.code === 'EADDRINUSE'
            ? `${what} ${port} on 127.0.0.1 is busy (another cluster or program listens there): choose another, or 0 for a free one`
            : `cannot listen on 127.0.0.1:${port} for the ${what}: ${error.message}`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}

/** `count` different free loopback ports: all held open until every one is chosen, so none repeats. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export interface TlsClient {
  ca: string;
  cert: string;
  key: string;
}

/** GET a URL; resolves with the status code (0 when nothing answers). */
export function probe(url: string, tls?: TlsClient): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const https = url.startsWith('https:');
    const options = https
      ? tls
        ? { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) }
        : // controller-manager and scheduler serve health with an in-memory self-signed certificate
          { rejectUnauthorized: false }
      : {};
    const req = (https ? httpsRequest : httpRequest)(url, { ...options, timeout: 3_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

/** Polls until `ready` says yes; `failed` is checked each round (a component that exited). */
export async function waitFor(
  what: string,
  ready: () => Promise<boolean>,
  options: { timeoutMs: number; failed?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const failure = options.failed?.();
    if (failure) throw new RealClusterError(failure);
    if (await ready()) return;
    if (Date.now() > deadline) {
      throw new RealClusterError(
        `${what} did not become ready within ${options.timeoutMs / 1000} s`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
