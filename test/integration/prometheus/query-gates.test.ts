/**
 * Health gates on any Prometheus query, against Debian's real Prometheus scraping a test exporter
 * (issue 18's done-when): with the config as people write it (`blockers.prometheus.queries`, composed
 * by openControl), a query that returns a value blocks the next node and `kubemaint status` names the
 * query and what it returned; once it returns nothing the node starts; a Prometheus that does not
 * answer blocks (fail closed) with the query in the reason. `for:` is judged on Prometheus' own
 * history: a series younger than the span has not held yet.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { prometheusQueries } from '../../../src/adapters/prometheus/query-gates.js';
import {
  approveRequest,
  listRequests,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { openControl, type ControlRuntime } from '../../../src/compose.js';
import { loadConfig } from '../../../src/config/load.js';
import { judgeQuery, type QueryGate } from '../../../src/core/query-gate.js';
import { silentLogger } from '../../../src/log.js';
import { runCli } from '../../support/cli-process.js';
import {
  startExporter,
  startPrometheus,
  type Exporter,
  type Peer,
} from '../../support/monitoring.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const QUERY = 'kubemaint_test_errors > 0';

describe('Prometheus query gates (real Prometheus)', { timeout: 300_000 }, () => {
  let sim: TestSim;
  let exporter: Exporter;
  let prometheus: Peer;
  let dir: string;
  let control: ControlRuntime | undefined;

  before(async () => {
    exporter = await startExporter();
    exporter.set('kubemaint_test_errors', { service: 'checkout' }, 0);
    prometheus = await startPrometheus({ targets: [exporter.target] });
    sim = await startTestSim({ scenario: 'demo', delays: { jobPodRunMs: 24 * 3_600_000 } });
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-query-gates-'));
  });
  after(async () => {
    await control?.close();
    await sim?.close();
    await prometheus?.close();
    await exporter?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const configFile = (prometheusUrl: string) => {
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      [
        'cluster:',
        '  type: kubeconfig',
        '  kubeconfig:',
        `    path: ${sim.kubeconfigPath}`,
        'slot:',
        '  concurrency: 2',
        // What the demo fleet's pods need to drain (emptyDir data, bare pods).
        'drain:',
        '  deleteEmptyDirData: true',
        '  force: true',
        'blockers:',
        '  maxUnhealthyNodes: 1',
        '  prometheus:',
        `    url: ${prometheusUrl}`,
        '    alerts: false',
        '    queries:',
        '      - name: checkout errors',
        `        query: '${QUERY}'`,
        '        expect: empty',
        'approval:',
        '  approvers:',
        '    kubernetes:',
        '      users: [alice]',
        '',
      ].join('\n'),
    );
    return loadConfig({ path: join(dir, 'kubemaint.yaml'), env: {} });
  };

  const open = async (prometheusUrl: string) => {
    await control?.close();
    control = await openControl(configFile(prometheusUrl), {
      log: silentLogger(),
      clock: { now: () => sim.clock.now() },
    });
    return control.deps;
  };

  const approved = async (deps: ControlRuntime['deps'], node: string) => {
    const proposed = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(proposed.ok, proposed.message);
    const decided = await approveRequest(deps, proposed.request!.id, alice);
    assert.ok(decided.ok, decided.message);
    return proposed.request!.id;
  };

  const requestOf = async (deps: ControlRuntime['deps'], node: string) =>
    (await listRequests(deps)).find((r) => r.node === node)!;

  it('a query that returns a value blocks the next node, and status names the query', async () => {
    const deps = await open(prometheus.url);
    await waitFor(
      'Prometheus to scrape the exporter',
      async () =>
        (
          await prometheusQueries({ url: prometheus.url }).answer({
            query: 'kubemaint_test_errors',
            expect: { kind: 'nonEmpty' },
          })
        ).steps[0]!.samples.length > 0,
      60_000,
    );
    await approved(deps, 'node-1');
    await runTick(deps);
    const first = await requestOf(deps, 'node-1');
    assert.equal(first.state, 'running', (first.blockedReasons ?? []).join('; '));

    exporter.set('kubemaint_test_errors', { service: 'checkout' }, 7);
    const gate: QueryGate = { query: QUERY, expect: { kind: 'empty' } };
    await waitFor(
      'the errors to reach Prometheus',
      async () =>
        judgeQuery(gate, (await prometheusQueries({ url: prometheus.url }).answer(gate)).steps),
      60_000,
    );
    await approved(deps, 'node-3');
    await runTick(deps);
    const blocked = await requestOf(deps, 'node-3');
    assert.equal(blocked.state, 'approved');
    const reason = (blocked.blockedReasons ?? []).join('; ');
    assert.match(
      reason,
      /Prometheus gate checkout errors \(kubemaint_test_errors > 0\) returned kubemaint_test_errors\{instance="127\.0\.0\.1:\d+",job="test",service="checkout"\} 7; expected no series/,
    );

    const status = await runCli(['status', '--config', join(dir, 'kubemaint.yaml')], { cwd: dir });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /node-3/);
    assert.match(
      status.stdout,
      /Prometheus gate checkout errors \(kubemaint_test_errors > 0\) returned/,
    );

    exporter.set('kubemaint_test_errors', { service: 'checkout' }, 0);
    await waitFor(
      'the errors to clear in Prometheus',
      async () =>
        judgeQuery(gate, (await prometheusQueries({ url: prometheus.url }).answer(gate)).steps) ===
        undefined,
      60_000,
    );
    await runTick(deps);
    assert.equal((await requestOf(deps, 'node-3')).state, 'running');
  });

  it('a Prometheus that does not answer blocks, naming the query', async () => {
    const deps = await open('http://127.0.0.1:1');
    await approved(deps, 'node-4');
    await runTick(deps);
    const blocked = await requestOf(deps, 'node-4');
    assert.equal(blocked.state, 'approved');
    assert.match(
      (blocked.blockedReasons ?? []).join('; '),
      /could not evaluate Prometheus gate checkout errors \(kubemaint_test_errors > 0\): Prometheus at http:\/\/127\.0\.0\.1:1: /,
    );
  });

  it('for: a series younger than the span has not held yet; later it has', async () => {
    exporter.set('kubemaint_test_fresh', {}, 0.5);
    const port = prometheusQueries({ url: prometheus.url });
    const gate: QueryGate = {
      name: 'fresh',
      query: 'kubemaint_test_fresh',
      expect: { kind: 'below', value: 1 },
      forMs: 4_000,
    };
    await waitFor(
      'the series to be scraped',
      async () => (await port.answer({ ...gate, forMs: 0 })).steps[0]!.samples.length > 0,
      60_000,
    );
    // Scraped moments ago: the span's first steps had no value, and below:1 needs one.
    assert.match(
      judgeQuery(gate, (await port.answer(gate)).steps) ?? '',
      /^Prometheus gate fresh \(kubemaint_test_fresh\) returned nothing( at .*)?; expected every value below 1 for 4s$/,
    );
    await waitFor(
      'the value to have held for 4 s',
      async () => judgeQuery(gate, (await port.answer(gate)).steps) === undefined,
      60_000,
    );
    exporter.set('kubemaint_test_fresh', {}, 3);
    const broken = await waitFor(
      'the new value to break it',
      async () => judgeQuery(gate, (await port.answer(gate)).steps),
      60_000,
    );
    assert.match(
      broken,
      /returned kubemaint_test_fresh\{instance=".*",job="test"\} 3; expected every value below 1 for 4s/,
    );
  });
});
