/**
 * Server-side apply: a PATCH with `application/apply-patch+yaml` (YAML or JSON) and a
 * `fieldManager`. The configuration is merged into the live object by the kind's schema, or becomes
 * the object when there is none; fields its manager applied before and no longer does go, unless
 * someone else owns them; changing a field another manager owns is a 409 naming every conflict,
 * unless `force`. What is stored goes through the same validation and admission as any write.
 */
import { parse } from 'yaml';
import { applyConfig } from '../managed-fields/index.js';
import { apiVersionOf } from '../resources.js';
import { badRequest, invalidOptions, notFound } from '../status-errors.js';
import type { KObject } from '../types.js';
import { admitOption } from './admission-hook.js';
import { decodeCustomResource } from './crd-requests.js';
import { fieldWrite } from './field-manager.js';
import type { HandlerDeps, Target } from './handlers.js';
import { dryRunOf, queryFlag, readBody, sendObject, type RequestContext } from './http.js';
import { asServed } from './served-version.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The configuration: YAML 1.1 as sigs.k8s.io/yaml reads it (JSON is YAML too). */
function configOf(body: Buffer): Json {
  let parsed: unknown;
  try {
    parsed = parse(body.toString('utf8'), { version: '1.1' });
  } catch (error) {
    throw badRequest(`error decoding YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!isObj(parsed)) throw badRequest('the apply configuration must be an object');
  return parsed;
}

export async function handleApply(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  const name = t.name ?? '';
  const manager = ctx.query.get('fieldManager') ?? '';
  if (manager === '') {
    throw invalidOptions('PatchOptions', {
      reason: 'FieldValueRequired',
      message: 'Required value: is required for apply patch',
      field: 'fieldManager',
    });
  }
  const config = configOf(await readBody(ctx.req));
  const expected = apiVersionOf(t.def);
  if (config['apiVersion'] !== expected) {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${JSON.stringify(config['apiVersion'] ?? '').replace(/^"|"$/g, '')}, expected: ${expected}`,
    );
  }
  const meta = isObj(config['metadata']) ? config['metadata'] : {};
  if (meta['managedFields'] !== undefined) throw badRequest('metadata.managedFields must be nil');
  if (meta['name'] !== undefined && meta['name'] !== name) {
    throw badRequest(
      `the name of the object (${JSON.stringify(meta['name']).replace(/^"|"$/g, '')}) does not match the name on the URL (${name})`,
    );
  }
  const live = deps.store.get(t.def.key, t.namespace, name);
  const write = fieldWrite(ctx, t, deps.store, manager);
  const applied = applyConfig(live, config, write, queryFlag(ctx.query, 'force'));
  const object = applied.object as KObject;
  object.apiVersion = expected;
  object.kind = t.def.kind;
  object.metadata = { ...(isObj(object.metadata) ? object.metadata : {}), name };
  if (t.def.namespaced) object.metadata.namespace = t.namespace;
  object.metadata.managedFields = applied.managedFields;
  const decoded = decodeCustomResource(ctx, t, object, 'PatchOptions', live !== undefined);
  const dryRun = dryRunOf(ctx.query, undefined, 'PatchOptions');
  const options = {
    actor: ctx.actor,
    verb: 'patch' as const,
    dryRun,
    ...(t.subresource ? { subresource: t.subresource } : {}),
    ...admitOption(ctx, t, deps.admission, dryRun),
    // The store keeps what the apply computed (defaults it adds on create are the applier's too).
    track: (next: KObject) => void (next.metadata.managedFields = applied.managedFields),
  };
  if (!live) {
    if (t.subresource) throw notFound(t.def, name);
    sendObject(ctx.res, 201, asServed(t.def, deps.store.create(t.def.key, decoded, options)));
    return;
  }
  decoded.metadata.resourceVersion = live.metadata.resourceVersion;
  sendObject(ctx.res, 200, asServed(t.def, deps.store.update(t.def.key, decoded, options)));
}
