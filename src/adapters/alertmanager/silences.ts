/**
 * The SilencesPort over Alertmanager's v2 HTTP API. `POST /api/v2/silences` creates a silence, and
 * with the `id`, the matchers and the start of an active one moves its end in place (any other
 * change makes Alertmanager expire it and answer a new id); `GET /api/v2/silence/{id}` reads one,
 * `DELETE /api/v2/silence/{id}` expires it, and `GET /api/v2/silences` lists them, of which kubemaint
 * keeps its own (its `createdBy`). Times are this process's wall clock, as Alertmanager's are.
 * Every failure throws with Alertmanager's answer; the control plane decides what that means.
 */
import type { SilencesPort } from '../../app/control/ports.js';
import type { Matcher } from '../../core/silence.js';

export interface AlertmanagerOptions {
  /** Base URL of Alertmanager (a path prefix such as `/alertmanager` is kept). */
  url: string;
  /** Who kubemaint's silences say made them: how it finds its own again (`kubemaint@<cluster>`). */
  createdBy: string;
  /** The `Authorization` header value, read when needed (a mounted token may rotate). */
  authorization?: () => Promise<string>;
  /** Injectable for tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 10_000 */
  timeoutMs?: number;
  /** Alertmanager's time. @default () => new Date() */
  now?: () => Date;
}

interface GettableSilence {
  id?: unknown;
  createdBy?: unknown;
  comment?: unknown;
  matchers?: unknown;
  startsAt?: unknown;
  endsAt?: unknown;
  status?: { state?: unknown };
}

const LIVE = new Set(['active', 'pending']);

export function alertmanagerSilences(options: AlertmanagerOptions): SilencesPort {
  const base = options.url.replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.authorization) headers['authorization'] = await options.authorization();
    try {
      return await (options.fetch ?? globalThis.fetch)(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`Alertmanager at ${base} did not answer ${method} ${path}: ${why}`, {
        cause: error,
      });
    }
  };
  const refused = async (response: Response, what: string): Promise<Error> => {
    const text = (await response.text().catch(() => '')).trim().slice(0, 300);
    const auth = response.status === 401 || response.status === 403;
    return new Error(
      `Alertmanager at ${base} refused to ${what}: HTTP ${response.status}${text ? ` ${text}` : ''}${auth ? ' (check alertmanager.auth)' : ''}`,
    );
  };
  const post = async (silence: Record<string, unknown>, what: string): Promise<string> => {
    const response = await call('POST', '/api/v2/silences', {
      ...silence,
      createdBy: options.createdBy,
    });
    if (!response.ok) throw await refused(response, what);
    const answer = (await response.json().catch(() => ({}))) as { silenceID?: unknown };
    if (typeof answer.silenceID !== 'string' || answer.silenceID === '')
      throw new Error(`Alertmanager at ${base} answered no silenceID to ${what}`);
    return answer.silenceID;
  };
  const endIn = (forMs: number) => new Date(now().getTime() + forMs).toISOString();

  return {
    async create({
      matchers,
      comment,
      forMs,
    }: {
      matchers: Matcher[];
      comment: string;
      forMs: number;
    }) {
      const endsAt = endIn(forMs);
      const id = await post(
        { matchers, startsAt: now().toISOString(), endsAt, comment },
        'silence',
      );
      return { id, endsAt };
    },
    async extend(id, forMs) {
      const response = await call('GET', `/api/v2/silence/${encodeURIComponent(id)}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw await refused(response, `read silence ${id}`);
      const silence = (await response.json().catch(() => ({}))) as GettableSilence;
      if (!LIVE.has(String(silence.status?.state))) return undefined;
      const endsAt = endIn(forMs);
      // The same matchers and start keep the silence (and its id) as it is, only longer.
      const kept = await post(
        {
          id,
          matchers: silence.matchers,
          startsAt: silence.startsAt,
          endsAt,
          comment: silence.comment,
        },
        `extend silence ${id}`,
      );
      return { id: kept, endsAt };
    },
    async expire(id) {
      const response = await call('DELETE', `/api/v2/silence/${encodeURIComponent(id)}`);
      if (response.ok || response.status === 404) return;
      const error = await refused(response, `expire silence ${id}`);
      // Expiring one that already ended is what we wanted.
      if (/already expired/i.test(error.message)) return;
      throw error;
    },
    async listOwn() {
      const response = await call('GET', '/api/v2/silences');
      if (!response.ok) throw await refused(response, 'list silences');
      const answer: unknown = await response.json().catch(() => undefined);
      if (!Array.isArray(answer)) throw new Error(`Alertmanager at ${base} listed no array`);
      const at = now().getTime();
      return (answer as GettableSilence[])
        .filter((s) => s.createdBy === options.createdBy && LIVE.has(String(s.status?.state)))
        .filter(
          (s): s is GettableSilence & { id: string; startsAt: string } =>
            typeof s.id === 'string' && typeof s.startsAt === 'string',
        )
        .map((s) => ({ id: s.id, ageMs: at - Date.parse(s.startsAt) }));
    },
  };
}
