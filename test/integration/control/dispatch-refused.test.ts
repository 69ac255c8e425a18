/**
 * Fragile names (issue 15), through the real tick on the sim, which validates labels as the
 * apiserver does: a node whose name has 253 characters gets its executor Job (its `kubemaint.io/node`
 * label is labelValue's 63-character form, the name is in an annotation); and a Job the apiserver
 * refuses (422) fails its own request, with the reason, while the same tick still starts the others.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { ANN_NODE, LABEL_NODE, jobName } from '../../../src/core/names.js';
import { labelValue } from '../../../templates/label-value.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import {
  executorSettings,
  NAMESPACE,
  realJobFor,
  requestOn,
} from '../../support/in-process-executor.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
/** A DNS subdomain at the apiserver's limit for a node name. */
const LONG = `${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(64)}`;

describe('dispatch with names the label syntax cannot hold, and refused Jobs', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: 3, podsPerNode: 1 });
    // As a kubelet registers it: its hostname label is the (short) host name, not the node name.
    const [model] = sim.store.list(R.nodes);
    sim.store.create(R.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: LONG, labels: { 'kubernetes.io/hostname': 'long-host' } },
      spec: {},
      status: model?.status ?? {},
    });
  });
  after(() => sim?.close());

  const approve = async (deps: ReturnType<typeof testControlDeps>, node: string) => {
    const { request } = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(request, node);
    assert.ok((await approveRequest(deps, request.id, alice)).ok);
    return request.id;
  };
  const jobs = () => sim.store.list(R.jobs, { namespace: NAMESPACE });

  it('a 253-character node name gets its Job, labelled with the hashed value', async () => {
    assert.equal(LONG.length, 253);
    const deps = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency: 1, pools: {} },
        jobFor: realJobFor(executorSettings(1)),
      }),
    });
    const id = await approve(deps, LONG);
    const report = await runTick(deps);
    const job = jobs().find((j) => j.metadata.name === jobName(LONG, id));
    assert.ok(job, `the Job exists: ${JSON.stringify(report.dispatched)}`);
    assert.equal(job.metadata.labels?.[LABEL_NODE], labelValue(LONG));
    assert.equal(job.metadata.labels?.[LABEL_NODE]?.length, 63);
    assert.equal(job.metadata.annotations?.[ANN_NODE], LONG);
    // Selecting by the label finds it, through the same function.
    const selected = jobs().filter((j) => j.metadata.labels?.[LABEL_NODE] === labelValue(LONG));
    assert.deepEqual(
      selected.map((j) => j.metadata.name),
      [job.metadata.name],
    );
    assert.equal(requestOn(sim, LONG)?.state, 'running');
  });

  it('a Job refused with 422 fails its request, says why, and the tick starts the others', async () => {
    const [first, refused, last] = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .filter((n) => n !== LONG)
      .sort();
    const real = realJobFor(executorSettings(3));
    const deps = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency: 4, pools: {} },
        // What an admission webhook or a bad template would make: a manifest the apiserver refuses.
        jobFor: (node, id, action) => {
          const manifest = real(node, id, action) as { metadata: { labels: object } };
          if (node === refused)
            manifest.metadata.labels = { ...manifest.metadata.labels, broken: 'no spaces allowed' };
          return manifest;
        },
      }),
    });
    // Oldest approval first: the refused one is judged before the last.
    const ids = { first: await approve(deps, first!), refused: await approve(deps, refused!) };
    const lastId = await approve(deps, last!);
    const report = await runTick(deps);

    for (const [node, id] of [
      [first!, ids.first],
      [last!, lastId],
    ] as const) {
      assert.equal(requestOn(sim, node)?.state, 'running', node);
      assert.ok(
        jobs().some((j) => j.metadata.name === jobName(node, id)),
        `${node} has its Job`,
      );
    }
    const failed = requestOn(sim, refused!);
    assert.equal(failed?.state, 'failed');
    assert.match(failed.failure ?? '', /executor Job .* was not created: .*(422|Invalid|invalid)/);
    assert.match(failed.failure ?? '', /schedulable/);
    assert.ok(!jobs().some((j) => j.metadata.name === jobName(refused!, ids.refused)));
    const reported = sim.store
      .list(R.events)
      .filter(
        (e) => e['reason'] === 'KubemaintFailed' && String(e['message']).includes(ids.refused),
      );
    assert.equal(reported.length, 1, 'people are told: a KubemaintFailed Event on the node');
    assert.ok(
      report.dispatched.some((l) => l.startsWith(`${refused!}: failed: executor Job`)),
      JSON.stringify(report.dispatched),
    );
  });
});
