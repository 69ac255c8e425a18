/**
 * Counts the API requests this process sends and the response bytes it reads, at the client: every
 * `@kubernetes/client-node` call goes through an undici Agent (node_modules/undici, the one client-node
 * imports), so wrapping Agent.prototype.dispatch sees each request whatever the server is. The same
 * count on the embedded sim and on kube-apiserver, so the two can be compared number for number.
 */
import { Agent } from 'undici';

export interface ApiCount {
  requests: number;
  /** Response bodies as they came over the wire (compressed, when the server compressed them). */
  bytes: number;
  /** `GET /api/v1/nodes` etc., query strings left out. */
  lines: string[];
}

interface Handler {
  onResponseData?: (controller: unknown, chunk: Buffer) => unknown;
  onData?: (chunk: Buffer) => unknown;
}

let installed: ApiCount | undefined;

export function countApiRequests(): { read(): ApiCount; reset(): void } {
  if (!installed) {
    const count: ApiCount = { requests: 0, bytes: 0, lines: [] };
    installed = count;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its Agent below
    const dispatch = Agent.prototype.dispatch;
    Agent.prototype.dispatch = function (
      this: Agent,
      opts: Parameters<Agent['dispatch']>[0],
      handler: Parameters<Agent['dispatch']>[1],
    ) {
      count.requests += 1;
      count.lines.push(`${opts.method} ${String(opts.path).replace(/\?.*/, '')}`);
      const h = handler as Handler;
      const onResponseData = h.onResponseData;
      if (onResponseData)
        h.onResponseData = (controller, chunk) => {
          count.bytes += chunk.length;
          return onResponseData.call(handler, controller, chunk);
        };
      const onData = h.onData;
      if (onData)
        h.onData = (chunk) => {
          count.bytes += chunk.length;
          return onData.call(handler, chunk);
        };
      return dispatch.call(this, opts, handler);
    };
  }
  const count = installed;
  return {
    read: () => ({ ...count, lines: [...count.lines] }),
    reset() {
      count.requests = 0;
      count.bytes = 0;
      count.lines = [];
    },
  };
}
