/**
 * The tick Lambda, without its wiring: decides what kind of tick an EventBridge event asks for, runs
 * it, waits for notifications in flight (a Lambda is frozen once it returns) and answers a short
 * summary for the invocation log. The opened control plane is kept between warm invocations; a
 * failed open is not, so the next invocation tries again instead of failing forever.
 */
import { runTick, type TickDeps, type TickReport } from '../../app/control/tick.js';
import { KubemaintError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { writeTickMetrics } from './tick-metrics.js';

export interface TickControl {
  deps: TickDeps;
  /**
   * Every cluster of `clusters:` (issue 22), `deps` being the first's: each is ticked at the same
   * time as the others, and one that fails is logged and measured without failing the rest.
   */
  clusters?: readonly { name: string; deps: TickDeps }[];
  /** Wait for notifications in flight, at most `timeoutMs`. */
  flush?(timeoutMs?: number): Promise<void>;
}

export interface TickHandlerOptions {
  open(): Promise<TickControl>;
  log: Logger;
  /** How long to wait for notifications before returning. @default 10_000 */
  flushTimeoutMs?: number;
  /** Where the EMF metric lines go. @default stdout, where CloudWatch Logs reads them */
  writeMetrics?: (line: string) => void;
}

export interface TickSummary {
  kind: 'tick' | 'skew-scan';
  at: string;
  counts: { reconciled: number; dispatched: number; proposed: number; skipped: number };
  report: TickReport;
  /** With several clusters: each one's counts, or why its tick failed. */
  clusters?: ({ name: string } & ({ counts: TickSummary['counts'] } | { error: string }))[];
}

export const TICK_KINDS = ['tick', 'skew-scan'] as const;

/**
 * `{kind: 'skew-scan'}` (the hourly rule's `input`) → a skew scan; EventBridge's own scheduled
 * event (no input) or `{kind: 'tick'}` → an ordinary tick. Anything else is refused loudly: a
 * mistyped `input` would otherwise silently never scan.
 */
export function tickKind(event: unknown): TickSummary['kind'] {
  const kind =
    event !== null && typeof event === 'object' ? (event as { kind?: unknown }).kind : undefined;
  if (kind === undefined) return 'tick';
  if (kind === 'tick' || kind === 'skew-scan') return kind;
  throw new KubemaintError('usage', `unknown tick event kind ${JSON.stringify(kind)}`, {
    hint: `the schedule's input.kind is one of: ${TICK_KINDS.join(', ')} (serverless.yml)`,
  });
}

export function createTickHandler(
  options: TickHandlerOptions,
): (event: unknown) => Promise<TickSummary> {
  const write = options.writeMetrics ?? ((line: string) => void process.stdout.write(`${line}\n`));
  let opened: Promise<TickControl> | undefined;
  const control = (): Promise<TickControl> => {
    opened ??= options.open().catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
  return async (event) => {
    try {
      return await tick(event);
    } catch (error) {
      // Lambda's own log line has the message only; the hint says what to fix.
      const hint = error instanceof KubemaintError ? error.hint : undefined;
      options.log.error({ err: error, ...(hint ? { hint } : {}) }, 'tick failed');
      throw error;
    }
  };

  async function tick(event: unknown): Promise<TickSummary> {
    const kind = tickKind(event);
    const opened = await control();
    if (opened.clusters) return tickEach(kind, opened, opened.clusters);
    const startedAt = opened.deps.clock.now();
    let ok = false;
    try {
      const report = await runTick(opened.deps, { skewScan: kind === 'skew-scan' });
      ok = true;
      const summary: TickSummary = {
        kind,
        at: report.at,
        counts: {
          reconciled: report.reconciled.length,
          dispatched: report.dispatched.length,
          proposed: report.proposed.length,
          skipped: report.skipped.length,
        },
        report,
      };
      options.log.info({ kind, counts: summary.counts }, 'tick done');
      return summary;
    } finally {
      await writeTickMetrics(opened.deps, { startedAt, ok }, { write, log: options.log });
      await opened.flush?.(options.flushTimeoutMs ?? 10_000);
    }
  }

  /** Every cluster at once; the summary is the first's, with each cluster's counts beside it. */
  async function tickEach(
    kind: TickSummary['kind'],
    opened: TickControl,
    clusters: NonNullable<TickControl['clusters']>,
  ): Promise<TickSummary> {
    const ticks = await Promise.all(
      clusters.map(
        async ({ name, deps }): Promise<{ name: string; report?: TickReport; error?: string }> => {
          const startedAt = deps.clock.now();
          try {
            const report = await runTick(deps, { skewScan: kind === 'skew-scan' });
            await writeTickMetrics(deps, { startedAt, ok: true }, { write, log: options.log });
            return { name, report };
          } catch (error) {
            await writeTickMetrics(deps, { startedAt, ok: false }, { write, log: options.log });
            // Said with its cluster; the other clusters' ticks are not held back by it.
            options.log.error({ err: error, cluster: name }, 'tick of one cluster failed');
            return { name, error: error instanceof Error ? error.message : String(error) };
          }
        },
      ),
    );
    await opened.flush?.(options.flushTimeoutMs ?? 10_000);
    const each = ticks.map(({ name, report, error }) =>
      report ? { name, counts: countsOf(report) } : { name, error: error ?? 'failed' },
    );
    options.log.info({ kind, clusters: each }, 'tick done');
    const report = ticks.find((t) => t.report)?.report ?? emptyReport(opened);
    return { kind, at: report.at, counts: countsOf(report), report, clusters: each };
  }
}

const countsOf = (report: TickReport): TickSummary['counts'] => ({
  reconciled: report.reconciled.length,
  dispatched: report.dispatched.length,
  proposed: report.proposed.length,
  skipped: report.skipped.length,
});

const emptyReport = (opened: TickControl): TickReport => ({
  at: opened.deps.clock.now().toISOString(),
  reconciled: [],
  dispatched: [],
  proposed: [],
  skipped: [],
});
