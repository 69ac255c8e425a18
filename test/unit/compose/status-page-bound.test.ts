/**
 * The status page says, one line per cluster, which apiserver version bounds the kubelets and which
 * source gave it (ADR 0050): the line of serve's last skew scan of that cluster, from the tick
 * report, drawn in the cluster's summary with when it was scanned; escaped, and absent before a scan.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import type { StatusPage } from '../../../src/adapters/http/status-page.js';
import { scannedBound, skewLines, type TickReport } from '../../../src/app/control/tick.js';
import { composeClustersStatusPage, composeStatusPage } from '../../../src/compose/status-page.js';
import { apiserverBound } from '../../../src/core/apiserver-bound.js';
import { compileSchedule } from '../../../src/core/windows.js';
import { fleetView } from '../../fakes/fleet.js';

const AT = '2026-11-01T00:30:00.000Z';
const schedule = (() => {
  const compiled = compileSchedule({ windows: [] });
  assert.ok(compiled.ok);
  return compiled.schedule;
})();
const settings = { schedule, timeZone: 'UTC' };
const now = () => new Date('2026-11-01T01:00:00Z');

/** A skew scan's report as runTick writes it: skewLines of a real bound reading. */
function scanReport(): TickReport {
  const reading = apiserverBound({
    facts: [
      { binary: 'v1.34.4', source: 'version', name: 'https://10.0.0.1:6443' },
      {
        binary: 'v1.34.4',
        emulated: '1.33',
        source: 'peer-address',
        name: '10.0.0.2:6443',
      },
    ],
    identities: 2,
    said: [],
  });
  return {
    at: AT,
    reconciled: [],
    dispatched: [],
    proposed: [],
    skipped: [],
    skew: skewLines({ apiservers: reading, violations: [] }),
  };
}

const LINE =
  'apiserver bound v1.33 (emulated by v1.34.4), from peer-address 10.0.0.2:6443; 2 kube-apiservers by identity leases';

/** The page as serve answers GET /status?range=1h. */
function served(page: StatusPage): string {
  let body = '';
  const res = {
    req: { method: 'GET' },
    writeHead: () => res,
    end: (text?: string) => (body = text ?? ''),
  };
  page.handle(
    { method: 'GET' } as IncomingMessage,
    res as unknown as ServerResponse,
    new URL('http://ops/status?range=1h'),
  );
  return body;
}

describe('scannedBound: the bound of a tick that ran a skew scan', () => {
  it('is the bound line and the scan’s time', () => {
    assert.deepEqual(scannedBound(scanReport()), { line: LINE, at: AT });
  });
  it('is nothing for a tick without a skew scan (the page keeps the last one)', () => {
    const { skew: _skew, ...plain } = scanReport();
    assert.equal(scannedBound(plain), undefined);
  });
});

describe('the status page shows the bound, one line per cluster', () => {
  const bound = scannedBound(scanReport())!;

  it('in the one-cluster summary, with when it was scanned', () => {
    const page = composeStatusPage({
      current: () => ({ view: fleetView({ cluster: 'prod' }), settings, bound }),
      now,
    });
    const html = served(page);
    const lines = [...html.matchAll(/<p class="bound">([^]*?)<\/p>/g)].map((m) => m[1]);
    assert.deepEqual(lines, [`Skew: ${LINE} <span class="scanned">(scanned 00:30:00)</span>`]);
    assert.match(html, /<p class="slots">[^<]*<\/p><p class="bound">/, 'in the summary header');
  });

  it('in each cluster’s section of its own, and not for a cluster not scanned yet', () => {
    const page = composeClustersStatusPage({
      current: () => [
        { cluster: 'staging', view: fleetView({ cluster: 'staging' }), settings, bound },
        { cluster: 'prod', view: fleetView({ cluster: 'prod' }), settings },
        { cluster: 'edge', unreachable: 'connect ECONNREFUSED' },
      ],
      now,
    });
    const sections = served(page).split('<section class="cluster"').slice(1);
    assert.equal(sections.length, 3);
    assert.equal(sections[0]!.match(/class="bound"/g)?.length, 1);
    assert.match(sections[0]!, /Skew: apiserver bound v1\.33 \(emulated by v1\.34\.4\)/);
    assert.doesNotMatch(sections[1]!, /class="bound"/);
    assert.doesNotMatch(sections[2]!, /class="bound"/);
  });

  it('escapes the line (an apiserver name comes from a Lease anyone with write access names)', () => {
    const page = composeStatusPage({
      current: () => ({
        view: fleetView(),
        settings,
        bound: { line: 'apiserver bound v1.34.4, from <img src=x onerror=alert(1)>', at: AT },
      }),
      now,
    });
    const html = served(page);
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /from &lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it('says nothing of it before the first scan', () => {
    const page = composeStatusPage({
      current: () => ({ view: fleetView(), settings }),
      now,
    });
    assert.doesNotMatch(served(page), /class="bound"|Skew:/);
  });
});
