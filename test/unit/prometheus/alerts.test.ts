import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  blockingAlerts,
  prometheusAlerts,
  type AlertSample,
} from '../../../src/adapters/prometheus/alerts.js';
import { prometheusAlertsFromConfig } from '../../../src/adapters/prometheus/from-config.js';

const sample = (
  alertname: string,
  alertstate: string,
  value = '1',
  severity = 'warning',
): AlertSample => ({
  metric: { __name__: 'ALERTS', alertname, alertstate, severity },
  value: [1_763_000_000.123, value],
});

const SAMPLES = [
  sample('Watchdog', 'firing'),
  sample('NodeDown', 'firing', '1', 'critical'),
  sample('NodeDown', 'firing'),
  sample('DiskFilling', 'pending'),
  sample('Silenced', 'firing', '0'),
];

describe('blockingAlerts (kured filter semantics)', () => {
  const cases: {
    name: string;
    options: Parameters<typeof blockingAlerts>[1];
    want: string[];
  }[] = [
    {
      name: 'no filter',
      options: { matchOnly: false, firingOnly: false },
      want: ['DiskFilling', 'NodeDown', 'Watchdog'],
    },
    {
      name: 'filter excludes matches',
      options: { alertFilter: /^Watchdog$/, matchOnly: false, firingOnly: false },
      want: ['DiskFilling', 'NodeDown'],
    },
    {
      name: 'match-only keeps matches',
      options: { alertFilter: /^Node/, matchOnly: true, firingOnly: false },
      want: ['NodeDown'],
    },
    {
      name: 'firing-only drops pending',
      options: { matchOnly: false, firingOnly: true },
      want: ['NodeDown', 'Watchdog'],
    },
    {
      name: 'all three',
      options: { alertFilter: /Down|Filling/, matchOnly: true, firingOnly: true },
      want: ['NodeDown'],
    },
    {
      name: 'severities keep only alerts of those severities',
      options: { matchOnly: false, firingOnly: false, severities: ['critical'] },
      want: ['NodeDown'],
    },
    {
      name: 'no severity listed: every severity',
      options: { matchOnly: false, firingOnly: false, severities: [] },
      want: ['DiskFilling', 'NodeDown', 'Watchdog'],
    },
    {
      name: 'global-flag filter is stable per sample',
      options: { alertFilter: /Node/g, matchOnly: false, firingOnly: false },
      want: ['DiskFilling', 'Watchdog'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(blockingAlerts(SAMPLES, c.options), c.want));
  }
});

interface Answer {
  status: number;
  body: string;
}

describe('prometheusAlerts over HTTP', () => {
  let server: Server;
  let base: string;
  let answer: Answer;
  const seen: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const vector = (result: AlertSample[]) =>
    JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });

  it('queries ALERTS under the URL path and applies the filter', async () => {
    answer = { status: 200, body: vector(SAMPLES) };
    const port = prometheusAlerts({
      url: `${base}/prometheus/`,
      alertFilter: /^Watchdog$/,
      matchOnly: false,
      firingOnly: true,
    });
    assert.deepEqual(await port.activeAlerts(), ['NodeDown']);
    assert.equal(seen.at(-1), '/prometheus/api/v1/query?query=ALERTS');
  });

  it('an empty vector means no alerts', async () => {
    answer = { status: 200, body: vector([]) };
    const port = prometheusAlerts({ url: base, matchOnly: false, firingOnly: false });
    assert.deepEqual(await port.activeAlerts(), []);
  });

  const failures: { name: string; answer: Answer; message: RegExp }[] = [
    {
      name: 'status error (HTTP 400)',
      answer: {
        status: 400,
        body: JSON.stringify({
          status: 'error',
          errorType: 'bad_data',
          error: 'parse error at char 3',
        }),
      },
      message: /query failed \(bad_data\): parse error at char 3/,
    },
    {
      name: 'non-200 with text',
      answer: { status: 503, body: 'Service Unavailable' },
      message: /HTTP 503: Service Unavailable/,
    },
    {
      name: 'non-200 with JSON success',
      answer: { status: 502, body: vector([]) },
      message: /HTTP 502/,
    },
    { name: 'bad JSON', answer: { status: 200, body: '{"status":' }, message: /not JSON/ },
    {
      name: 'a matrix instead of a vector',
      answer: {
        status: 200,
        body: JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }),
      },
      message: /not an instant vector/,
    },
    {
      name: 'a malformed sample',
      answer: {
        status: 200,
        body: JSON.stringify({
          status: 'success',
          data: { resultType: 'vector', result: [{ metric: {} }] },
        }),
      },
      message: /result\[0\] is not a sample/,
    },
  ];
  for (const f of failures) {
    it(`throws on ${f.name}`, async () => {
      answer = f.answer;
      const port = prometheusAlerts({ url: base, matchOnly: false, firingOnly: false });
      await assert.rejects(
        port.activeAlerts(),
        (error: Error & { code?: string; hint?: string }) => {
          assert.match(error.message, f.message);
          assert.match(error.message, /Prometheus alerts unavailable/);
          assert.match(error.hint ?? '', /blockers\.prometheus\.url/);
          return true;
        },
      );
    });
  }

  it('throws when Prometheus is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const alerts = prometheusAlerts({
      url: `http://127.0.0.1:${port}`,
      matchOnly: false,
      firingOnly: false,
    });
    await assert.rejects(alerts.activeAlerts(), /Prometheus alerts unavailable .*fetch failed/);
  });

  it('throws when Prometheus does not answer in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const alerts = prometheusAlerts({
      url: `http://127.0.0.1:${port}`,
      matchOnly: false,
      firingOnly: false,
      timeoutMs: 50,
    });
    await assert.rejects(alerts.activeAlerts(), /Prometheus alerts unavailable/);
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('maps the config section, and no section gives no port', async () => {
    assert.equal(prometheusAlertsFromConfig(undefined), undefined);
    answer = { status: 200, body: vector(SAMPLES) };
    const port = prometheusAlertsFromConfig({
      url: base,
      alertFilter: '^(Node|Disk)',
      alertFilterMatchOnly: true,
      firingOnly: false,
      alerts: true,
      alertSeverities: [],
      queries: [],
    });
    assert.ok(port);
    assert.deepEqual(await port.activeAlerts(), ['DiskFilling', 'NodeDown']);
  });
});
