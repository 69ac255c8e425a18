/**
 * The `scale` subresource when the object changes while a request's body is still on its way (a
 * controller writing status meanwhile, as on any busy cluster): a patch without a resourceVersion is
 * applied to the newest object, as kube-apiserver retries it, and a PUT's precondition is only the
 * resourceVersion its body names. The sim once read the object before the body arrived: the Python
 * client's patch of a Deployment's scale failed with 409 on a loaded CI machine.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startTestSim, type TestSim } from '../support.js';

/** Sends the headers, lets `meanwhile` run once the server is waiting for the body, then the body. */
async function slowBody(
  sim: TestSim,
  method: 'PATCH' | 'PUT',
  path: string,
  contentType: string,
  body: unknown,
  meanwhile: () => void,
) {
  const cluster = sim.kc.getCurrentCluster()!;
  const https: Parameters<typeof request>[1] = {};
  await sim.kc.applyToHTTPSOptions(https);
  const answer = new Promise<{ code: number; json: { spec?: { replicas?: number } } }>(
    (resolve, reject) => {
      const req = request(
        `${cluster.server}${path}`,
        { ...https, method, headers: { ...https.headers, 'content-type': contentType } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, json: JSON.parse(text) }));
        },
      ).on('error', reject);
      req.flushHeaders();
      void sleep(300).then(() => {
        meanwhile();
        req.end(JSON.stringify(body));
      });
    },
  );
  return answer;
}

describe('the scale subresource while the object changes', () => {
  let sim: TestSim;
  const path = '/apis/apps/v1/namespaces/default/deployments/web/scale';
  before(async () => {
    sim = await startTestSim({ scenario: 'empty', controllers: false });
    await sim.apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    });
  });
  after(async () => sim?.close());

  /** What a controller does meanwhile: a write that moves the resourceVersion on. */
  const touch = () =>
    sim.store.mutate('deployments.apps', 'default', 'web', (d) => {
      d.metadata.labels = { ...d.metadata.labels, touched: String(Date.now()) };
    });

  it('a merge patch without resourceVersion lands on the newest object', async () => {
    const answer = await slowBody(
      sim,
      'PATCH',
      path,
      'application/merge-patch+json',
      { spec: { replicas: 2 } },
      touch,
    );
    assert.equal(answer.code, 200, JSON.stringify(answer.json));
    assert.equal(answer.json.spec?.replicas, 2);
    const d = await sim.apps.readNamespacedDeployment({ namespace: 'default', name: 'web' });
    assert.equal(d.spec?.replicas, 2);
    assert.ok(d.metadata?.labels?.['touched'], "the controller's write is kept");
  });

  it('a PUT naming a resourceVersion that moved on is 409; without one it lands', async () => {
    const read = await sim.apps.readNamespacedDeploymentScale({
      namespace: 'default',
      name: 'web',
    });
    const stale = await slowBody(
      sim,
      'PUT',
      path,
      'application/json',
      { ...read, spec: { replicas: 3 } },
      touch,
    );
    assert.equal(stale.code, 409, JSON.stringify(stale.json));
    const { resourceVersion: _, ...metadata } = read.metadata ?? {};
    const fresh = await slowBody(
      sim,
      'PUT',
      path,
      'application/json',
      { ...read, metadata, spec: { replicas: 3 } },
      touch,
    );
    assert.equal(fresh.code, 200, JSON.stringify(fresh.json));
    const d = await sim.apps.readNamespacedDeployment({ namespace: 'default', name: 'web' });
    assert.equal(d.spec?.replicas, 3);
  });
});
