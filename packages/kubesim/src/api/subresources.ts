/**
 * The POST-only subresources: `pods/eviction` (PDB-aware deletion, see eviction.ts), `pods/binding`
 * (what a scheduler posts to put a pod on a node; a pod is bound once) and `serviceaccounts/token`
 * (the TokenRequest API, see service-account-tokens.ts).
 */
import { conflict, notFound } from '../status-errors.js';
import { R, StatusError } from '../types.js';
import { evict } from './eviction.js';
import type { HandlerDeps, Target } from './handlers.js';
import { dryRunOf, readObject, sendObject, successStatus, type RequestContext } from './http.js';
import { admitSubresourceCreate } from './admission-hook.js';

function podName(t: Target): string {
  if (t.name === undefined)
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
    );
  return t.name;
}

export async function handleEviction(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  const body = await readObject(ctx);
  const deleteOptions = (body['deleteOptions'] ?? {}) as Record<string, unknown>;
  const dryRun = dryRunOf(ctx.query, deleteOptions['dryRun']);
  // Admission's request.dryRun is the request's own (CreateOptions), as upstream's.
  admitSubresourceCreate(ctx, t, deps.admission, body, dryRunOf(ctx.query));
  const result = evict({
    store: deps.store,
    namespace: t.namespace ?? '',
    name: podName(t),
    body,
    dryRun,
    actor: ctx.actor,
    now: ctx.now,
  });
  deps.onEviction?.(result);
  sendObject(ctx.res, 201, successStatus(201));
}

/** `pods/<name>/binding`: what a scheduler posts; a pod can be bound once. */
export async function handleBinding(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  const name = podName(t);
  const body = await readObject(ctx);
  const node = (body['target'] as { name?: unknown } | undefined)?.name;
  if (typeof node !== 'string' || node === '')
    throw new StatusError(
      422,
      'Invalid',
      `Binding "${name}" is invalid: target.name: Required value`,
    );
  const pod = deps.store.get(R.pods, t.namespace, name);
  if (!pod) throw notFound(t.def, name);
  admitSubresourceCreate(ctx, t, deps.admission, body, dryRunOf(ctx.query));
  const bound = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (bound) throw conflict(t.def, name, `pod ${name} is already assigned to node "${bound}"`);
  if (!dryRunOf(ctx.query)) {
    deps.store.mutate(R.pods, t.namespace, name, (p) => (p.spec = { ...p.spec, nodeName: node }), {
      actor: ctx.actor,
      subresource: 'binding',
    });
  }
  sendObject(ctx.res, 201, successStatus(201));
}

/** `serviceaccounts/<name>/token`: mint a token; nothing is stored, so nothing is audited. */
export async function handleTokenRequest(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  const body = await readObject(ctx);
  if (!deps.tokens)
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  admitSubresourceCreate(ctx, t, deps.admission, body, dryRunOf(ctx.query));
  const answer = deps.tokens.issue({
    namespace: t.namespace ?? '',
    serviceAccount: podName(t),
    body,
    requester: ctx.user,
  });
  sendObject(ctx.res, 201, answer);
}
