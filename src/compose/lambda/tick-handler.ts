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
}
