/**
 * The package's own test bed: a whole sim on a temp kubeconfig at a high clock scale with typed
 * client-node APIs; API-only sims and waiting come from src/testing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, BatchV1Api, CoreV1Api, KubeConfig, PolicyV1Api } from '@kubernetes/client-node';
import { createSim, type Sim, type SimOptions } from '../src/index.js';

export {
  waitFor,
  isReady,
  startSimApi,
  statusBody,
  type SimApi,
  type StatusBody,
} from '../src/testing/index.js';

export interface TestSim extends Sim {
  dir: string;
  kc: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  policy: PolicyV1Api;
  close(): Promise<void>;
}

export async function startTestSim(options: SimOptions = {}): Promise<TestSim> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-test-'));
  const sim = await createSim({ scale: 100, kubeconfigPath: join(dir, 'kubeconfig'), ...options });
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  return {
    ...sim,
    dir,
    kc,
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    policy: kc.makeApiClient(PolicyV1Api),
    async close() {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
