/**
 * The Grafana dashboard (docs/grafana/kubemaint.json) queries only metrics that exist: every
 * `kubemaint_*` name in a query is in the catalog serve's registry is built from (a histogram's
 * `_bucket`, `_sum` and `_count` only for a histogram), every metric of the catalog is on a panel, and
 * every query is PromQL that Prometheus' own promtool accepts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { CATALOG, METRIC_NAMES, type MetricName } from '../../../src/adapters/metrics/catalog.js';
import { createMetrics, metricsText } from '../../../src/adapters/metrics/registry.js';

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

const dashboard = JSON.parse(readFileSync('docs/grafana/kubemaint.json', 'utf8')) as {
  panels: Panel[];
  templating: { list: { query?: unknown }[] };
};

const panels = (list: readonly Panel[]): Panel[] =>
  list.flatMap((p) => [p, ...panels(p.panels ?? [])]);
const queries = panels(dashboard.panels).flatMap((p) =>
  (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })),
);

/** The catalog metric a series name belongs to, or why it belongs to none. */
function metricOf(series: string): string {
  if ((METRIC_NAMES as string[]).includes(series)) return series;
  const histogram = /^(.*)_(bucket|sum|count)$/.exec(series);
  const base = histogram?.[1] as MetricName | undefined;
  if (base && (METRIC_NAMES as string[]).includes(base))
    return CATALOG[base].kind === 'histogram' ? base : `${series}: ${base} is not a histogram`;
  return `${series} is not a kubemaint metric`;
}

describe('the Grafana dashboard', () => {
  it('has queries', () => assert.ok(queries.length >= 10));

  for (const { panel, expr } of queries) {
    it(`${panel}: ${expr.slice(0, 70)} names only metrics that exist`, () => {
      for (const [series] of expr.matchAll(/\bkubemaint_[a-z0-9_]+/g)) {
        const metric = metricOf(series);
        assert.ok((METRIC_NAMES as string[]).includes(metric), metric);
      }
    });
  }

  it('shows every metric kubemaint exports', () => {
    const shown = new Set(
      queries.flatMap(({ expr }) =>
        [...expr.matchAll(/\bkubemaint_[a-z0-9_]+/g)].map((m) => metricOf(m[0])),
      ),
    );
    assert.deepEqual(
      METRIC_NAMES.filter((name) => !shown.has(name)),
      [],
    );
  });

  it("the registry serve exports is the catalog's", async () => {
    const { body } = await metricsText(createMetrics({ processMetrics: false }));
    const exported = [...body.matchAll(/^# TYPE (kubemaint_\w+) (\w+)$/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    assert.deepEqual(
      exported,
      METRIC_NAMES.map((name) => [name, CATALOG[name].kind]),
    );
  });

  it('every query is PromQL promtool accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-dashboard-'));
    try {
      // Grafana's own variables, as Grafana would put them in before Prometheus sees the query.
      const asSent = (expr: string) =>
        expr.replaceAll('$__rate_interval', '2m').replaceAll('$cluster', '.*');
      const rules = {
        groups: [
          {
            name: 'dashboard',
            rules: queries.map(({ expr }, i) => ({
              record: `dashboard:query${i}`,
              expr: asSent(expr),
            })),
          },
        ],
      };
      const file = join(dir, 'rules.yaml');
      writeFileSync(file, stringify(rules));
      const { stdout } = await promisify(execFile)('promtool', ['check', 'rules', file]).catch(
        (error: Error & { stdout?: string; stderr?: string; code?: string }) => {
          if (error.code === 'ENOENT')
            throw new Error(
              'promtool is missing: scripts/test-deps.sh installs it (Debian: prometheus)',
            );
          throw new Error(`${error.stdout ?? ''}${error.stderr ?? ''}`);
        },
      );
      assert.match(stdout, new RegExp(`SUCCESS: ${queries.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
