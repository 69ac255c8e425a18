/**
 * The embedded simulator as a conformance backend, shaped like the real control plane the other
 * backend is: the API server over TLS with its store, the controllers (scheduler, node lifecycle,
 * disruption, Job, garbage collector, …) on a wall-speed clock, and no kubelets: cases that need one
 * act as the kubelet themselves, on both backends alike. Node-monitor timings are the real-cluster's
 * (scripts/real-cluster: period 2 s, grace 20 s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { silentLogger } from '../../src/log.js';
import { startApiServer, writeKubeconfig } from '@kubemaint/kubesim/api';
import { createScaledClock } from '@kubemaint/kubesim';
import { DEFAULT_DELAYS } from '@kubemaint/kubesim/testing';
import { startControllers } from '@kubemaint/kubesim/testing';
import { SCENARIOS } from '@kubemaint/kubesim';
import { createStore } from '@kubemaint/kubesim';
import type { Store } from '@kubemaint/kubesim';
import { simIdentities } from '../support/sim-identities.js';
import { createBackend, type Backend } from './backend.js';

/**
 * Watch events the sim keeps (its watch cache window is a count, the real one's a time): small enough
 * that the too-old-resourceVersion case pushes a version out with a few hundred writes.
 */
const SIM_HISTORY = 1_000;

export interface SimBackend extends Backend {
  store: Store;
}

export async function startSimBackend(
  options: { historyLimit?: number } = {},
): Promise<SimBackend> {
  const clock = createScaledClock({ scale: 1 });
  const store = createStore({
    now: () => clock.now(),
    historyLimit: options.historyLimit ?? SIM_HISTORY,
  });
  SCENARIOS.empty.seed(store);
  const stopControllers = startControllers({
    store,
    clock,
    log: silentLogger(),
    delays: { ...DEFAULT_DELAYS, nodeMonitorPeriodMs: 2_000, nodeMonitorGraceMs: 20_000 },
  });
  const api = await startApiServer({ store, now: () => clock.now(), port: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-conformance-'));
  const path = join(dir, 'kubeconfig');
  writeKubeconfig(path, { url: api.url, caPem: api.caPem, token: api.token, contextName: 'sim' });
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const backend = createBackend({
    name: 'sim',
    kc,
    identities: simIdentities(api),
    close: async () => {
      stopControllers();
      clock.stop();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  return { ...backend, store };
}
