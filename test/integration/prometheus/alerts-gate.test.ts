/**
 * The Prometheus adapter inside the real tick, against a stand-in Prometheus answering the real
 * `/api/v1/query` shape: a firing alert keeps an approved request waiting with its name shown, a
 * pending one does not count with firing-only, a Prometheus that answers 503 keeps it waiting
 * (fail closed), and once the alert resolves the executor Job starts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { prometheusAlerts } from '../../../src/adapters/prometheus/alerts.js';
import {
  approveRequest,
  listRequests,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;

const alert = (alertname: string, alertstate: 'firing' | 'pending') => ({
  metric: { __name__: 'ALERTS', alertname, alertstate, severity: 'critical' },
  value: [1_763_000_000, '1'],
});

describe('Prometheus alerts gate the tick', () => {
  let sim: TestSim;
  let prometheus: Server;
  let answer: { status: number; body: unknown };

  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: 3, podsPerNode: 1, scale: 20 });
    prometheus = createServer((req, res) => {
      const ok = req.url === '/api/v1/query?query=ALERTS';
      res.writeHead(ok ? answer.status : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? answer.body : { status: 'error', error: 'not found' }));
    });
    await new Promise<void>((resolve) => prometheus.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => prometheus.close(() => resolve()));
    await sim.close();
  });

  it('waits on a firing alert and on an unreachable Prometheus, then proceeds', async () => {
    const url = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
    const deps = {
      ...testControlDeps(sim, { settings: testControlSettings() }),
      alerts: prometheusAlerts({
        url,
        alertFilter: /^Watchdog$/,
        matchOnly: false,
        firingOnly: true,
      }),
    };
    const node = sim.store.list(R.nodes)[0]!.metadata.name!;
    const proposed = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(proposed.ok, proposed.message);
    await approveRequest(deps, proposed.request!.id, alice);
    const waiting = async () => {
      await runTick(deps);
      const request = (await listRequests(deps)).find((r) => r.node === node)!;
      return { state: request.state, reasons: request.blockedReasons ?? [] };
    };

    const vector = (result: unknown[]) => ({
      status: 'success',
      data: { resultType: 'vector', result },
    });
    answer = {
      status: 200,
      body: vector([
        alert('Watchdog', 'firing'),
        alert('NodeDown', 'firing'),
        alert('DiskFilling', 'pending'),
      ]),
    };
    const firing = await waiting();
    assert.equal(firing.state, 'approved');
    const alertReasons = firing.reasons.filter((r) => r.startsWith('alert '));
    assert.deepEqual(alertReasons, ['alert NodeDown firing']);

    answer = {
      status: 503,
      body: { status: 'error', errorType: 'unavailable', error: 'TSDB not ready' },
    };
    const down = await waiting();
    assert.equal(down.state, 'approved');
    assert.ok(
      down.reasons.some((r) =>
        /^could not query Prometheus alerts: Prometheus alerts unavailable .*TSDB not ready/.test(
          r,
        ),
      ),
      down.reasons.join('; '),
    );

    answer = {
      status: 200,
      body: vector([alert('Watchdog', 'firing'), alert('DiskFilling', 'pending')]),
    };
    const clear = await waiting();
    assert.equal(clear.state, 'running', clear.reasons.join('; '));
  });
});
