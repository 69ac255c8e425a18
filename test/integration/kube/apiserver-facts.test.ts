/**
 * The skew scan's apiservers (ADR 0050) through kubemaint's own adapter, as serve with infra/k8s's
 * RBAC, on the sim modelling an HA control plane: the main apiserver's `/version` with its emulation
 * fields, an extra apiserver found by its identity Lease's peer address (CA-verified as
 * kubernetes.default.svc), the oldest emulated version as the bound with its source, and every
 * kubelet above it reported as a violation, not proposed.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadKubeConfig, createKubeClient } from '../../../src/adapters/kube/client.js';
import { controlCluster } from '../../../src/adapters/kube/control-cluster.js';
import { findNeeds, skewLines } from '../../../src/app/control/tick.js';
import { apiserverBound } from '../../../src/core/apiserver-bound.js';
import { testControlSettings } from '../../support/control.js';
import { simIdentities } from '../../support/sim-identities.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

async function asServe(sim: TestSim) {
  const kubeconfig = simIdentities(sim.credentials).serviceAccountKubeconfig(
    'kubemaint',
    'kubemaint-serve',
  );
  const cluster = controlCluster(createKubeClient(loadKubeConfig(kubeconfig)), {
    namespace: 'kubemaint',
    now: () => sim.clock.now(),
  });
  return cluster;
}

describe('every apiserver on the sim, read as serve', () => {
  const sims: TestSim[] = [];
  after(async () => Promise.all(sims.map((s) => s.close())));

  it('one apiserver emulating 1.33: its /version bounds, and says so', async () => {
    const sim = await startTestSim({
      scenario: 'empty',
      version: 'v1.34.4',
      emulatedVersion: '1.33',
    });
    sims.push(sim);
    const read = await (await asServe(sim)).apiserverFacts();
    assert.equal(read.identities, 1);
    assert.deepEqual(
      read.facts.map((f) => [f.source, f.binary, f.emulated, f.minCompatibility]),
      [['version', 'v1.34.4', '1.33', '1.32']],
    );
    assert.match(read.said.join('\n'), /identity leases: 1 kube-apiserver, no version/);
    assert.match(read.said.join('\n'), /EndpointSlice default\/kubernetes: no address/);
    assert.match(read.said.join('\n'), /static pods kube-system\/kube-apiserver-\*: none/);
    const { bound } = apiserverBound(read);
    assert.equal(bound.label, 'v1.33 (emulated by v1.34.4)');
    assert.match(bound.source ?? '', /^version https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('an extra apiserver emulating 1.33 is found by its peer address and bounds the scan', async () => {
    const sim = await startTestSim({
      scenario: 'demo',
      version: 'v1.34.4',
      apiservers: ['v1.34.4@1.33'],
    });
    sims.push(sim);
    const cluster = await asServe(sim);
    const read = await cluster.apiserverFacts();
    assert.equal(read.identities, 2);
    const peer = read.facts.find((f) => f.source === 'peer-address');
    assert.match(peer?.name ?? '', /^127\.0\.0\.1:\d+$/);
    assert.equal(peer?.emulated, '1.33');
    const found = await findNeeds(
      { settings: testControlSettings(), cluster, clock: sim.clock },
      true,
    );
    const lines = skewLines(found);
    assert.match(
      lines[0] ?? '',
      /^apiserver bound v1\.33 \(emulated by v1\.34\.4\), from peer-address 127\.0\.0\.1:\d+; 2 kube-apiservers by identity leases$/,
    );
    // The demo's kubelets at the binary's v1.34 are above the bound: each reported, none proposed
    // (a kubelet a minor behind, at v1.33, is within it).
    const above = found.nodes.filter((n) => /^v1\.34\./.test(n.kubeletVersion));
    assert.ok(above.length > 0);
    assert.equal(found.violations.length, above.length);
    assert.match(
      found.violations[0]?.why ?? '',
      /kubelet v1\.34\.4 is newer than apiserver v1\.33 \(emulated by v1\.34\.4\)/,
    );
    assert.deepEqual(
      found.needs.filter((n) => n.action === 'upgrade'),
      [],
    );
  });
});
