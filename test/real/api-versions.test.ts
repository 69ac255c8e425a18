/**
 * The API upgrade on the real apiserver (issue 32, ADR 0051): kubemaint's CRDs as they were before
 * (v1alpha1 only: test/real/fixtures/crds-v1alpha1-only.yaml) hold requests and decisions written by
 * serve; the new CRDs (v1beta1 stored, v1alpha1 served and deprecated) are applied with kubectl;
 * `kubectl get mr` works before and after; serve's storage-version migration, as serve's own
 * account under infra/k8s's RBAC and admission policies, rewrites every object and trims
 * `status.storedVersions` to [v1beta1]; the objects read back intact at both versions; and only
 * then would the apiserver let a later CRD stop serving v1alpha1 (a dry run shows it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  ApiextensionsV1Api,
  type ApiException,
  CustomObjectsApi,
  KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { kubeStorageVersions } from '../../src/adapters/kube/storage-versions.js';
import { migrateStorage } from '../../src/app/control/storage-migration.js';
import { applyAll, KUBEMAINT_MANIFESTS, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { INFRA_K8S, kubectlFor, realCluster, type RealCluster } from '../support/real-cluster.js';

const NS = 'kubemaint';
const OLD_CRDS = fileURLToPath(new URL('./fixtures/crds-v1alpha1-only.yaml', import.meta.url));
const NEW_CRDS = fileURLToPath(new URL('../../infra/k8s/crds.yaml', import.meta.url));
const CRDS = ['maintenancerequests.kubemaint.io', 'maintenanceapprovals.kubemaint.io'];
const IDS = ['r-a1a1a1', 'r-b2b2b2', 'r-c3c3c3'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the API upgrade v1alpha1 → v1beta1 on the real apiserver', { timeout: 300_000 }, () => {
  let cluster: RealCluster;
  let crds: ApiextensionsV1Api;
  let admin: CustomObjectsApi;
  let serveKc: KubeConfig;
  const kubectl = (args: string[]) =>
    spawnSync(
      kubectlFor(Number(cluster.version.split('.')[1])),
      ['--kubeconfig', cluster.kubeconfig, ...args],
      {
        encoding: 'utf8',
      },
    );
  const storedVersions = async (name: string) =>
    (await crds.readCustomResourceDefinition({ name })).status?.storedVersions;
  const read = (version: string, plural: string, name: string) =>
    admin.getNamespacedCustomObject({
      group: 'kubemaint.io',
      version,
      namespace: NS,
      plural,
      name,
    }) as Promise<{
      apiVersion: string;
      spec: Record<string, unknown>;
      status?: Record<string, unknown>;
    }>;
  /** A CRD without v1alpha1, as a release after the deprecation period would apply: dry run. */
  const dropAlpha = async (name: string) => {
    const current = await crds.readCustomResourceDefinition({ name });
    const body: V1CustomResourceDefinition = {
      ...current,
      spec: {
        ...current.spec,
        versions: current.spec.versions.filter((v) => v.name !== 'v1alpha1'),
      },
    };
    return crds.replaceCustomResourceDefinition({ name, body, dryRun: 'All' });
  };

  before(async () => {
    cluster = await realCluster();
    crds = cluster.admin.makeApiClient(ApiextensionsV1Api);
    admin = cluster.admin.makeApiClient(CustomObjectsApi);
    // A cluster another suite used has the new CRDs: start from the old ones, as an upgrade would.
    for (const name of CRDS)
      await crds.deleteCustomResourceDefinition({ name }).catch(() => undefined);
    for (let i = 0; ; i++) {
      const left = await Promise.all(
        CRDS.map((name) =>
          crds.readCustomResourceDefinition({ name }).then(
            () => name,
            () => undefined,
          ),
        ),
      );
      if (left.every((l) => l === undefined)) break;
      assert.ok(i < 120, `old CRDs still there: ${left.join(', ')}`);
      await sleep(500);
    }
    const applied = kubectl(['apply', '-f', OLD_CRDS]);
    assert.equal(applied.status, 0, applied.stderr);
    const waited = kubectl([
      'wait',
      '--for',
      'condition=Established',
      '--timeout=60s',
      ...CRDS.map((c) => `crd/${c}`),
    ]);
    assert.equal(waited.status, 0, waited.stderr);
    // serve's account, RBAC and admission policies: everything of infra/k8s but its CRDs.
    await applyAll(
      cluster.admin,
      manifests(
        INFRA_K8S,
        KUBEMAINT_MANIFESTS.filter((f) => f !== 'crds.yaml'),
      ),
    );
    serveKc = new KubeConfig();
    serveKc.loadFromFile(cluster.serviceAccountKubeconfig(NS, 'kubemaint-serve'));
  });
  after(async () => {
    await cleanKubemaint(cluster.admin);
    // Later suites get this kubemaint's CRDs, whatever happened here.
    await applyAll(cluster.admin, manifests(INFRA_K8S, ['crds.yaml']));
  });

  it('under the old CRDs, serve writes requests and decisions as v1alpha1 and `kubectl get mr` lists them', async () => {
    const serve = serveKc.makeApiClient(CustomObjectsApi);
    const at = { group: 'kubemaint.io', version: 'v1alpha1', namespace: NS };
    for (const [i, id] of IDS.entries()) {
      await serve.createNamespacedCustomObject({
        ...at,
        plural: 'maintenancerequests',
        body: {
          apiVersion: 'kubemaint.io/v1alpha1',
          kind: 'MaintenanceRequest',
          metadata: { name: id },
          spec: { node: `node-${i}`, action: 'reboot', requestedBy: 'detector', reason: 'kernel' },
        },
      });
      const created = (await serve.getNamespacedCustomObject({
        ...at,
        plural: 'maintenancerequests',
        name: id,
      })) as object;
      await serve.replaceNamespacedCustomObjectStatus({
        ...at,
        plural: 'maintenancerequests',
        name: id,
        body: { ...created, status: { state: 'proposed', approvals: [], history: [] } },
      });
      await serve.createNamespacedCustomObject({
        ...at,
        plural: 'maintenanceapprovals',
        body: {
          apiVersion: 'kubemaint.io/v1alpha1',
          kind: 'MaintenanceApproval',
          metadata: { name: `${id}-approve` },
          spec: { request: id, approver: 'policy:autoApprove', decision: 'approve' },
        },
      });
    }
    const listed = kubectl(['get', 'mr', '-n', NS, '--no-headers']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/).slice(0, 4).join(' ')),
      IDS.map((id, i) => `${id} node-${i} reboot proposed`),
    );
    for (const name of CRDS) assert.deepEqual(await storedVersions(name), ['v1alpha1']);
  });

  it('the new CRDs: v1beta1 joins storedVersions, `kubectl get mr` still works, v1alpha1 warns, and v1alpha1 cannot be dropped yet', async () => {
    const applied = kubectl(['apply', '-f', NEW_CRDS]);
    assert.equal(applied.status, 0, applied.stderr);
    for (const name of CRDS) assert.deepEqual(await storedVersions(name), ['v1alpha1', 'v1beta1']);
    for (let i = 0; ; i++) {
      const listed = kubectl(['get', 'mr', '-n', NS, '--no-headers']);
      if (listed.status === 0 && listed.stdout.trim().split('\n').length === IDS.length) break;
      assert.ok(i < 60, `kubectl get mr after the upgrade: ${listed.stderr}`);
      await sleep(500);
    }
    const alpha = kubectl([
      'get',
      'maintenancerequests.v1alpha1.kubemaint.io',
      '-n',
      NS,
      '--no-headers',
    ]);
    assert.equal(alpha.status, 0, alpha.stderr);
    assert.match(
      alpha.stderr,
      /Warning: kubemaint\.io\/v1alpha1 MaintenanceRequest is deprecated; use kubemaint\.io\/v1beta1/,
    );
    const refused = await dropAlpha(CRDS[0]!).then(
      () => 'accepted',
      (e: unknown) => {
        const body = (e as ApiException<unknown>).body;
        return String(
          (typeof body === 'string'
            ? (JSON.parse(body) as { message?: string })
            : (body as { message?: string })
          )?.message ?? body,
        );
      },
    );
    assert.match(
      refused,
      /status.storedVersions\[0\]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version/,
    );
  });

  it("serve's storage-version migration, as serve: every object rewritten, storedVersions trimmed to [v1beta1]", async () => {
    const port = kubeStorageVersions(createKubeClient(serveKc), NS);
    const said = await migrateStorage(port);
    assert.deepEqual(said, [
      'maintenancerequests: 3 of 3 rewritten as v1beta1 (0 written meanwhile or gone); storedVersions [v1alpha1, v1beta1] → [v1beta1]',
      'maintenanceapprovals: 3 of 3 rewritten as v1beta1 (0 written meanwhile or gone); storedVersions [v1alpha1, v1beta1] → [v1beta1]',
    ]);
    for (const name of CRDS) assert.deepEqual(await storedVersions(name), ['v1beta1']);
    assert.deepEqual(await migrateStorage(port), [], 'a second run has nothing to do');
  });

  it('the objects read back intact at both versions, and v1alpha1 could now be dropped', async () => {
    for (const [i, id] of IDS.entries()) {
      for (const version of ['v1beta1', 'v1alpha1']) {
        const request = await read(version, 'maintenancerequests', id);
        assert.equal(request.apiVersion, `kubemaint.io/${version}`);
        assert.deepEqual(request.spec, {
          node: `node-${i}`,
          action: 'reboot',
          requestedBy: 'detector',
          reason: 'kernel',
        });
        assert.equal(request.status?.['state'], 'proposed');
        const decision = await read(version, 'maintenanceapprovals', `${id}-approve`);
        assert.deepEqual(decision.spec, {
          request: id,
          approver: 'policy:autoApprove',
          decision: 'approve',
        });
      }
    }
    const listed = kubectl([
      'get',
      'maintenancerequests.v1beta1.kubemaint.io',
      '-n',
      NS,
      '--no-headers',
    ]);
    assert.equal(listed.status, 0, listed.stderr);
    assert.doesNotMatch(
      listed.stderr,
      /deprecated/,
      'v1beta1 asked for by name: no deprecation warning (kubectl get mr may still use its cached discovery)',
    );
    for (const name of CRDS) await dropAlpha(name);
  });
});
