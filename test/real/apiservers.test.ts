/**
 * Every kube-apiserver's version on the real control plane (issue 33, ADR 0050), read as serve with
 * infra/k8s's RBAC: alone, the one `/version` bounds the kubelets; with a second kube-apiserver on the
 * same etcd started with `--emulated-version=1.33` (the same 1.34 binary), its identity Lease
 * advertises its address, the scan bounds the kubelets by v1.33 and says which apiserver and source
 * gave it, reports a kubelet above it, and a person's upgrade to a 1.34 kubelet is refused naming that
 * bound; then with a second kube-apiserver built from the previous minor (1.33.13: an HA control plane
 * in the middle of its upgrade), the same by its own version. Simulated nodes (attachSim) are the
 * kubelets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import { attachSim, type AttachedSim } from '@kubemaint/kubesim/attach';
import { requestMaintenance } from '../../src/app/control/commands.js';
import { findNeeds, skewLines } from '../../src/app/control/tick.js';
import { openControl, type ControlRuntime } from '../../src/compose.js';
import { parseConfig } from '../../src/config/parse.js';
import { silentLogger } from '../../src/log.js';
import {
  startExtraApiserver,
  stopExtraApiservers,
} from '../../scripts/real-cluster/extra-apiserver.js';
import { PREVIOUS_MINOR_RELEASE } from '../../scripts/real-cluster/versions.js';
import { applyAll, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';
import { waitFor } from '../support/sim.js';

const NS = 'kubemaint';
const NEW = 'apis-new-0';
const OLD = 'apis-old-0';
const FLEET_USER = 'apiservers-fleet';
const IDENTITY = 'apiserver.kubernetes.io/identity=kube-apiserver';
const alice = { kind: 'person', id: 'k8s:alice' } as const;

describe(
  'every apiserver bounds the kubelets on the real control plane',
  { timeout: 600_000 },
  () => {
    let cluster: RealCluster;
    let admin: KubeConfig;
    let control: ControlRuntime;
    const attached: AttachedSim[] = [];
    const extraHosts: string[] = [];

    const identityLeases = async () =>
      (
        await admin
          .makeApiClient(CoordinationV1Api)
          .listNamespacedLease({ namespace: 'kube-system', labelSelector: IDENTITY })
      ).items;

    before(async () => {
      cluster = await realCluster();
      admin = new KubeConfig();
      admin.loadFromFile(cluster.kubeconfig);
      await applyAll(admin, manifests(INFRA_K8S));
      const fleet = cluster.fleetKubeconfig(FLEET_USER, [NEW, OLD]);
      // Two kubelets: one at the binary's minor, one a minor below it.
      for (const [prefix, kubeletVersion] of [
        ['apis-new-', 'v1.34.4'],
        ['apis-old-', 'v1.33.5'],
      ] as const) {
        attached.push(
          await attachSim({
            kubeconfig: fleet,
            nodes: 1,
            prefix,
            kubeletVersion,
            labels: { 'topology.kubernetes.io/zone': 'apiservers' },
          }),
        );
      }
      const serve = cluster.serviceAccountKubeconfig(NS, 'kubemaint-serve');
      const parsed = parseConfig(
        [
          'cluster:',
          '  type: kubeconfig',
          'approval:',
          '  approvers:',
          '    kubernetes:',
          '      users: [alice, bob]',
        ].join('\n'),
        'kubemaint.yaml',
      );
      assert.ok(parsed.ok, JSON.stringify(parsed));
      control = await openControl(parsed.config, { log: silentLogger(), kubeconfigPath: serve });
    });
    /** Stops the extra apiservers; their identity Leases would count them for an hour more: gone too. */
    const stopExtras = async () => {
      await stopExtraApiservers({ dir: cluster.dir });
      for (const lease of extraHosts.length > 0 ? await identityLeases() : []) {
        if (!extraHosts.includes(lease.metadata?.labels?.['kubernetes.io/hostname'] ?? ''))
          continue;
        await admin
          .makeApiClient(CoordinationV1Api)
          .deleteNamespacedLease({ namespace: 'kube-system', name: lease.metadata?.name ?? '' });
      }
      extraHosts.length = 0;
    };

    after(async () => {
      await stopExtras();
      await control?.close();
      for (const sim of attached) await sim.stop();
      cluster.kubectl(['delete', 'node', NEW, OLD, '--ignore-not-found']);
      await cleanKubemaint(admin, { nodes: [NEW, OLD] });
    });

    it('one apiserver: its /version bounds, and each source says what it gave', async () => {
      const found = await findNeeds(control.deps, true);
      const said = found.apiservers?.summary ?? '';
      assert.match(said, /^apiserver bound v1\.34\.4, from version https:\/\/127\.0\.0\.1:\d+/);
      assert.deepEqual(
        found.violations.filter((v) => v.node === NEW || v.node === OLD),
        [],
      );
      const old = found.needs.find((n) => n.node === OLD);
      assert.equal(old?.targetVersion, 'v1.34.4');
      // the closing note: what each source gave
      console.log(
        `one apiserver:\n  ${(await control.deps.cluster.apiserverFacts()).said.join('\n  ')}`,
      );
    });

    it('a second apiserver emulating 1.33 bounds by v1.33, is named, and a kubelet above is reported', async () => {
      const extra = await startExtraApiserver({ dir: cluster.dir, emulatedVersion: '1.33' });
      extraHosts.push(extra.hostname);
      // Its identity Lease, with the address it answers at, is written once it is ready.
      await waitFor('its identity lease with its peer address', async () =>
        (await identityLeases()).some(
          (l) =>
            l.metadata?.annotations?.['kubernetes.io/peer-advertise-address'] ===
            `127.0.0.1:${extra.port}`,
        ),
      );
      const found = await findNeeds(control.deps, true);
      const lines = skewLines(found).join('\n');
      assert.match(
        lines,
        new RegExp(
          `apiserver bound v1\\.33 \\(emulated by v1\\.34\\.4\\), from peer-address 127\\.0\\.0\\.1:${extra.port}; 2 kube-apiservers by identity leases`,
        ),
      );
      const violation = found.violations.find((v) => v.node === NEW);
      assert.match(
        violation?.why ?? '',
        /kubelet v1\.34\.4 is newer than apiserver v1\.33 \(emulated by v1\.34\.4\)/,
      );
      assert.match(lines, new RegExp(`${NEW}: skew violation: `));
      // A kubelet at the emulated minor is within it: nothing to propose, nothing to report.
      assert.equal(
        found.needs.find((n) => n.node === OLD),
        undefined,
      );
      assert.equal(
        found.violations.find((v) => v.node === OLD),
        undefined,
      );
      // A person asking for a 1.34 kubelet is refused, and the refusal names the bound as it is.
      await assert.rejects(
        requestMaintenance(control.deps, {
          node: OLD,
          action: 'upgrade',
          version: 'v1.34.0',
          by: alice,
        }),
        (error: Error) =>
          /newer than the apiserver/.test(error.message) &&
          /v1\.33 \(emulated by v1\.34\.4\)/.test(error.message) &&
          !/v1\.33\.0/.test(error.message),
      );
      // the closing note: what each source gave
      console.log(
        `two apiservers:\n  ${(await control.deps.cluster.apiserverFacts()).said.join('\n  ')}`,
      );
    });

    it('a second apiserver a minor older (its own 1.33 binary) bounds by its version, and a kubelet above is reported', async () => {
      // An HA control plane in the middle of its upgrade: one apiserver still at the older release.
      await stopExtras();
      const extra = await startExtraApiserver({
        dir: cluster.dir,
        binaryVersion: PREVIOUS_MINOR_RELEASE,
      });
      extraHosts.push(extra.hostname);
      await waitFor('its identity lease with its peer address', async () =>
        (await identityLeases()).some(
          (l) =>
            l.metadata?.annotations?.['kubernetes.io/peer-advertise-address'] ===
            `127.0.0.1:${extra.port}`,
        ),
      );
      const found = await findNeeds(control.deps, true);
      const lines = skewLines(found).join('\n');
      const bound = PREVIOUS_MINOR_RELEASE.replaceAll('.', '\\.');
      assert.match(
        lines,
        new RegExp(
          `apiserver bound v${bound}, from peer-address 127\\.0\\.0\\.1:${extra.port}; 2 kube-apiservers by identity leases`,
        ),
      );
      assert.match(
        found.violations.find((v) => v.node === NEW)?.why ?? '',
        new RegExp(`kubelet v1\\.34\\.4 is newer than apiserver v${bound}`),
      );
      // A person asking for a 1.34 kubelet is refused: the older apiserver bounds it.
      await assert.rejects(
        requestMaintenance(control.deps, {
          node: OLD,
          action: 'upgrade',
          version: 'v1.34.0',
          by: alice,
        }),
        (error: Error) =>
          /newer than the apiserver/.test(error.message) &&
          new RegExp(`v${bound}`).test(error.message),
      );
      // the closing note: what each source gave
      console.log(
        `two apiservers of different minors:\n  ${(await control.deps.cluster.apiserverFacts()).said.join('\n  ')}`,
      );
    });
  },
);
