/**
 * The tick Lambda's metrics (ADR 0016): after each tick, CloudWatch EMF lines with the tick's duration
 * and the fleet's gauges from the same read `kubemaint status` prints; a failed tick counts an error.
 * And the Lambda entries' import stays without prom-client (issue 20 measures their cold import).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { readFleetView } from '../../../src/app/control/fleet-view.js';
import { createTickHandler } from '../../../src/compose/lambda/tick-handler.js';
import { silentLogger } from '../../../src/log.js';
import { testControlDeps } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

interface Document {
  _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

/** The value CloudWatch gets for `name` from the documents whose dimensions match `where`. */
function value(lines: string[], name: string, where: Record<string, string> = {}): unknown {
  const docs = lines
    .map((l) => JSON.parse(l) as Document)
    .filter((d) => d._aws.CloudWatchMetrics[0]!.Metrics.some((m) => m.Name === name))
    .filter((d) => Object.entries(where).every(([k, v]) => d[k] === v));
  assert.equal(docs.length, 1, `one document with ${name} ${JSON.stringify(where)}`);
  return docs[0]![name];
}

describe('tick Lambda metrics', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(() => sim.close());

  it('writes the tick and the fleet as EMF lines that agree with the status read', async () => {
    const lines: string[] = [];
    const deps = testControlDeps(sim);
    const handler = createTickHandler({
      log: silentLogger(),
      open: () => Promise.resolve({ deps }),
      writeMetrics: (line) => lines.push(line),
    });
    await handler({});
    const view = await readFleetView(deps);
    assert.equal(value(lines, 'kubemaint_requests', { state: 'proposed' }), 2);
    assert.equal(
      value(lines, 'kubemaint_requests', { state: 'proposed' }),
      view.requests.filter((r) => r.state === 'proposed').length,
    );
    assert.equal(value(lines, 'kubemaint_reboot_required', { cluster: deps.settings.cluster }), 2);
    assert.equal(value(lines, 'kubemaint_slots_total'), view.slots.length);
    assert.equal(typeof value(lines, 'kubemaint_tick_duration_seconds'), 'number');
  });

  it('a tick that fails writes its error and duration, and still fails', async () => {
    const lines: string[] = [];
    const deps = testControlDeps(sim);
    const broken = {
      ...deps,
      cluster: {
        ...deps.cluster,
        onePass: undefined,
        listRequestNodes: () => Promise.reject(new Error('apiserver unreachable')),
      },
    };
    const handler = createTickHandler({
      log: silentLogger(),
      open: () => Promise.resolve({ deps: broken }),
      writeMetrics: (line) => lines.push(line),
    });
    await assert.rejects(handler({}), /apiserver unreachable/);
    assert.equal(value(lines, 'kubemaint_tick_errors_total'), 1);
    assert.equal(typeof value(lines, 'kubemaint_tick_duration_seconds'), 'number');
    assert.ok(
      !lines.some((l) => l.includes('kubemaint_requests')),
      'no fleet read after a failure',
    );
  });

  it("the Lambda entries' import loads no prom-client", async () => {
    const probe = `
      await import(${JSON.stringify(new URL('../../../functions/tick.ts', import.meta.url).href)});
      await import(${JSON.stringify(new URL('../../../functions/slack.ts', import.meta.url).href)});
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(loaded.filter((k) => /node_modules\\/(prom-client|@opentelemetry)\\//.test(k))));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', probe],
      { env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'silent' } },
    );
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), []);
  });
});
