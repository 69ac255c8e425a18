/**
 * The executor's host (src/compose/executor-host.ts): the machine through processes, or, on a pod
 * the simulator runs (KUBEMAINT_SIM_HOST_URL in its env), the simulated host alone, whatever the
 * settings say (DESIGN invariant 11, ADR 0036).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { executorHost } from '../../../src/compose/executor-host.js';
import { DEFAULT_EXECUTOR_SETTINGS } from '../../../src/compose/executor-settings.js';
import { processHost } from '../../../src/app/executor/host-process.js';
import { rebootActions, upgradeActions } from '../../../src/app/executor/host.js';
import type { ExecutorSettings } from '../../../src/app/executor/settings.js';
import { KubemaintError } from '../../../src/errors.js';

/** Production settings, and the ways a config could point the host step at the machine. */
const PRODUCTION: ExecutorSettings = {
  ...DEFAULT_EXECUTOR_SETTINGS,
  hostPrefix: ['nsenter', '-m/proc/1/ns/mnt', '--'],
  reboot: { method: 'command', command: ['systemctl', 'reboot'] },
};
const SIGNAL: ExecutorSettings = { ...PRODUCTION, reboot: { method: 'signal', signal: 39 } };
const KUBEADM: ExecutorSettings = {
  ...PRODUCTION,
  upgrade: {
    method: 'kubeadm',
    script: 'apt-get install -y kubelet',
    restartCommand: ['systemctl', 'restart', 'kubelet'],
  },
};

describe("the executor's host", () => {
  const seen: string[] = [];
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((request, response) => {
      seen.push(`${request.method ?? ''} ${request.url ?? ''}`);
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"action":"reboot"}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('is the machine, with the settings as given, outside the simulator', () => {
    const chosen = executorHost({ PATH: '/usr/bin' }, PRODUCTION);
    assert.equal(chosen.host, processHost);
    assert.equal(chosen.settings, PRODUCTION);
    assert.equal(chosen.simulated, undefined);
  });

  for (const [what, settings] of [
    ['the production host prefix', PRODUCTION],
    ['a reboot by signal to PID 1', SIGNAL],
    ['the kubeadm upgrade script', KUBEADM],
  ] as const) {
    it(`on a simulated node, replaces ${what} with the simulated host's commands`, () => {
      const chosen = executorHost({ KUBEMAINT_SIM_HOST_URL: url, NODE_NAME: 'node-7' }, settings);
      assert.notEqual(chosen.host, processHost);
      assert.equal(chosen.simulated, url);
      assert.deepEqual(rebootActions(chosen.settings), [
        { kind: 'run', argv: ['kubemaint-sim-host', 'reboot'] },
      ]);
      assert.deepEqual(upgradeActions(chosen.settings, 'v1.31.4'), [
        { kind: 'run', argv: ['kubemaint-sim-host', 'upgrade', 'v1.31.4'] },
      ]);
    });
  }

  it("sends the host command to the simulator's endpoint for the pod's own node", async () => {
    const { host } = executorHost({ KUBEMAINT_SIM_HOST_URL: url, NODE_NAME: 'node-7' }, PRODUCTION);
    seen.length = 0;
    assert.deepEqual(await host.run(['kubemaint-sim-host', 'reboot']), { exitCode: 0, stderr: '' });
    assert.equal((await host.run(['kubemaint-sim-host', 'upgrade', 'v1.31.4'])).exitCode, 0);
    assert.deepEqual(seen, [
      'POST /_sim/nodes/node-7/reboot',
      'POST /_sim/nodes/node-7/upgrade?version=v1.31.4',
    ]);
  });

  it('refuses anything else on a simulated node, runs nothing, and says why', async () => {
    const { host } = executorHost({ KUBEMAINT_SIM_HOST_URL: url, NODE_NAME: 'node-7' }, PRODUCTION);
    seen.length = 0;
    const refused = await host.run(['nsenter', '-m/proc/1/ns/mnt', '--', 'systemctl', 'reboot']);
    assert.equal(refused.exitCode, 126);
    assert.match(
      refused.stderr,
      /refused on simulated node node-7: nsenter .* would run on the machine/,
    );
    assert.throws(() => host.signal(1, 39), /signal 39 to PID 1 would reach the machine/);
    assert.deepEqual(seen, []);
  });

  it('refuses a simulator endpoint without the node it is for', () => {
    assert.throws(
      () => executorHost({ KUBEMAINT_SIM_HOST_URL: url }, PRODUCTION),
      (error: unknown) => error instanceof KubemaintError && /NODE_NAME is not/.test(error.message),
    );
  });
});
