/**
 * A simulated kubelet's `/configz` over HTTPS, checked as a kubelet with `authentication.webhook`
 * and `authorization.mode: Webhook` checks it (upstream pkg/kubelet/server/auth.go and server.go):
 * the bearer token goes to the apiserver's TokenReview (401 "Unauthorized" when it is not
 * authenticated), the user to a SubjectAccessReview for `get` on the node's `nodes/configz`
 * (KubeletFineGrainedAuthz, on by default since 1.33) and then `nodes/proxy`; allowed by neither, a
 * 403 naming both. The answer is the KubeletConfiguration's JSON under `kubeletconfig`, its durations
 * in Go's spelling (`20s`, `0s`). The reviews go through `reviews`: the sim's own API, or the real
 * apiserver an attached kubelet belongs to (as the kubelet's own identity).
 */
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeJson } from './attach/kube-json.js';
import { serverTls } from './tls.js';

export interface GracefulShutdownConfig {
  /** Go's spelling: `20s`, `1m30s`, `0s` (the kubelet's default). */
  shutdownGracePeriod: string;
  shutdownGracePeriodCriticalPods: string;
  /**
   * The kubelet's per-priority periods (GracefulNodeShutdownBasedOnPodPriority): with a non-empty
   * list the two durations above must be 0, and the kubelet's delay is the sum of the periods.
   * Left out of `/configz` when empty, as the kubelet's `omitempty` leaves it.
   */
  shutdownGracePeriodByPodPriority?: readonly ShutdownGracePeriodByPodPriority[];
}

export interface ShutdownGracePeriodByPodPriority {
  /** An int32, as PriorityClass values are. */
  priority: number;
  shutdownGracePeriodSeconds: number;
}

export const NO_GRACEFUL_SHUTDOWN: GracefulShutdownConfig = {
  shutdownGracePeriod: '0s',
  shutdownGracePeriodCriticalPods: '0s',
};

export interface KubeletConfigzServer {
  url: string;
  port: number;
  /** The CA of its serving certificate (a kubelet's is self-signed by default). */
  caPem: string;
  /** What the next `/configz` answers (a kubelet restarted with a new config). */
  setConfig(config: GracefulShutdownConfig): void;
  close(): Promise<void>;
}

const GO_DURATION = /^(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+)$/;

const INT32 = { min: -2147483648, max: 2147483647 };
const isZero = (duration: string) => /^0+(?:\.0*)?(?:ns|us|µs|ms|s|m|h)?$/.test(duration);

/**
 * A clear error for a config the kubelet's validation would refuse: a value that is not a duration,
 * a priority that is not an int32, a period that is not whole seconds, or both ways of saying it.
 */
export function checkGracefulShutdown(config: GracefulShutdownConfig): GracefulShutdownConfig {
  const { shutdownGracePeriodByPodPriority: byPriority = [], ...durations } = config;
  for (const [key, value] of Object.entries(durations))
    if (!GO_DURATION.test(value))
      throw new RangeError(
        `${key} must be a duration as the kubelet config takes it (20s, 1m30s, 0s), got ${JSON.stringify(value)}`,
      );
  byPriority.forEach(({ priority, shutdownGracePeriodSeconds: seconds }, i) => {
    const at = `shutdownGracePeriodByPodPriority[${i}]`;
    if (!Number.isInteger(priority) || priority < INT32.min || priority > INT32.max)
      throw new RangeError(`${at}.priority must be an int32, got ${JSON.stringify(priority)}`);
    if (!Number.isInteger(seconds) || seconds < 0)
      throw new RangeError(
        `${at}.shutdownGracePeriodSeconds must be whole seconds (0 or more), got ${JSON.stringify(seconds)}`,
      );
  });
  // Upstream's ValidateKubeletConfiguration, word for word.
  if (
    byPriority.length > 0 &&
    !(isZero(durations.shutdownGracePeriod) && isZero(durations.shutdownGracePeriodCriticalPods))
  )
    throw new RangeError(
      'invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time (set both durations to 0s)',
    );
  return config;
}

/** The KubeletConfiguration fields `/configz` shows, the empty list left out. */
function configzFields(config: GracefulShutdownConfig): Record<string, unknown> {
  const { shutdownGracePeriodByPodPriority: byPriority, ...rest } = config;
  return byPriority?.length ? { ...rest, shutdownGracePeriodByPodPriority: byPriority } : rest;
}

const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/** A Go duration in seconds (`1m30s` → 90); check it first (`checkGracefulShutdown`). */
export function durationSeconds(value: string): number {
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g))
    total += Number(amount) * (UNIT_SECONDS[unit ?? 's'] ?? 1);
  return total;
}

/**
 * Whether the kubelet runs its graceful node shutdown manager. Upstream
 * pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go `NewManager` falls back to `managerStub`
 * ("node shutdown will be immediate") when `migrateConfig` (nodeshutdown_manager.go) gives no
 * groups: no `shutdownGracePeriodByPodPriority` list and `shutdownGracePeriod` 0, or
 * `shutdownGracePeriodCriticalPods` above it.
 */
export function gracefulShutdownOn(config: GracefulShutdownConfig): boolean {
  const checked = checkGracefulShutdown(config);
  if (checked.shutdownGracePeriodByPodPriority?.length) return true;
  const period = durationSeconds(checked.shutdownGracePeriod);
  return period > 0 && durationSeconds(checked.shutdownGracePeriodCriticalPods) <= period;
}

interface Review {
  status?: { authenticated?: boolean; allowed?: boolean; user?: ReviewUser };
}
interface ReviewUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

type Reviews = Pick<KubeJson, 'request'>;

/**
 * Reviews sent with a bearer token (the embedded sim's own API and admin token), without a
 * KubeConfig: the sim's entry point stays free of the client library.
 */
export function bearerReviews(url: string, caPem: string, token: string): Reviews {
  return {
    request: <T>(method: string, path: string, options: { body?: unknown } = {}) =>
      new Promise<T>((resolve, reject) => {
        const body = JSON.stringify(options.body ?? {});
        const req = request(
          new URL(path, url),
          {
            method,
            ca: caPem,
            headers: {
              Authorization: `Bearer ${token}`,
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () =>
              (res.statusCode ?? 0) < 300
                ? resolve(JSON.parse(text) as T)
                : reject(new Error(`${method} ${path}: ${res.statusCode}: ${text.slice(0, 200)}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
  };
}

export async function startKubeletConfigz(options: {
  node: string;
  config: GracefulShutdownConfig;
  reviews: Reviews;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0: a free port */
  port?: number;
}): Promise<KubeletConfigzServer> {
  const host = options.host ?? '127.0.0.1';
  let config = checkGracefulShutdown(options.config);
  const tls = serverTls(
    [host, 'localhost', '127.0.0.1'].filter((h, i, all) => all.indexOf(h) === i),
  );

  const allowed = async (user: ReviewUser, subresource: string): Promise<boolean> => {
    const review = await options.reviews.request<Review>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups ?? [],
            ...(user.extra ? { extra: user.extra } : {}),
            resourceAttributes: {
              verb: 'get',
              version: 'v1',
              resource: 'nodes',
              subresource,
              name: options.node,
            },
          },
        },
      },
    );
    return review.status?.allowed === true;
  };

  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const send = (code: number, text: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'Content-Type': type });
      res.end(text);
    };
    void (async () => {
      const path = new URL(req.url ?? '/', 'https://kubelet').pathname;
      if (path !== '/configz') return send(404, '404 page not found\n');
      if (req.method !== 'GET') return send(405, 'Method Not Allowed\n');
      const header = req.headers.authorization ?? '';
      if (!header.startsWith('Bearer ')) return send(401, 'Unauthorized');
      const review = await options.reviews.request<Review>(
        'POST',
        '/apis/authentication.k8s.io/v1/tokenreviews',
        {
          body: {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            spec: { token: header.slice(7) },
          },
        },
      );
      const user = review.status?.user;
      if (review.status?.authenticated !== true || !user?.username)
        return send(401, 'Unauthorized');
      if (!(await allowed(user, 'configz')) && !(await allowed(user, 'proxy')))
        return send(
          403,
          `Forbidden (user=${user.username}, verb=get, resource=nodes, subresource(s)=[configz proxy])\n`,
        );
      send(
        200,
        JSON.stringify({ kubeletconfig: { ...configzFields(config), enableServer: true } }),
        'application/json',
      );
    })().catch((error: unknown) =>
      send(
        500,
        `Internal Server Error: ${error instanceof Error ? error.message : String(error)}\n`,
      ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host}:${port}`,
    port,
    caPem: tls.caPem,
    setConfig: (next) => (config = checkGracefulShutdown(next)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
