/**
 * Starts a store + API server on a free port with a temp kubeconfig, for integration tests that talk
 * to the sim over real HTTPS. The store is seeded with the `default` namespace, as a cluster is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createStore } from '../store.js';
import {
  startApiServer,
  writeKubeconfig,
  type ApiServer,
  type ApiServerOptions,
} from '../api/index.js';
import { R, type Store } from '../types.js';

export interface SimApi {
  store: Store;
  api: ApiServer;
  kubeconfigPath: string;
  kc: KubeConfig;
  dir: string;
  /** Sim time; tests move it with `advance`. */
  now: () => Date;
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startSimApi(
  options: Partial<Omit<ApiServerOptions, 'store' | 'now'>> & { historyLimit?: number } = {},
): Promise<SimApi> {
  let clock = Date.parse('2026-03-01T10:00:00Z');
  const now = () => new Date(clock);
  const { historyLimit, ...serverOptions } = options;
  const store = createStore({ now, ...(historyLimit ? { historyLimit } : {}) });
  store.create(R.namespaces, { metadata: { name: 'default' } }, { actor: 'test/setup' });
  const api = await startApiServer({
    store,
    now,
    port: 0,
    bookmarkIntervalMs: 100,
    ...serverOptions,
  });
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-api-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, {
    url: api.url,
    caPem: api.caPem,
    token: api.token,
    contextName: 'sim',
  });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return {
    store,
    api,
    kubeconfigPath,
    kc,
    dir,
    now,
    advance: (ms) => void (clock += ms),
    close: async () => {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Parses the Status body of a client-node ApiException (its `body` is the raw JSON text). */
export interface StatusBody {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason: string; message: string }[]; retryAfterSeconds?: number };
}

export function statusBody(error: unknown): StatusBody {
  const body = (error as { body?: unknown }).body;
  return typeof body === 'string' ? (JSON.parse(body) as StatusBody) : {};
}
