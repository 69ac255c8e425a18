/**
 * The sim's Kubernetes API server: HTTPS with a generated CA, bearer-token authentication (its admin
 * token, or a service-account token it minted) with impersonation (identity.ts), routing to
 * discovery, the resource handlers and the `/_sim/` admin endpoint, with fault injection in front of
 * every resource request. Everything it serves comes from the in-process store, so
 * kubectl, client-node and the sim's controllers all see one cluster.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverTls, type TlsMaterial } from '../tls.js';
import { StatusError, type Store } from '../types.js';
import { handleAdmin } from './admin.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  DEFAULT_VERSION,
  POST_ONLY_SUBRESOURCES,
  versionDocument,
  type ServerVersion,
} from './discovery.js';
import type { EvictionResult } from './eviction.js';
import { FaultInjector, type FaultRule, type FaultVerb } from './faults.js';
import {
  handleCreate,
  handleDelete,
  handleGet,
  handleList,
  handlePatch,
  handleUpdate,
  type Target,
} from './handlers.js';
import { addWarnings, queryFlag, sendError, sendJson, type RequestContext } from './http.js';
import { actorOf, SIM_ADMIN } from './identity.js';
import { createAccessControl, pathAttributes, selectedName } from './access-control.js';
import { handleReview, REVIEW_PATHS } from './access-reviews.js';
import { createAdmission } from '../admission/chain.js';
import { ensureBootstrapPolicy, resourceAttributes } from '../authz/index.js';
import { clientCertificate, type ClientCertificate } from '../client-certificates.js';
import { createTokenIssuer } from './service-account-tokens.js';
import { serveOpenApi } from './openapi/index.js';
import { POD_STREAMS, servePodStream, type PodOutput } from './pod-streams.js';
import { parseRoute } from './routes.js';
import { serveWatch } from './watch.js';

export type { FaultRule } from './faults.js';
export type { EvictionResult } from './eviction.js';

export interface ApiServerOptions {
  store: Store;
  /** Sim time, for ages in tables and eviction timestamps. */
  now: () => Date;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** What `/version` reports; it decides which kubectl the machine's dispatcher runs. @default v1.31.4 */
  version?: ServerVersion;
  faults?: FaultRule[];
  /** Seed for fault randomness. @default 1 */
  faultSeed?: number;
  /** Called after every successful (or dry-run) eviction. */
  onEviction?: (result: EvictionResult) => void;
  /** Bearer token clients must send. @default a random one */
  token?: string;
  /** Wall-clock ms between watch bookmarks. @default 1000 */
  bookmarkIntervalMs?: number;
  /** Extra fields for `GET /_sim/status`. */
  status?: () => Record<string, unknown>;
  /** What `pods/<name>/log` answers for a pod that ran as a local process. */
  podOutput?: PodOutput;
  /** The CA and serving certificate (a sim's saved state). @default one CA per process (tls.ts) */
  tls?: TlsMaterial;
  /** The service-account token signing key (a sim's saved state). @default a random one */
  serviceAccountKey?: Buffer;
}

export interface ApiServer {
  url: string;
  port: number;
  caPem: string;
  token: string;
  server: Server;
  /** A client certificate for `user` in `groups`, signed by the server's CA (CN=user, O=groups). */
  clientCertificate(user: string, groups?: readonly string[]): ClientCertificate;
  /**
   * A ServiceAccount token as the TokenRequest API mints it (1 h), optionally bound to a pod, for
   * in-process tests (a kubectl in the same process would block the server it waits for).
   */
  serviceAccountToken(namespace: string, name: string, boundToPod?: string): string;
  setFaults(rules: FaultRule[]): void;
  close(): Promise<void>;
}

const UNAUTHENTICATED = new Set(['/version', '/healthz', '/readyz', '/livez']);

function verbOf(method: string, t: Target, watch: boolean): FaultVerb {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : t.name === undefined ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return t.name === undefined ? 'deletecollection' : 'delete';
    default:
      throw new StatusError(
        405,
        'MethodNotAllowed',
        `the server does not allow the method ${method} on the requested resource`,
      );
  }
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { store, now } = options;
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('hex');
  const faults = new FaultInjector(options.faults ?? [], options.faultSeed ?? 1);
  const version = options.version ?? DEFAULT_VERSION;
  const openWatches = new Set<() => void>();
  const tls =
    options.tls ??
    serverTls([host, 'localhost', '127.0.0.1'].filter((h, i, all) => all.indexOf(h) === i));
  let address = `${host}:0`;

  const tokens = createTokenIssuer(store, now, options.serviceAccountKey);

  // Authentication, impersonation and Node+RBAC authorization (access-control.ts); admission policies.
  const access = createAccessControl(store, token, tokens);
  const admission = createAdmission(store);
  ensureBootstrapPolicy(store);

  async function route(ctx: RequestContext, pathname: string): Promise<void> {
    const review = REVIEW_PATHS[pathname];
    if (review && ctx.req.method === 'POST') {
      const { group, resource } = review;
      access.authorize(resourceAttributes(ctx.user, 'create', { apiGroup: group, resource }));
      return handleReview(ctx, resource, access.authorizer, (t) => access.authenticateToken(t));
    }
    // Upstream authorizes before routing: an unknown path outside the API is a 403, not a 404.
    const apiPath = /^\/apis?(\/|$)/.test(pathname);
    if (!apiPath) access.authorize(pathAttributes(ctx.user, ctx.req.method ?? 'GET', pathname));
    if (pathname.startsWith('/_sim/'))
      return handleAdmin(ctx, pathname, {
        store,
        faults,
        ...(options.status ? { status: options.status } : {}),
      });
    const r = parseRoute(pathname, store.resources);
    const method = ctx.req.method ?? 'GET';
    if (r.type !== 'resource') access.authorize(pathAttributes(ctx.user, method, pathname));
    if (r.type !== 'resource' && method !== 'GET') {
      throw new StatusError(
        405,
        'MethodNotAllowed',
        `the server does not allow the method ${method} on ${pathname}`,
      );
    }
    switch (r.type) {
      case 'version':
        return sendJson(ctx.res, 200, versionDocument(version));
      case 'health':
        ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
        return void ctx.res.end('ok');
      case 'openapi':
        return serveOpenApi(ctx.res, r.path, store);
      case 'api':
        return sendJson(ctx.res, 200, apiVersions(address));
      case 'apis':
        return sendJson(ctx.res, 200, apiGroupList(store.resources));
      case 'apiGroup':
        return sendJson(ctx.res, 200, apiGroup(r.group, store.resources));
      case 'apiVersion':
        return sendJson(ctx.res, 200, apiResourceList(r.group, r.version, store.resources));
      case 'resource':
        break;
    }
    const watch = queryFlag(ctx.query, 'watch');
    const verb = verbOf(method, r, watch);
    const name =
      r.name ??
      (verb === 'list' || verb === 'watch'
        ? selectedName(ctx.query.get('fieldSelector'))
        : undefined);
    access.authorize(
      resourceAttributes(ctx.user, verb, {
        apiGroup: r.def.group,
        resource: r.def.plural,
        ...(r.subresource ? { subresource: r.subresource } : {}),
        ...(r.namespace ? { namespace: r.namespace } : {}),
        ...(name ? { name } : {}),
      }),
    );
    if (r.subresource && POST_ONLY_SUBRESOURCES[r.subresource] && verb !== 'create') {
      throw new StatusError(
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      );
    }
    const fault = faults.decide({
      resource: r.def.key,
      subresource: r.subresource,
      verb,
      namespace: r.namespace,
      name: r.name,
    });
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault.error) throw fault.error;
    // A deprecated custom resource version warns on every request to it, as kube-apiserver does.
    const deprecated = r.def.custom?.deprecationWarning;
    if (deprecated) addWarnings(ctx.res, [deprecated]);
    if (r.subresource && POD_STREAMS[r.subresource]) {
      const pod = store.get(r.def.key, r.namespace, r.name ?? '');
      return servePodStream(ctx, r, verb, {
        pod,
        ...(options.podOutput ? { output: options.podOutput } : {}),
      });
    }
    switch (verb) {
      case 'watch':
        return serveWatch(ctx, r, {
          store,
          bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
          open: openWatches,
          ...(fault.dropWatchAfterMs === undefined ? {} : { dropAfterMs: fault.dropWatchAfterMs }),
        });
      case 'get':
        return handleGet(ctx, r, { store });
      case 'list':
        return handleList(ctx, r, { store });
      case 'create':
        return handleCreate(ctx, r, {
          store,
          tokens,
          admission,
          ...(options.onEviction ? { onEviction: options.onEviction } : {}),
        });
      case 'update':
        return handleUpdate(ctx, r, { store, admission });
      case 'patch':
        return handlePatch(ctx, r, { store, admission });
      case 'delete':
      case 'deletecollection':
        return handleDelete(ctx, r, { store, admission });
    }
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://sim.invalid');
    const pathname = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const ctx: RequestContext = {
      req,
      res,
      query: url.searchParams,
      actor: `http:${req.headers['user-agent'] ?? 'unknown'}`,
      user: SIM_ADMIN,
      now,
    };
    try {
      if (!UNAUTHENTICATED.has(pathname)) {
        ctx.user = access.identify(req);
        ctx.actor = actorOf(req.headers['user-agent'] ?? 'unknown', ctx.user);
      }
      await route(ctx, pathname);
    } catch (error) {
      sendError(res, error);
    }
  }

  const server = createServer(
    // Client certificates are optional (tokens work too); one the sim's CA did not sign is no identity.
    {
      key: tls.keyPem,
      cert: tls.certPem,
      ca: tls.caPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => void onRequest(req, res),
  );
  // Every socket, even one still in its TLS handshake: close() must end them all. Node's
  // closeAllConnections knows only sockets that reached HTTP, so a client retrying while the sim
  // stops (serve's watches do) could finish a handshake after it, open a watch, and hold close()
  // open for good.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  return {
    url: `https://${host}:${port}`,
    port,
    caPem: tls.caPem,
    token,
    clientCertificate: (user, groups = []) => clientCertificate(tls, user, groups),
    serviceAccountToken: (namespace, name, boundToPod) => {
      const spec = {
        expirationSeconds: 3600,
        ...(boundToPod
          ? { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: boundToPod } }
          : {}),
      };
      const answer = tokens.issue({
        namespace,
        serviceAccount: name,
        body: { spec },
        requester: SIM_ADMIN,
      });
      return (answer.status as { token: string }).token;
    },
    server,
    setFaults: (rules) => faults.set(rules),
    close: async () => {
      for (const end of [...openWatches]) end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
