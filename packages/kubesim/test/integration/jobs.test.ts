import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { startTestSim, waitFor, type TestSim } from '../support.js';

const NS = 'kubemaint';
const IMAGE = 'ghcr.io/kubemaint/kubemaint:0.1.0';
// The "image": prints what it was given, then exits with the code in its last argument.
const SCRIPT = `
const fs = require('node:fs');
const env = process.env;
console.log(JSON.stringify({
  node: env.NODE_NAME, pod: env.POD_NAME, namespace: env.POD_NAMESPACE,
  kubeconfig: fs.readFileSync(env.KUBECONFIG, 'utf8'), greeting: env.GREETING,
  fieldNode: env.MY_NODE, hostUrl: env.KUBEMAINT_SIM_HOST_URL, args: process.argv.slice(1),
}));
process.exit(Number(process.argv.at(-1)));
`;

// Long-running "images": one leaves on SIGTERM, one ignores it and must be SIGKILLed after the grace.
const POLITE = `console.log('started ' + process.pid);
process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(0); });
setInterval(() => {}, 1000);`;
const STUBBORN = `console.log('started ' + process.pid);
process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
setInterval(() => {}, 1000);`;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function job(
  name: string,
  exitCode: number,
  extra: Partial<V1Job['spec']> = {},
  image = IMAGE,
): V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit: 0,
      ...extra,
      template: {
        spec: {
          nodeName: 'node-1',
          restartPolicy: 'Never',
          containers: [
            {
              name: 'executor',
              image,
              args: ['executor', String(exitCode)],
              env: [
                { name: 'GREETING', value: 'hello' },
                { name: 'MY_NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              ],
            },
          ],
        },
      },
    },
  };
}

const condition = (j: V1Job, type: string) =>
  j.status?.conditions?.find((c) => c.type === type && c.status === 'True');

describe('sim Jobs: mapped images run as local processes', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({
      scenario: 'demo',
      images: {
        'ghcr.io/kubemaint/kubemaint:*': { command: [process.execPath, '-e', SCRIPT] },
        'sim.test/polite:*': { command: [process.execPath, '-e', POLITE] },
        'sim.test/stubborn:*': { command: [process.execPath, '-e', STUBBORN] },
      },
    });
  });
  after(async () => sim.close());

  const finished = (name: string, type: 'Complete' | 'Failed') =>
    waitFor(`${name} ${type}`, async () => {
      const j = await sim.batch.readNamespacedJob({ name, namespace: NS });
      return condition(j, type) ? j : undefined;
    });
  const podOf = async (name: string) =>
    (await sim.core.listNamespacedPod({ namespace: NS, labelSelector: `job-name=${name}` })).items;

  it('runs the mapped command with the pod env and KUBECONFIG, and completes on exit 0', async () => {
    await sim.batch.createNamespacedJob({ namespace: NS, body: job('run-ok', 0) });
    const done = await finished('run-ok', 'Complete');
    assert.equal(done.status?.succeeded, 1);
    assert.ok(done.status?.completionTime);
    const [pod] = await podOf('run-ok');
    assert.equal(pod?.status?.phase, 'Succeeded');
    assert.equal(pod?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
    const seen = JSON.parse(sim.admin.logs(NS, pod.metadata!.name!).trim().split('\n').at(-1)!);
    assert.equal(seen.node, 'node-1');
    assert.equal(seen.fieldNode, 'node-1');
    assert.equal(seen.pod, pod.metadata!.name);
    assert.equal(seen.namespace, NS);
    assert.equal(seen.greeting, 'hello');
    assert.equal(seen.hostUrl, sim.hostUrl);
    assert.deepEqual(seen.args, ['executor', '0']);
    assert.ok(seen.kubeconfig.includes(sim.url), 'KUBECONFIG points at the sim');
  });

  it('fails the Job by the exit code once backoffLimit is spent', async () => {
    await sim.batch.createNamespacedJob({ namespace: NS, body: job('run-fail', 3) });
    const failed = await finished('run-fail', 'Failed');
    assert.equal(condition(failed, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(failed.status?.failed, 1);
    const pods = await podOf('run-fail');
    assert.equal(pods.length, 1, 'backoffLimit 0: no retry');
    assert.equal(pods[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 3);
  });

  it('retries a failing pod up to backoffLimit', async () => {
    await sim.batch.createNamespacedJob({
      namespace: NS,
      body: job('run-retry', 2, { backoffLimit: 1 }),
    });
    const failed = await finished('run-retry', 'Failed');
    assert.equal(failed.status?.failed, 2);
    assert.equal((await podOf('run-retry')).length, 2);
  });

  it('lets unmapped images "run" and succeed, and enforces activeDeadlineSeconds', async () => {
    await sim.batch.createNamespacedJob({
      namespace: NS,
      body: job('plain', 0, {}, 'busybox:1.36'),
    });
    await finished('plain', 'Complete');
    await sim.batch.createNamespacedJob({
      namespace: NS,
      body: job('slow', 0, { activeDeadlineSeconds: 2 }, 'busybox:1.36'),
    });
    const failed = await finished('slow', 'Failed');
    assert.equal(condition(failed, 'Failed')?.reason, 'DeadlineExceeded');
  });

  it('deletes a finished Job and its pods after ttlSecondsAfterFinished', async () => {
    await sim.batch.createNamespacedJob({
      namespace: NS,
      body: job('short-lived', 0, { ttlSecondsAfterFinished: 30 }),
    });
    await finished('short-lived', 'Complete');
    await waitFor('job and pods gone', async () => {
      const jobs = await sim.batch.listNamespacedJob({ namespace: NS });
      return (
        !jobs.items.some((j) => j.metadata?.name === 'short-lived') &&
        (await podOf('short-lived')).length === 0
      );
    });
  });

  for (const [image, grace, said] of [
    ['sim.test/polite:1', 600, 'got SIGTERM'],
    ['sim.test/stubborn:1', 60, 'ignoring SIGTERM'],
  ] as const) {
    it(`stops a ${image.split('/')[1]!.split(':')[0]!} process when its pod is deleted`, async () => {
      const name = image.includes('polite') ? 'polite' : 'stubborn';
      await sim.core.createNamespacedPod({
        namespace: NS,
        body: {
          metadata: { name },
          spec: {
            nodeName: 'node-2',
            terminationGracePeriodSeconds: grace,
            containers: [{ name, image }],
          },
        },
      });
      const started = await waitFor(
        `${name} running`,
        () => /started (\d+)/.exec(sim.admin.logs(NS, name)) ?? undefined,
      );
      const pid = Number(started[1]);
      assert.ok(alive(pid));
      const t0 = Date.now();
      await sim.core.deleteNamespacedPod({ name, namespace: NS });
      await waitFor(`${name} removed`, async () => {
        const pods = await sim.core.listNamespacedPod({
          namespace: NS,
          fieldSelector: `metadata.name=${name}`,
        });
        return pods.items.length === 0;
      });
      const took = Date.now() - t0;
      assert.ok(sim.admin.logs(NS, name).includes(said));
      await waitFor(`${name} process gone`, () => !alive(pid), 5_000);
      if (name === 'polite') {
        assert.ok(took < 3_000, `left on SIGTERM without using its 600 s grace (${took} ms)`);
      } else {
        assert.ok(took >= 400, `waited for the 60 s grace before SIGKILL (${took} ms)`);
      }
    });
  }
});
