/**
 * The Slack Lambda, without its wiring: Bolt's AwsLambdaReceiver answers only after every listener
 * finished, and a Lambda is frozen the moment it answers, so work that must outlive Slack's 3-second
 * acknowledgement cannot just keep running. A listener hands such work to `defer`; here `defer`
 * queues one asynchronous invocation of this same function carrying the original, still signed
 * Slack request. That invocation replays the request through the same Bolt app with `defer` running
 * the work to completion, and its answer goes nowhere. So listeners must call `defer` before any
 * side effect other than `ack` (or keep those idempotent, as the control-plane use cases are).
 * If the hand-off itself fails, the work runs inline: late (Slack may show a timeout) but not lost.
 *
 * Ack first (ADR 0018): with `ackFirst`, a signed slash command or click is not even given to the app
 * here. The first invocation queues the replay and answers an empty 200 before Bolt, the config or
 * the Kubernetes client are loaded; the replay runs the whole listener, and whatever the listener
 * acks with (a usage error, help) goes to the request's response_url instead.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AwsLambdaReceiver } from '@slack/bolt';
import type { Logger } from '../../log.js';

export type AwsHandler = ReturnType<AwsLambdaReceiver['toHandler']>;
export type AwsEvent = Parameters<AwsHandler>[0];
export type AwsResponse = Awaited<ReturnType<AwsHandler>>;
export type Defer = (work: () => Promise<void>) => void;

export const DEFERRED_KIND = 'kubemaint-slack-deferred';

/** The asynchronous self-invocation's event: the Slack request to replay, and when it was handed off. */
export interface DeferredEvent {
  kind: typeof DEFERRED_KIND;
  deferredAt: string;
  event: AwsEvent;
  /** The first invocation answered an empty 200 without running the app (ack first). */
  ackedEmpty?: true;
}

export interface SlackHandlerOptions {
  /**
   * Runs first for a request from API Gateway; an answer (a 401) ends it there, before
   * `createHandler`. Deferred invocations skip it: only Lambda Invoke, which IAM guards, sends
   * them, and Bolt checks the signature of the request they replay.
   */
  gate?: (event: AwsEvent) => Promise<AwsResponse | undefined>;
  /**
   * Requests answered with an empty 200 before the app loads, all their work in the replay. Asked
   * only after `gate` let the request through: an unsigned request never queues an invocation.
   */
  ackFirst?: (event: AwsEvent) => boolean;
  /** Sends what the replayed listener acked with to the person (the request's response_url). */
  answerLate?: (response: AwsResponse, event: AwsEvent) => Promise<void>;
  /** Builds the Bolt Lambda handler once (cold start) with the `defer` its listeners call. */
  createHandler(defer: Defer): Promise<AwsHandler>;
  /** Queues the deferred invocation (Lambda Invoke, InvocationType Event). */
  handOff(event: DeferredEvent): Promise<void>;
  /** Runs before every invocation returns (wait for Slack replies queued by the listeners). */
  settle?: () => Promise<void>;
  log: Logger;
  now?: () => Date;
}

export interface DeferredResult {
  kind: typeof DEFERRED_KIND;
  ran: number;
  failed: number;
}

interface Invocation {
  works: (() => Promise<void>)[];
}

export function isDeferredEvent(event: unknown): event is DeferredEvent {
  return (
    event !== null &&
    typeof event === 'object' &&
    (event as { kind?: unknown }).kind === DEFERRED_KIND &&
    typeof (event as { event?: unknown }).event === 'object'
  );
}

export function createSlackHandler(
  options: SlackHandlerOptions,
): (event: AwsEvent | DeferredEvent, context: unknown) => Promise<AwsResponse | DeferredResult> {
  const { log } = options;
  const current = new AsyncLocalStorage<Invocation>();
  const defer: Defer = (work) => {
    const invocation = current.getStore();
    if (invocation) invocation.works.push(work);
    else void runAll([work], log); // outside an invocation (never in Lambda): just run it
  };
  let bolt: Promise<AwsHandler> | undefined;
  const handler = (): Promise<AwsHandler> => {
    bolt ??= options.createHandler(defer).catch((error: unknown) => {
      bolt = undefined; // the next invocation tries again
      throw error;
    });
    return bolt;
  };

  /** A failed late answer is logged: the work itself still runs. */
  async function answerLate(response: AwsResponse, event: AwsEvent): Promise<void> {
    try {
      await options.answerLate?.(response, event);
    } catch (error) {
      log.error({ err: error }, 'could not send the acknowledgement through response_url');
    }
  }

  return async (event, context) => {
    try {
      return await invoke(event, context);
    } finally {
      await options.settle?.();
    }
  };

  async function invoke(
    event: AwsEvent | DeferredEvent,
    context: unknown,
  ): Promise<AwsResponse | DeferredResult> {
    if (!isDeferredEvent(event)) {
      const refused = await options.gate?.(event);
      if (refused) return refused;
      if (options.gate && options.ackFirst?.(event)) {
        const deferredAt = (options.now?.() ?? new Date()).toISOString();
        try {
          await options.handOff({ kind: DEFERRED_KIND, deferredAt, event, ackedEmpty: true });
          return { statusCode: 200, body: '' };
        } catch (error) {
          // Late (the app loads first) but not lost: the app answers it in this invocation.
          log.error(
            { err: error },
            'hand-off failed; answering through the app in this invocation',
          );
        }
      }
    }
    const bolted = await handler();
    if (isDeferredEvent(event)) {
      const invocation: Invocation = { works: [] };
      const result = await current.run(invocation, async () => {
        const response = await bolted(event.event, context);
        if (event.ackedEmpty) await answerLate(response, event.event);
        return drain(invocation, log);
      });
      log.info({ ...result, since: event.deferredAt }, 'deferred done');
      return { kind: DEFERRED_KIND, ...result };
    }
    const invocation: Invocation = { works: [] };
    const response = await current.run(invocation, () => bolted(event, context));
    if (invocation.works.length > 0) {
      const deferredAt = (options.now?.() ?? new Date()).toISOString();
      try {
        await options.handOff({ kind: DEFERRED_KIND, deferredAt, event });
      } catch (error) {
        log.error({ err: error }, 'deferred hand-off failed; running the work inline');
        const inline: Invocation = { works: invocation.works };
        await current.run(inline, () => drain(inline, log));
      }
    }
    return response;
  }
}

/** Runs the queued work, and whatever that work defers in turn, until nothing is left. */
async function drain(
  invocation: Invocation,
  log: Logger,
): Promise<{ ran: number; failed: number }> {
  let ran = 0;
  let failed = 0;
  while (invocation.works.length > 0) {
    const batch = invocation.works.splice(0);
    ran += batch.length;
    failed += await runAll(batch, log);
  }
  return { ran, failed };
}

/** Runs every work item to the end; returns how many failed (each is logged, none stops the rest). */
async function runAll(works: readonly (() => Promise<void>)[], log: Logger): Promise<number> {
  const results = await Promise.allSettled(works.map((work) => work()));
  const failures = results.filter((r) => r.status === 'rejected');
  for (const failure of failures) log.error({ err: failure.reason }, 'deferred work failed');
  return failures.length;
}
