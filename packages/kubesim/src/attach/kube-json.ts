/**
 * Plain JSON requests to an apiserver for the attached kubelets: objects go out and come back exactly
 * as the API spells them (client-node's typed clients turn timestamps into Dates and drop fields they
 * do not know, which a kubelet writing status back must not do). TLS, credentials and impersonation
 * come from the KubeConfig (`applyToHTTPSOptions`); a refusal is thrown as an ApiCallError with the
 * Status's message and reason, which `once` and `withRetry` (api-errors.ts) judge.
 */
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiCallError, kindOfStatus } from './api-errors.js';

export const STRATEGIC_MERGE = 'application/strategic-merge-patch+json';

export interface RequestOptions {
  body?: unknown;
  /** @default 'application/json' */
  contentType?: string;
  query?: Record<string, string>;
  /** Wall-clock limit for the whole answer. @default 30_000 */
  timeoutMs?: number;
}

export interface KubeJson {
  readonly server: string;
  readonly config: KubeConfig;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
}

export function kubeJson(config: KubeConfig): KubeJson {
  const server = config.getCurrentCluster()?.server ?? '';
  return {
    server,
    config,
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
      const url = new URL(server.replace(/\/+$/, '') + path);
      for (const [key, value] of Object.entries(options.query ?? {})) {
        url.searchParams.set(key, value);
      }
      const tls: https.RequestOptions = {};
      await config.applyToHTTPSOptions(tls);
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      const headers: Record<string, string> = {
        ...(tls.headers as Record<string, string> | undefined),
        Accept: 'application/json',
        'User-Agent': 'kubemaint-sim-kubelet',
        ...(body === undefined
          ? {}
          : {
              'Content-Type': options.contentType ?? 'application/json',
              'Content-Length': String(Buffer.byteLength(body)),
            }),
      };
      return new Promise<T>((resolve, reject) => {
        const req = https.request(url, { ...tls, method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) {
              try {
                resolve((text === '' ? undefined : JSON.parse(text)) as T);
              } catch (error) {
                reject(error instanceof Error ? error : new Error(String(error)));
              }
              return;
            }
            reject(refusal(code, text, res.headers['retry-after']));
          });
        });
        req.setTimeout(options.timeoutMs ?? 30_000, () =>
          req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })),
        );
        req.on('error', reject);
        req.end(body);
      });
    },
  };
}

function refusal(status: number, text: string, retryAfter: string | undefined): ApiCallError {
  let body: { message?: unknown; reason?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed;
  } catch {
    body = { message: text.slice(0, 300) };
  }
  const reason = typeof body.reason === 'string' ? body.reason : undefined;
  const seconds = retryAfter === undefined ? NaN : Number(retryAfter);
  return new ApiCallError(
    kindOfStatus(status, reason),
    typeof body.message === 'string' && body.message !== '' ? body.message : `HTTP ${status}`,
    {
      status,
      ...(reason === undefined ? {} : { reason }),
      ...(Number.isFinite(seconds) && seconds >= 0 ? { retryAfterMs: seconds * 1_000 } : {}),
    },
  );
}
