/**
 * What a conformance case gets: one Kubernetes API (the sim's or a real apiserver's) behind an admin
 * KubeConfig, the typed clients kubemaint uses, raw HTTPS for what typed clients hide (status codes,
 * headers, content types, watch lines), and per-test namespaces and cluster-scoped names that are
 * cleaned up afterwards. The same case code runs on every backend; only `name` says which one it is.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  PolicyV1Api,
} from '@kubernetes/client-node';
import type { Identities } from '../support/sim-identities.js';

export type BackendName = 'sim' | 'real';

export interface Reply {
  code: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (`{}` when empty or not JSON; `text` then has it). */
  json: Record<string, unknown>;
  text: string;
  /** The body's bytes (for protobuf answers). */
  raw: Buffer;
}

export interface RequestOptions {
  /** An object is sent as JSON; a string or bytes as they are. */
  body?: unknown;
  /** @default 'application/json' when there is a body */
  contentType?: string;
  /** @default 'application/json' */
  accept?: string;
  /** More request headers (`Impersonate-User`, …). */
  headers?: Record<string, string>;
}

export interface WatchEvent {
  type: string;
  object: Record<string, unknown> & { metadata?: { name?: string; resourceVersion?: string } };
}

export interface WatchOptions {
  /** Stop once this holds for the events so far. */
  until: (events: readonly WatchEvent[]) => boolean;
  /** Stop (and return what came) after this long. @default 10000 */
  timeoutMs?: number;
  /** Called once the stream's headers arrived: write what the watch should see from here. */
  onOpen?: () => Promise<void> | void;
}

export interface WatchResult {
  code: number;
  events: WatchEvent[];
  /** The server closed the stream (rather than us, once `until` held or time ran out). */
  closedByServer: boolean;
}

export interface Backend {
  name: BackendName;
  kc: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  batch: BatchV1Api;
  policy: PolicyV1Api;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  watch(path: string, options: WatchOptions): Promise<WatchResult>;
  /** A fresh namespace (unique name), deleted by `cleanup`; pods can be created in it at once. */
  namespace(): Promise<string>;
  /** A unique name for a cluster-scoped object (`conf-<prefix>-xxxxx`). */
  unique(prefix: string): string;
  /** Users and ServiceAccounts other than the admin, the same way on both backends. */
  identities: Identities;
  /** The same backend seen through another kubeconfig (a user's, a ServiceAccount's). */
  as(kubeconfigPath: string): Backend;
  /** Registers work for `cleanup` (last registered runs first). */
  defer(fn: () => Promise<unknown>): void;
  /** Runs the deferred work of the current case; failures are ignored (the object may be gone). */
  cleanup(): Promise<void>;
  close(): Promise<void>;
}

export interface BackendParts {
  name: BackendName;
  kc: KubeConfig;
  /** How this backend makes a namespace usable (the real one waits for its default ServiceAccount). */
  namespaceReady?: (backend: Backend, namespace: string) => Promise<void>;
  /** Other identities: client-certificate users, ServiceAccount tokens (test/support/sim-identities.ts). */
  identities?: Identities;
  close: () => Promise<void>;
}

const suffix = () =>
  [...randomBytes(5)].map((b) => 'bcdfghjklmnpqrstvwxz2456789'[b % 27] ?? 'x').join('');

const bodyText = (body: unknown): string | Uint8Array | undefined =>
  body === undefined || typeof body === 'string' || body instanceof Uint8Array
    ? body
    : JSON.stringify(body);

export function createBackend(parts: BackendParts): Backend {
  const { kc, name } = parts;
  const deferred: (() => Promise<unknown>)[] = [];

  /** The URL and TLS/auth options for a request, the way client-node would connect. */
  const open = async (method: string, path: string, options: RequestOptions) => {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const url = `${cluster.server}${path}`;
    const body = bodyText(options.body);
    const contentType = options.contentType;
    const opts: Parameters<typeof request>[1] = { method, headers: {} };
    await kc.applyToHTTPSOptions(opts);
    opts.headers = {
      ...opts.headers,
      accept: options.accept ?? 'application/json',
      ...(body === undefined
        ? {}
        : {
            'content-type': contentType ?? 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          }),
      ...options.headers,
    };
    return { url, opts, body };
  };

  const backend: Backend = {
    name,
    kc,
    core: kc.makeApiClient(CoreV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    policy: kc.makeApiClient(PolicyV1Api),

    get identities(): Identities {
      if (!parts.identities) throw new Error(`the ${name} backend has no identities`);
      return parts.identities;
    },

    as(kubeconfigPath) {
      const other = new KubeConfig();
      other.loadFromFile(kubeconfigPath);
      return createBackend({ ...parts, kc: other, close: async () => undefined });
    },

    async request(method, path, options = {}) {
      const { url, opts, body } = await open(method, path, options);
      return new Promise<Reply>((resolve, reject) => {
        const req = request(url, opts, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const text = raw.toString();
            let json: Record<string, unknown> = {};
            try {
              json = JSON.parse(text) as Record<string, unknown>;
            } catch {
              // Not JSON: `text` carries it.
            }
            resolve({ code: res.statusCode ?? 0, headers: res.headers, json, text, raw });
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    },

    async watch(path, options) {
      const { url, opts } = await open('GET', path, {});
      return new Promise<WatchResult>((resolve, reject) => {
        const events: WatchEvent[] = [];
        let done = false;
        let timer: NodeJS.Timeout | undefined;
        const finish = (code: number, closedByServer: boolean) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          req.destroy();
          resolve({ code, events, closedByServer });
        };
        const req = request(url, opts, (res) => {
          const code = res.statusCode ?? 0;
          let buffered = '';
          timer = setTimeout(() => finish(code, false), options.timeoutMs ?? 10_000);
          res.on('data', (chunk: Buffer) => {
            buffered += chunk.toString();
            let newline: number;
            while ((newline = buffered.indexOf('\n')) >= 0) {
              const line = buffered.slice(0, newline).trim();
              buffered = buffered.slice(newline + 1);
              if (line !== '') events.push(JSON.parse(line) as WatchEvent);
            }
            if (options.until(events)) finish(code, false);
          });
          res.on('end', () => finish(code, true));
          res.on('error', () => finish(code, true));
          Promise.resolve(options.onOpen?.()).catch((error: unknown) => {
            done = true;
            clearTimeout(timer);
            req.destroy();
            reject(error instanceof Error ? error : new Error(String(error)));
          });
        });
        req.on('error', (error) => (done ? undefined : reject(error)));
        req.end();
      });
    },

    async namespace() {
      const ns = `conf-${suffix()}`;
      await backend.core.createNamespace({ body: { metadata: { name: ns } } });
      backend.defer(() => backend.core.deleteNamespace({ name: ns }));
      await parts.namespaceReady?.(backend, ns);
      return ns;
    },

    unique: (prefix) => `conf-${prefix}-${suffix()}`,
    defer: (fn) => void deferred.push(fn),

    async cleanup() {
      while (deferred.length > 0) {
        const fn = deferred.pop();
        await fn?.().catch(() => undefined);
      }
    },

    close: async () => {
      await backend.cleanup();
      await parts.close();
    },
  };
  return backend;
}

/** Polls `check` every 100 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
