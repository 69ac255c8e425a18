/**
 * The status page's skew line end to end (ADR 0050): `serve` (its composition in process, as the CLI
 * starts it) on the embedded sim with kubelet skew detection on runs its first skew scan as it starts
 * leading, and its page then says which apiserver version bounds the kubelets and from which source,
 * once, in the cluster's summary.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { startServe, type RunningServe } from '../../../src/compose/serve.js';
import { configOf } from '../../support/config.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

describe('serve’s status page shows the skew scan’s apiserver bound', () => {
  let sim: TestSim;
  let serve: RunningServe;

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 50 });
    serve = await startServe({
      config: configOf({
        cluster: { type: 'kubeconfig', kubeconfig: { path: sim.kubeconfigPath } },
        kubelet: { enabled: true },
        serve: { statusPage: true, ops: { port: 0 } },
      }),
      listen: { opsPort: 0, opsHost: '127.0.0.1' },
      out: () => undefined,
      log: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await serve?.stop();
    await sim?.close();
  });

  it('one line in the summary, naming the bound and its source, after the first scan', async () => {
    const page = await waitFor('the bound on the status page', async () => {
      const text = await (await fetch(`${serve.opsUrl}/status`)).text();
      return text.includes('class="bound"') ? text : undefined;
    });
    const lines = [...page.matchAll(/<p class="bound">(.*?)<\/p>/g)].map((m) => m[1]!);
    assert.equal(lines.length, 1, page);
    assert.match(
      lines[0]!,
      /^Skew: apiserver bound v1\.\d+\.\d+, from \S+ \S+; .*<span class="scanned">\(scanned \d\d:\d\d:\d\d\)<\/span>$/,
    );
  });
});
