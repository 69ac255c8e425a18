/**
 * Helpers for the sim's integration tests: a sim on a temp kubeconfig at a high clock scale, typed
 * client-node APIs for it, and a wall-clock `waitFor` that fails with the last thing it saw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, BatchV1Api, CoreV1Api, KubeConfig, PolicyV1Api } from '@kubernetes/client-node';
import { installKubemaintKinds } from '../../src/compose/sim-kinds.js';
import { createSim, type Sim, type SimOptions } from '@kubemaint/kubesim';
import { kubemaintAccessObjects } from '../../src/compose/sim-access.js';

export interface TestSim extends Sim {
  dir: string;
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  policy: PolicyV1Api;
  close(): Promise<void>;
}

export async function startTestSim(options: SimOptions = {}): Promise<TestSim> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-'));
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scale: 100,
    kubeconfigPath: join(dir, 'kubeconfig'),
    ...options,
  });
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  // kubemaint's own kinds, as `kubectl apply -k infra/k8s` installs them on a real cluster.
  await installKubemaintKinds(kc);
  return {
    ...sim,
    dir,
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

export { waitFor, isReady } from '@kubemaint/kubesim/testing';
