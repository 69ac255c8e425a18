/**
 * The target of every service whose send is HTTP requests: the service says what to send for a
 * message, this sends it, so every webhook and bot API fails, times out and masks its URL the same way
 * (through sendHttp) and no service writes its own send loop.
 */
import type { Markup } from '../../core/markup.js';
import { jsonHeaders, sendHttp, type HttpRequest, type HttpResponse } from './http.js';
import type { NotifyMessage, NotifyTarget } from './types.js';

export interface HttpTargetSpec {
  service: string;
  config: unknown;
  markup: Markup;
  titleMarkup?: Markup;
  /** The URL without secrets, for describe() and every error message. */
  masked: string;
  /** The requests one message makes (one per chat or device for some services), sent in order. */
  requests: (message: NotifyMessage) => HttpRequest | HttpRequest[];
  /**
   * For services that answer a refusal with a 2xx (Slack's `ok: false`): throws a NotifySendError
   * when the answer says the message was not delivered.
   */
  checkAnswer?: (response: HttpResponse) => void;
  recipients?: () => NotifyTarget[];
}

export function httpTarget(spec: HttpTargetSpec): NotifyTarget {
  const { masked, requests, checkAnswer, ...target } = spec;
  return {
    ...target,
    describe: () => masked,
    send: async (message, io) => {
      // In order, one at a time: the first failure stops the rest (recipients() lets a retry skip
      // the recipients that already have the message).
      for (const request of [requests(message)].flat()) {
        const response = await sendHttp(request, io, masked);
        checkAnswer?.(response);
      }
    },
  };
}

/** A POST of `payload` as JSON, the body most webhooks take. */
export const postJson = (url: string, payload: unknown): HttpRequest => ({
  url,
  headers: jsonHeaders,
  body: JSON.stringify(payload),
});
