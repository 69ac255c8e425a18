/**
 * `pods/<name>/log`: a pod whose image ran as a local process has that process's output (with
 * tailLines and limitBytes), a simulated container one line saying so, and exec is refused with a
 * Status that says why.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startTestSim, waitFor, type TestSim } from '../support.js';

const PRINTS = `console.log('first line'); console.log('second line'); console.error('on stderr');`;

async function raw(sim: TestSim, path: string, method = 'GET') {
  const cluster = sim.kc.getCurrentCluster()!;
  const https: Parameters<typeof request>[1] = {};
  await sim.kc.applyToHTTPSOptions(https);
  return new Promise<{ code: number; text: string }>((resolve, reject) => {
    request(`${cluster.server}${path}`, { ...https, method }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text }));
    })
      .on('error', reject)
      .end();
  });
}

describe('pod logs', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({
      scenario: 'demo',
      images: { 'sim.test/prints:*': { command: [process.execPath, '-e', PRINTS] } },
    });
  });
  after(async () => sim?.close());

  const pod = (name: string, image: string, restartPolicy = 'Never') => ({
    metadata: { name },
    spec: { nodeName: 'node-1', restartPolicy, containers: [{ name: 'main', image }] },
  });

  it('a pod that ran as a local process: its output, tailLines, limitBytes', async () => {
    await sim.core.createNamespacedPod({
      namespace: 'default',
      body: pod('printer', 'sim.test/prints:1'),
    });
    await waitFor('the printer to finish', async () => {
      const p = await sim.core.readNamespacedPod({ namespace: 'default', name: 'printer' });
      return p.status?.phase === 'Succeeded' ? p : undefined;
    });
    const path = '/api/v1/namespaces/default/pods/printer/log';
    const all = await raw(sim, path);
    assert.equal(all.code, 200);
    assert.match(all.text, /first line\nsecond line\n/);
    assert.match(all.text, /on stderr\n/);
    assert.equal(
      (await raw(sim, `${path}?tailLines=1`)).text.split('\n').filter(Boolean).length,
      1,
    );
    assert.equal((await raw(sim, `${path}?limitBytes=5`)).text, 'first');
    const viaClient = await sim.core.readNamespacedPodLog({
      namespace: 'default',
      name: 'printer',
    });
    assert.match(viaClient, /first line/);
  });

  it('a simulated container has one line saying so; exec is refused with the reason', async () => {
    // A server that keeps running: with restartPolicy Never a simulated container "exits" after
    // the sim's job run time, which at this scale is gone before a poll sees it Running.
    await sim.core.createNamespacedPod({
      namespace: 'default',
      body: pod('web', 'nginx:1.27', 'Always'),
    });
    await waitFor('web to run', async () => {
      const p = await sim.core.readNamespacedPod({ namespace: 'default', name: 'web' });
      return p.status?.phase === 'Running' ? p : undefined;
    });
    const log = await raw(sim, '/api/v1/namespaces/default/pods/web/log');
    assert.equal(log.code, 200);
    assert.equal(
      log.text,
      '[kubesim] container main of pod web is simulated: it runs no process and writes no output\n',
    );
    const exec = await raw(
      sim,
      '/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true',
      'POST',
    );
    assert.equal(exec.code, 400);
    assert.match(exec.text, /kubesim runs no container runtime: exec is not available for pod web/);
    const put = await raw(sim, '/api/v1/namespaces/default/pods/web/log', 'PUT');
    assert.equal(put.code, 405);
  });
});
