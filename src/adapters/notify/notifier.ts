/**
 * The notification fan-out: each event is rendered once per markup its services read (every value
 * escaped for it) and sent to every URL at the same time, in the background. A failed send is retried (backoff, Retry-After) and logged; nothing here throws
 * into the caller or makes it wait, so a dead webhook never holds up a maintenance. `flush()` waits
 * for what is in flight: for tests, for shutdown, and before a Lambda invocation returns.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { MaintenanceEvent } from '../../core/events.js';
import type { Logger } from '../../log.js';
import {
  compileMessageTemplates,
  notificationMessage,
  type MessageTemplates,
} from '../../../templates/notify/messages.js';
import { DEFAULT_RETRY, nextRetry, type RetryPolicy } from './backoff.js';
import { NotifySendError, type NotifyMessage, type NotifyTarget, type SendIo } from './types.js';

export interface NotifierOptions {
  /** Parsed once at start (`parseNotifyUrls`), so a bad URL already failed the config check. */
  targets: readonly NotifyTarget[];
  log: Logger;
  /** @default the default template of each event */
  templates?: MessageTemplates;
  io?: SendIo;
  retry?: Partial<RetryPolicy>;
  /** Injectable for tests; the defaults are Math.random, a real timer and Date.now. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Deliveries in flight beyond this are dropped (and logged) instead of piling up. @default 200 */
  maxPending?: number;
}

export interface UrlNotifier {
  /** Queue the event for every URL and return at once; never rejects. */
  notify(event: MaintenanceEvent): Promise<void>;
  /** Queue a ready message (the `kubemaint notify` test message); returns the deliveries' outcome. */
  send(message: NotifyMessage, context?: Record<string, string>): Promise<DeliveryResult[]>;
  /** Queue the event as `notify` does, and return the deliveries' outcome. */
  sendEvent(event: MaintenanceEvent): Promise<DeliveryResult[]>;
  /** Wait until every delivery in flight ended, or `timeoutMs` passed. */
  flush(timeoutMs?: number): Promise<void>;
  pending(): number;
}

export interface DeliveryResult {
  target: string;
  ok: boolean;
  attempts: number;
  error?: string;
}

export function createNotifier(options: NotifierOptions): UrlNotifier {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const templates = options.templates ?? compileMessageTemplates();
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const now = options.now ?? Date.now;
  const maxPending = options.maxPending ?? 200;
  const log = options.log;
  const inFlight = new Set<Promise<DeliveryResult>>();

  async function deliver(
    target: NotifyTarget,
    message: NotifyMessage,
    context: Record<string, string>,
  ): Promise<DeliveryResult> {
    const started = now();
    const fields = { ...context, notify: target.describe() };
    for (let attempt = 1; ; attempt++) {
      try {
        await target.send(message, options.io);
        log.debug({ ...fields, attempt }, 'notification sent');
        return { target: target.describe(), ok: true, attempts: attempt };
      } catch (caught) {
        const failure =
          caught instanceof NotifySendError
            ? caught
            : new NotifySendError(`${target.describe()}: ${String(caught)}`, { retryable: false });
        const decision = nextRetry(failure, attempt, now() - started, policy, random);
        if (!decision.retry) {
          log.warn(
            { ...fields, attempt, error: failure.message, why: decision.why },
            'notification failed',
          );
          return {
            target: target.describe(),
            ok: false,
            attempts: attempt,
            error: failure.message,
          };
        }
        log.info(
          { ...fields, attempt, error: failure.message, delayMs: decision.delayMs },
          'notification will be retried',
        );
        await sleep(decision.delayMs);
      }
    }
  }

  function start(
    messageFor: (target: NotifyTarget) => NotifyMessage,
    context: Record<string, string>,
  ): Promise<DeliveryResult>[] {
    // Rendered before anything is sent: a template that throws sends nothing rather than some.
    const messages = options.targets.map((target) => [target, messageFor(target)] as const);
    const started: Promise<DeliveryResult>[] = [];
    for (const [target, message] of messages) {
      for (const recipient of target.recipients?.() ?? [target]) {
        if (inFlight.size >= maxPending) {
          log.warn(
            { ...context, notify: recipient.describe(), pending: inFlight.size },
            'notification dropped: too many in flight',
          );
          continue;
        }
        const delivery = deliver(recipient, message, context);
        inFlight.add(delivery);
        void delivery.finally(() => inFlight.delete(delivery));
        started.push(delivery);
      }
    }
    return started;
  }

  function sendEvent(event: MaintenanceEvent): Promise<DeliveryResult[]> {
    const rendered = new Map<string, NotifyMessage>();
    const messageFor = (target: NotifyTarget): NotifyMessage => {
      const markup = { text: target.markup, title: target.titleMarkup ?? 'plain' };
      const key = `${markup.text} ${markup.title}`;
      const message = rendered.get(key) ?? notificationMessage(templates, event, markup);
      rendered.set(key, message);
      return message;
    };
    try {
      const context = { event: event.kind, node: event.node, requestId: event.requestId };
      return Promise.all(start(messageFor, context));
    } catch (error) {
      // Rendering is pure and templates were checked at start; still, a report must never break the caller.
      log.error({ event: event.kind, error: String(error) }, 'notification not rendered');
      return Promise.resolve([]);
    }
  }

  return {
    notify(event) {
      void sendEvent(event);
      return Promise.resolve();
    },
    sendEvent,
    send(message, context = {}) {
      return Promise.all(start(() => message, context));
    },
    async flush(timeoutMs) {
      const all = Promise.allSettled([...inFlight]);
      if (timeoutMs === undefined) {
        await all;
        return;
      }
      const controller = new AbortController();
      await Promise.race([
        all,
        delay(timeoutMs, undefined, { signal: controller.signal }).catch(() => undefined),
      ]);
      controller.abort();
    },
    pending: () => inFlight.size,
  };
}
