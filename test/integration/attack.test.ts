/**
 * The attack suite of issue 15 on the embedded sim: the same routes and assertions as on the real
 * kube-apiserver (test/real/attack.test.ts), so the sim's RBAC, impersonation and admission policies
 * are held to what the real one does.
 */
import { fileURLToPath } from 'node:url';
import { attackSuite } from '../support/attack-suite.js';
import { simIdentities } from '../support/sim-identities.js';
import { startTestSim } from '../support/sim.js';

attackSuite(async () => {
  const sim = await startTestSim({ scenario: 'demo', scale: 20 });
  return {
    name: 'sim',
    adminKubeconfig: sim.kubeconfigPath,
    identities: simIdentities(sim.credentials),
    infra: fileURLToPath(new URL('../../infra/k8s', import.meta.url)),
    close: () => sim.close(),
  };
});
