/**
 * A local stand-in for slack.com: it records every Web API call (`POST /api/<method>`, form or JSON)
 * and every `response_url` post (`POST /resp/<n>`), answers the way Slack does (`{ok:true,…}` with a
 * fresh `ts` for messages), and checks each payload against Block Kit's limits, so a test can assert
 * both what kubemaint said and that Slack would have accepted it. Point the app at it with
 * `SLACK_API_URL=<url>/api/`.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  /** Web API method (`chat.postMessage`) or `response_url` for posts to /resp/<n>. */
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed arguments: JSON bodies as they are; form bodies with `blocks`/`view` JSON-decoded. */
  args: Record<string, unknown>;
  /** Block Kit limits this call broke (empty when Slack would accept it). */
  violations: string[];
  /** What the stand-in answered (a posted message's `ts` is here). */
  response?: Record<string, unknown>;
}

export interface SlackWebApi {
  /** `http://127.0.0.1:<port>`; the Web API base is `${url}/api/`. */
  url: string;
  apiUrl: string;
  calls: SlackCall[];
  /** A fresh response_url for a slash command or a click. */
  responseUrl(): string;
  /** Members of a user group, answered by `usergroups.users.list`. */
  setGroup(groupId: string, users: string[]): void;
  /** Calls of one method, in order. */
  callsOf(method: string): SlackCall[];
  /** Make the next calls of `method` fail with `{ok:false,error}` (or an HTTP status). */
  failNext(
    method: string,
    error: string | { status: number; retryAfter?: number },
    times?: number,
  ): void;
  /** Answer the next call of `method` `ms` later (recorded at once): a slow Slack in flight. */
  holdNext(method: string, ms: number): void;
  close(): Promise<void>;
}

const LIMITS = {
  blocksPerMessage: 50,
  blocksPerModal: 100,
  sectionText: 3000,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  messageText: 40000,
  contextElements: 10,
  actionsElements: 25,
  sectionFields: 10,
  fieldText: 2000,
  actionId: 255,
  privateMetadata: 3000,
  modalTitle: 24,
} as const;

export async function startSlackWebApi(): Promise<SlackWebApi> {
  const calls: SlackCall[] = [];
  const groups = new Map<string, string[]>();
  const failures = new Map<
    string,
    { error: string | { status: number; retryAfter?: number }; times: number }
  >();
  const holds = new Map<string, number>();
  let seq = 0;
  let responseUrls = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      const method = path.startsWith('/resp/')
        ? 'response_url'
        : path.replace(/^\/api\//, '').split('?')[0]!;
      const args = parseArgs(raw, req.headers['content-type'] ?? '');
      const call: SlackCall = {
        method,
        path,
        headers: req.headers,
        args,
        violations: blockKitViolations(args),
      };
      calls.push(call);
      const held = holds.get(method);
      holds.delete(method);
      if (held !== undefined) setTimeout(() => reply(method, args, call, res), held);
      else reply(method, args, call, res);
    });
  });

  function reply(
    method: string,
    args: Record<string, unknown>,
    call: SlackCall,
    res: ServerResponse,
  ): void {
    const failure = failures.get(method);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      if (typeof failure.error === 'string') {
        json(res, 200, { ok: false, error: failure.error });
        return;
      }
      const headers =
        failure.error.retryAfter !== undefined
          ? { 'Retry-After': String(failure.error.retryAfter) }
          : {};
      res.writeHead(failure.error.status, headers);
      res.end();
      return;
    }
    const response = answer(method, args);
    call.response = response;
    json(res, 200, response);
  }

  function answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    seq += 1;
    const ts = `${1_700_000_000 + seq}.${String(seq).padStart(6, '0')}`;
    switch (method) {
      case 'auth.test':
        return { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T0TEST', user: 'kubemaint' };
      case 'chat.postMessage':
        return { ok: true, channel: args['channel'], ts, message: { ts, text: args['text'] } };
      case 'chat.update':
        return { ok: true, channel: args['channel'], ts: args['ts'], text: args['text'] };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: ts };
      case 'usergroups.users.list':
        return { ok: true, users: groups.get(String(args['usergroup'])) ?? [] };
      case 'views.open':
      case 'views.update':
      case 'views.push':
        return { ok: true, view: { id: `V${seq}`, ...(args['view'] as object) } };
      default:
        return { ok: true };
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    responseUrl: () => `${url}/resp/${++responseUrls}`,
    setGroup: (id, users) => void groups.set(id, users),
    callsOf: (method) => calls.filter((c) => c.method === method),
    failNext: (method, error, times = 1) => void failures.set(method, { error, times }),
    holdNext: (method, ms) => void holds.set(method, ms),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (raw === '') return {};
  if (contentType.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    // The WebClient sends objects as JSON strings inside the form.
    args[key] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return args;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

type Json = Record<string, unknown>;
function textOf(t: unknown): string {
  if (typeof t === 'string') return t;
  return typeof t === 'object' && t !== null ? textOf((t as Json)['text']) : '';
}

/** The Block Kit limits that matter to kubemaint's messages (reference §3). */
export function blockKitViolations(args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  if (typeof args['text'] === 'string')
    check(args['text'].length <= LIMITS.messageText, 'text over 40,000 characters');
  const view = args['view'] as Json | undefined;
  const blocks = view?.['blocks'] ?? args['blocks'];
  if (view) {
    check(textOf(view['title']).length <= LIMITS.modalTitle, 'modal title over 24 characters');
    const meta = view['private_metadata'];
    check(
      typeof meta !== 'string' || meta.length <= LIMITS.privateMetadata,
      'private_metadata over 3,000 characters',
    );
  }
  if (blocks === undefined) return problems;
  if (!Array.isArray(blocks)) return [...problems, 'blocks is not an array'];
  check(
    blocks.length <= (view ? LIMITS.blocksPerModal : LIMITS.blocksPerMessage),
    `${blocks.length} blocks`,
  );
  for (const [i, block] of (blocks as Json[]).entries()) {
    const where = `block ${i} (${String(block['type'])})`;
    switch (block['type']) {
      case 'section': {
        if (block['text'] !== undefined)
          check(
            textOf(block['text']).length <= LIMITS.sectionText,
            `${where}: text over 3,000 characters`,
          );
        const fields = (block['fields'] as unknown[] | undefined) ?? [];
        check(fields.length <= LIMITS.sectionFields, `${where}: over 10 fields`);
        for (const f of fields)
          check(textOf(f).length <= LIMITS.fieldText, `${where}: field over 2,000 characters`);
        if (block['accessory']) checkElement(block['accessory'] as Json, where, check);
        check(
          block['text'] !== undefined || fields.length > 0,
          `${where}: neither text nor fields`,
        );
        break;
      }
      case 'header':
        check(
          textOf(block['text']).length <= LIMITS.headerText,
          `${where}: header over 150 characters`,
        );
        break;
      case 'context':
        check(
          ((block['elements'] as unknown[]) ?? []).length <= LIMITS.contextElements,
          `${where}: over 10 elements`,
        );
        break;
      case 'actions': {
        const elements = (block['elements'] as Json[]) ?? [];
        check(elements.length <= LIMITS.actionsElements, `${where}: over 25 elements`);
        for (const e of elements) checkElement(e, where, check);
        break;
      }
      default:
        break;
    }
  }
  return problems;
}

function checkElement(
  element: Json,
  where: string,
  check: (ok: boolean, what: string) => void,
): void {
  if (element['type'] !== 'button') return;
  check(
    textOf(element['text']).length <= LIMITS.buttonText,
    `${where}: button text over 75 characters`,
  );
  const value = element['value'];
  check(
    typeof value !== 'string' || value.length <= LIMITS.buttonValue,
    `${where}: button value over 2,000 characters`,
  );
  check(
    textOf(element['action_id']).length <= LIMITS.actionId,
    `${where}: action_id over 255 characters`,
  );
}
