/**
 * The attack suite of issue 15 on the real kube-apiserver, with infra/k8s applied: the ground truth
 * for every refusal the embedded sim reproduces (test/integration/attack.test.ts).
 */
import { attackSuite } from '../support/attack-suite.js';
import { INFRA_K8S, realCluster } from '../support/real-cluster.js';

attackSuite(async () => {
  const cluster = await realCluster();
  return {
    name: 'real',
    adminKubeconfig: cluster.kubeconfig,
    identities: cluster,
    infra: INFRA_K8S,
  };
});
