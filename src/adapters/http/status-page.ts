/**
 * The status page on serve's ops port: `/status` (the document), `/status/events` (Server-Sent
 * Events: the live part again whenever it changed), `/status/page.js`, `page.css` and `icon.svg`. Read
 * only: it answers GET and HEAD, and shows what the last read of the fleet said. What it draws is the
 * caller's (`render`, templates/status-page); here are the routes, the streams and the headers: a
 * Content-Security-Policy that allows nothing inline and nothing from elsewhere, so even a value that
 * escaped escaping could not run.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isTimelineRange, TIMELINE_RANGES, type TimelineRange } from '../../core/timeline.js';

export interface StatusPageOptions {
  /** The document for a range (the first paint). */
  page(range: TimelineRange): string;
  /** The live part for a range (what each event carries). */
  fragment(range: TimelineRange): string;
  script: string;
  style: string;
  icon: string;
  /** Ongoing bars grow and the present moves: streams are redrawn this often. @default 10_000 */
  repaintMs?: number;
  /** Streams open at once; more are refused (503), so a page left open everywhere costs little. @default 32 */
  maxStreams?: number;
}

export interface StatusPage {
  /** Answers a request under `/status`. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): void;
  /** The fleet view changed: send each stream its new fragment (if it differs from the last sent). */
  changed(): void;
  /** Ends every stream (serve stops). */
  close(): void;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** Proxies close a stream that says nothing for a minute or so: a comment every 25 s keeps it. */
const KEEPALIVE_MS = 25_000;

interface Stream {
  res: ServerResponse;
  range: TimelineRange;
  last: string;
}

export function statusPage(options: StatusPageOptions): StatusPage {
  const streams = new Set<Stream>();
  const maxStreams = options.maxStreams ?? 32;
  let timers: NodeJS.Timeout[] = [];

  const send = (stream: Stream, force = false): void => {
    const fragment = options.fragment(stream.range);
    if (!force && fragment === stream.last) return;
    stream.last = fragment;
    // Every line of it a data line, whatever ends it: a CR in a reason cannot start a field of its own.
    const data = fragment
      .split(/\r\n|\r|\n/)
      .map((line) => `data: ${line}`)
      .join('\n');
    stream.res.write(`event: view\n${data}\n\n`);
  };
  const sendAll = (): void => {
    for (const stream of streams) send(stream);
  };
  const startTimers = (): void => {
    if (timers.length > 0) return;
    timers = [
      setInterval(sendAll, options.repaintMs ?? 10_000),
      setInterval(() => {
        for (const { res } of streams) res.write(': keep-alive\n\n');
      }, KEEPALIVE_MS),
    ];
    for (const timer of timers) timer.unref();
  };
  const stopTimers = (): void => {
    for (const timer of timers) clearInterval(timer);
    timers = [];
  };

  function openStream(req: IncomingMessage, res: ServerResponse, range: TimelineRange): void {
    if (streams.size >= maxStreams) {
      answer(res, 503, 'text/plain; charset=utf-8', `too many open status pages (${maxStreams})\n`);
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    // Reconnect after 3 s when the stream breaks (serve restarting): EventSource's own default.
    res.write('retry: 3000\n\n');
    const stream: Stream = { res, range, last: '' };
    streams.add(stream);
    startTimers();
    send(stream, true);
    req.on('close', () => {
      streams.delete(stream);
      if (streams.size === 0) stopTimers();
    });
  }

  return {
    handle(req, res, url) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        answer(res, 405, 'text/plain; charset=utf-8', `method ${req.method ?? '?'} not allowed\n`, {
          allow: 'GET, HEAD',
        });
        return;
      }
      const asked = url.searchParams.get('range') ?? 'fit';
      if (!isTimelineRange(asked)) {
        answer(
          res,
          400,
          'text/plain; charset=utf-8',
          `range ${JSON.stringify(asked.slice(0, 20))} is not one of ${TIMELINE_RANGES.join(', ')}\n`,
        );
        return;
      }
      switch (url.pathname) {
        case '/status':
          return answer(res, 200, 'text/html; charset=utf-8', options.page(asked));
        case '/status/events':
          return openStream(req, res, asked);
        case '/status/page.js':
          return answer(res, 200, 'text/javascript; charset=utf-8', options.script);
        case '/status/page.css':
          return answer(res, 200, 'text/css; charset=utf-8', options.style);
        case '/status/icon.svg':
          return answer(res, 200, 'image/svg+xml', options.icon);
        case '/status/':
          // The page's links are relative to /status: from /status/ they would miss.
          return answer(res, 301, 'text/plain; charset=utf-8', 'moved to ../status\n', {
            location: '../status',
          });
        default:
          return answer(
            res,
            404,
            'text/plain; charset=utf-8',
            `not found: ${url.pathname} (the status page is /status)\n`,
          );
      }
    },
    changed: sendAll,
    close() {
      stopTimers();
      for (const { res } of streams) res.end();
      streams.clear();
    },
  };
}

function answer(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType, ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
