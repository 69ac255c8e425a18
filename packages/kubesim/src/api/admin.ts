/**
 * The sim's own admin endpoint under `/_sim/` (not part of the Kubernetes API): read and replace the
 * fault rules at run time, read the audit log (tests check invariants on it afterwards), and a
 * status readout (sim time, resourceVersion, object counts, plus whatever the sim adds: clock scale).
 */
import type { Store } from '../types.js';
import type { FaultInjector } from './faults.js';
import { readBody, parseJson, sendJson, type RequestContext } from './http.js';
import { StatusError } from '../types.js';

export interface AdminDeps {
  store: Store;
  faults: FaultInjector;
  /** Extra fields for `GET /_sim/status` (the sim adds its clock scale, scenario, nodes). */
  status?: () => Record<string, unknown>;
}

export async function handleAdmin(
  ctx: RequestContext,
  path: string,
  deps: AdminDeps,
): Promise<void> {
  const method = ctx.req.method ?? 'GET';
  if (path === '/_sim/faults') {
    if (method === 'GET') return sendJson(ctx.res, 200, { rules: deps.faults.rules() });
    if (method === 'POST' || method === 'PUT') {
      deps.faults.set(parseJson(await readBody(ctx.req)) as never);
      return sendJson(ctx.res, 200, { rules: deps.faults.rules() });
    }
    if (method === 'DELETE') {
      deps.faults.set([]);
      return sendJson(ctx.res, 200, { rules: [] });
    }
  }
  if (path === '/_sim/audit' && method === 'GET') {
    const since = Number(ctx.query.get('sinceRv') ?? '0');
    const resource = ctx.query.get('resource');
    const items = deps.store
      .audit()
      .filter((e) => e.rv > since && (resource === null || e.resource === resource));
    return sendJson(ctx.res, 200, { resourceVersion: deps.store.resourceVersion(), items });
  }
  if (path === '/_sim/status' && method === 'GET') {
    const objects = Object.fromEntries(
      deps.store.resources
        .all()
        .map((d) => [d.key, deps.store.listPage(d.key, {}, { shared: true }).items.length]),
    );
    return sendJson(ctx.res, 200, {
      now: ctx.now().toISOString(),
      resourceVersion: deps.store.resourceVersion(),
      objects,
      faults: deps.faults.rules(),
      ...deps.status?.(),
    });
  }
  throw new StatusError(
    404,
    'NotFound',
    `no admin endpoint ${method} ${path} (try GET /_sim/status, GET|POST|DELETE /_sim/faults, GET /_sim/audit?sinceRv=N&resource=pods)`,
  );
}
