/**
 * The storage-version migration on the simulator (ADR 0051): the v1alpha1-only CRDs of before
 * (test/real/fixtures/crds-v1alpha1-only.yaml) hold requests and decisions; the new CRDs are
 * applied (v1beta1 stored, v1alpha1 served and deprecated); serve's migration rewrites every object
 * (more than a page of them) at v1beta1 and trims `status.storedVersions` to [v1beta1], and a second
 * run reads the two CRDs and writes nothing. test/real/api-versions.test.ts does the same on the
 * real apiserver, as serve's own account.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  loadAllYaml,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { migrateStorage } from '../../../src/app/control/storage-migration.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { kubeStorageVersions } from '../../../src/adapters/kube/storage-versions.js';
import { kubemaintCrds } from '../../../src/compose/sim-kinds.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

const OLD_CRDS = new URL('../../real/fixtures/crds-v1alpha1-only.yaml', import.meta.url);
const NS = 'kubemaint';
const REQUESTS = 'maintenancerequests.kubemaint.io';
const DECISIONS = 'maintenanceapprovals.kubemaint.io';
/** More than a page (PAGE_SIZE 500): the rewrite must follow `continue`. */
const SEEDED = 520;

const crdsOf = (text: string) =>
  (loadAllYaml(text) as (V1CustomResourceDefinition | null)[]).filter(
    (d): d is V1CustomResourceDefinition => d?.kind === 'CustomResourceDefinition',
  );

describe('storage-version migration on the simulator (ADR 0051)', () => {
  let sim: SimApi;
  let crds: ApiextensionsV1Api;
  const storedVersions = async (name: string) =>
    (await crds.readCustomResourceDefinition({ name })).status?.storedVersions;
  /** The apiVersion each object is stored at (the store's own copy, not a read at some version). */
  const storedAt = (resource: string) =>
    new Set(sim.store.list(resource, { namespace: NS }).map((o) => o.apiVersion));

  before(async () => {
    sim = await startSimApi();
    crds = sim.kc.makeApiClient(ApiextensionsV1Api);
    for (const body of crdsOf(readFileSync(OLD_CRDS, 'utf8')))
      await crds.createCustomResourceDefinition({ body });
    await sim.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
    for (let i = 0; i < SEEDED; i++) {
      const id = `r-${i.toString(16).padStart(6, '0')}`;
      sim.store.create(REQUESTS, {
        apiVersion: 'kubemaint.io/v1alpha1',
        kind: 'MaintenanceRequest',
        metadata: { name: id, namespace: NS },
        spec: {
          node: `node-${i % 7}`,
          action: 'reboot',
          requestedBy: 'detector',
          reason: 'kernel',
        },
      });
      if (i % 10 === 0)
        sim.store.create(DECISIONS, {
          apiVersion: 'kubemaint.io/v1alpha1',
          kind: 'MaintenanceApproval',
          metadata: { name: `${id}-bob`, namespace: NS },
          spec: { request: id, approver: 'k8s:bob', decision: 'approve' },
        });
    }
  });
  after(() => sim.close());

  it('waits, saying what to do, while the CRDs in the cluster are the old ones', async () => {
    const said = await migrateStorage(kubeStorageVersions(createKubeClient(sim.kc), NS));
    assert.equal(said.length, 2);
    assert.match(
      said[0]!,
      /maintenancerequests: .* stores v1alpha1, not v1beta1: apply this kubemaint's CRDs/,
    );
    assert.deepEqual(await storedVersions(REQUESTS), ['v1alpha1']);
  });

  it('the new CRDs add v1beta1 to storedVersions; old objects stay stored as v1alpha1 and read as either', async () => {
    for (const body of kubemaintCrds()) {
      const name = body.metadata!.name!;
      const current = await crds.readCustomResourceDefinition({ name });
      await crds.replaceCustomResourceDefinition({
        name,
        body: {
          ...body,
          metadata: { ...body.metadata, resourceVersion: current.metadata!.resourceVersion! },
        },
      });
      assert.deepEqual(await storedVersions(name), ['v1alpha1', 'v1beta1']);
    }
    assert.deepEqual(storedAt(REQUESTS), new Set(['kubemaint.io/v1alpha1']));
    const client = createKubeClient(sim.kc);
    for (const version of ['v1alpha1', 'v1beta1']) {
      const read = (await client.custom.getNamespacedCustomObject({
        group: 'kubemaint.io',
        version,
        namespace: NS,
        plural: 'maintenancerequests',
        name: 'r-000001',
      })) as { apiVersion: string; spec: { node: string } };
      assert.equal(read.apiVersion, `kubemaint.io/${version}`);
      assert.equal(read.spec.node, 'node-1');
    }
  });

  it('rewrites every object as v1beta1 (past the first page), then trims storedVersions to [v1beta1]', async () => {
    const said = await migrateStorage(kubeStorageVersions(createKubeClient(sim.kc), NS));
    assert.deepEqual(said, [
      `maintenancerequests: ${SEEDED} of ${SEEDED} rewritten as v1beta1 (0 written meanwhile or gone); storedVersions [v1alpha1, v1beta1] → [v1beta1]`,
      `maintenanceapprovals: ${SEEDED / 10} of ${SEEDED / 10} rewritten as v1beta1 (0 written meanwhile or gone); storedVersions [v1alpha1, v1beta1] → [v1beta1]`,
    ]);
    assert.deepEqual(storedAt(REQUESTS), new Set(['kubemaint.io/v1beta1']));
    assert.deepEqual(storedAt(DECISIONS), new Set(['kubemaint.io/v1beta1']));
    assert.deepEqual(await storedVersions(REQUESTS), ['v1beta1']);
    assert.deepEqual(await storedVersions(DECISIONS), ['v1beta1']);
    // Intact: the rewrite changed nothing but where the object is stored.
    const one = sim.store.get(REQUESTS, NS, 'r-000007')!;
    assert.deepEqual(one.spec, {
      node: 'node-0',
      action: 'reboot',
      requestedBy: 'detector',
      reason: 'kernel',
    });
  });

  it('is idempotent: a second run reads the two CRDs and writes nothing', async () => {
    const seen: string[] = [];
    const count = (req: { method?: string; url?: string }) =>
      seen.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    sim.api.server.prependListener('request', count);
    try {
      assert.deepEqual(await migrateStorage(kubeStorageVersions(createKubeClient(sim.kc), NS)), []);
    } finally {
      sim.api.server.off('request', count);
    }
    assert.deepEqual(seen, [
      `GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/${REQUESTS}`,
      `GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/${DECISIONS}`,
    ]);
  });

  it('an object written between the list and its rewrite is counted as written meanwhile, not failed', async () => {
    // Back to before the migration for the approvals: stored as v1alpha1, storedVersions with it.
    for (const o of sim.store.list(DECISIONS, { namespace: NS }))
      sim.store.mutate(
        DECISIONS,
        NS,
        o.metadata.name!,
        (x) => void (x.apiVersion = 'kubemaint.io/v1alpha1'),
      );
    await crds.patchCustomResourceDefinitionStatus(
      { name: DECISIONS, body: { status: { storedVersions: ['v1alpha1', 'v1beta1'] } } },
      MERGE_PATCH,
    );
    // Someone writes r-000000-bob just as the migration's patch for it arrives: a 409 on the
    // listed resourceVersion, since that write stored it at today's version already.
    const race = (req: { method?: string; url?: string }) => {
      if (req.method === 'PATCH' && (req.url ?? '').includes('/maintenanceapprovals/r-000000-bob'))
        sim.store.mutate(DECISIONS, NS, 'r-000000-bob', (o) => {
          o.metadata.labels = { touched: 'yes' };
        });
    };
    sim.api.server.prependListener('request', race);
    try {
      const said = await migrateStorage(kubeStorageVersions(createKubeClient(sim.kc), NS));
      assert.deepEqual(said, [
        `maintenanceapprovals: ${SEEDED / 10 - 1} of ${SEEDED / 10} rewritten as v1beta1 (1 written meanwhile or gone); storedVersions [v1alpha1, v1beta1] → [v1beta1]`,
      ]);
    } finally {
      sim.api.server.off('request', race);
    }
    assert.deepEqual(storedAt(DECISIONS), new Set(['kubemaint.io/v1beta1']));
  });
});
