/**
 * Debian's real Prometheus and Alertmanager for tests (installed by scripts/test-deps.sh), each
 * started on a loopback port in a temp folder of its own and stopped by `close()`, plus a tiny
 * exporter whose gauges a test sets. Prometheus scrapes the exporter every second, so a value set
 * now is in a query's answer within about two seconds. A missing binary is an error that says how
 * to install it: a real peer is never silently skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's binary names (`prometheus-alertmanager`, not upstream's `alertmanager`). */
export const BINARIES = {
  prometheus: 'prometheus',
  alertmanager: 'prometheus-alertmanager',
  amtool: 'amtool',
} as const;

export interface Exporter {
  /** `127.0.0.1:<port>`, as a scrape target. */
  target: string;
  /** Set a gauge sample (`name{labels} value`); it stays until removed. */
  set(name: string, labels: Record<string, string>, value: number): void;
  /** Remove every sample of `name`. */
  remove(name: string): void;
  close(): Promise<void>;
}

/** An HTTP `/metrics` in Prometheus' text format, from samples the test sets. */
export async function startExporter(): Promise<Exporter> {
  const samples = new Map<string, { name: string; line: string }>();
  const server = createServer((req, res) => {
    const body = [...samples.values()].map((s) => s.line).join('\n');
    res.writeHead(req.url === '/metrics' ? 200 : 404, {
      'content-type': 'text/plain; version=0.0.4',
    });
    res.end(req.url === '/metrics' ? `${body}\n` : 'not found\n');
  });
  const port = await listen(server);
  return {
    target: `127.0.0.1:${port}`,
    set(name, labels, value) {
      const text = Object.entries(labels)
        .map(([k, v]) => `${k}="${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`)
        .join(',');
      const key = `${name}{${text}}`;
      samples.set(key, { name, line: `${key} ${value}` });
    },
    remove(name) {
      for (const [key, sample] of samples) if (sample.name === name) samples.delete(key);
    },
    close: () => closeServer(server),
  };
}

export interface Peer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** What the process wrote to stderr (its log), for a failing test's message. */
  log(): string;
  close(): Promise<void>;
}

/** Prometheus scraping `targets` every `scrapeIntervalSeconds` (default 1). */
export async function startPrometheus(
  options: { targets?: readonly string[]; scrapeIntervalSeconds?: number } = {},
): Promise<Peer> {
  const interval = `${options.scrapeIntervalSeconds ?? 1}s`;
  const targets = JSON.stringify(options.targets ?? []);
  const config = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  evaluation_interval: ${interval}`,
    'scrape_configs:',
    '  - job_name: test',
    `    static_configs: [{ targets: ${targets} }]`,
    '',
  ].join('\n');
  return startPeer(BINARIES.prometheus, config, (dir, address) => [
    `--config.file=${join(dir, 'config.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=${address}`,
  ]);
}

/** Alertmanager alone (no cluster peers), with a receiver that sends nothing. */
export async function startAlertmanager(): Promise<Peer> {
  const config = 'route:\n  receiver: none\nreceivers:\n  - name: none\n';
  return startPeer(BINARIES.alertmanager, config, (dir, address) => [
    `--config.file=${join(dir, 'config.yml')}`,
    `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=${address}`,
    // Gossip would bind a port of its own on every interface.
    '--cluster.listen-address=',
  ]);
}

/** `amtool` against `url`, as an operator would run it; stdout, or an error with stderr. */
export function amtool(url: string, args: readonly string[]): string {
  const result = spawnSync(BINARIES.amtool, [...args, `--alertmanager.url=${url}`], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.error) throw missingOr(BINARIES.amtool, result.error);
  if (result.status !== 0)
    throw new Error(`amtool ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

async function startPeer(
  binary: string,
  config: string,
  argv: (dir: string, address: string) => string[],
): Promise<Peer> {
  // A free port can be taken between our probe and the peer's bind: try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), `kubemaint-${binary}-`));
    writeFileSync(join(dir, 'config.yml'), config);
    const url = `http://127.0.0.1:${await freePort()}`;
    const child = spawn(binary, argv(dir, url.slice('http://'.length)), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-20_000);
    });
    const close = async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      await waitReady(`${url}/-/ready`, child, binary);
      return { url, log: () => log, close };
    } catch (error) {
      await close();
      lastError = error instanceof Error ? new Error(`${error.message}\n${log}`) : error;
    }
  }
  throw lastError;
}

async function waitReady(url: string, child: ChildProcess, binary: string): Promise<void> {
  const spawned = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(missingOr(binary, error)));
    child.once('exit', (code) =>
      reject(new Error(`${binary} exited (${code}) before it was ready`)),
    );
  });
  spawned.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ready = fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (await Promise.race([ready, spawned])) return;
    await Promise.race([new Promise((r) => setTimeout(r, 100)), spawned]);
  }
  throw new Error(`${binary} was not ready at ${url} within 60 s`);
}

function missingOr(binary: string, error: Error): Error {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  return new Error(`${binary} is not installed: run bash scripts/test-deps.sh (Debian packages)`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server | ReturnType<typeof createNetServer>): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
