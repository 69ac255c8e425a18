/**
 * One page of a list: label and field selection, an index shortcut for indexed `field=value`
 * selections, and `limit`/`continue` pagination. The continue token carries the resourceVersion the
 * list started at and the last key served, so the next page is a binary search away; a token older
 * than the store's retained history is 410 Expired, as a compacted etcd answers.
 */
import { fieldGetter, type ResourceDef } from './resources.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.js';
import type { FieldRequirement } from './selectors.js';
import { badRequest, expired } from './status-errors.js';
import type { SortedObjects } from './store-index.js';
import { clone } from './store-meta.js';
import type { KObject, ListOptions, ListPage } from './types.js';

export interface ListState {
  /** The store's current resourceVersion. */
  rv: number;
  /** Continue tokens from before this resourceVersion are expired. */
  compactedRv: number;
  /** Hand out the stored objects instead of copies (serializers only read them). */
  shared?: boolean;
}

export function listObjects(
  b: SortedObjects,
  def: ResourceDef,
  o: ListOptions,
  state: ListState,
): ListPage {
  const labels = parseLabelSelector(o.labelSelector);
  const fields = parseFieldSelector(o.fieldSelector, (f) => fieldGetter(def, f) !== undefined);
  const getters = new Map(fields.map((f) => [f.field, fieldGetter(def, f.field)!]));
  let afterKey: string | undefined;
  let snapshot = state.rv;
  if (o.continue) ({ afterKey, snapshot } = decodeContinue(o.continue, state.compactedRv));
  const prefix = def.namespaced && o.namespace ? `${o.namespace}/` : '';
  const limit = o.limit && o.limit > 0 ? o.limit : Infinity;
  const items: KObject[] = [];
  let lastKey = '';
  // Without selectors the apiserver also tells how many items follow (remainingItemCount).
  const countRest = labels.length === 0 && fields.length === 0;
  let rest = 0;
  for (const [key, object] of candidates(b, fields, prefix, afterKey)) {
    if (!matchesLabels(labels, object.metadata.labels)) continue;
    if (!matchesFields(fields, (f) => getters.get(f)?.(object))) continue;
    if (items.length >= limit) {
      rest++;
      if (!countRest) break;
      continue;
    }
    items.push(state.shared ? object : clone(object));
    lastKey = key;
  }
  const page: ListPage = { items, resourceVersion: String(state.rv) };
  if (rest > 0) {
    page.continue = encodeContinue(snapshot, lastKey);
    if (countRest) page.remainingItemCount = rest;
  }
  return page;
}

/** An indexed `field=value` requirement narrows the scan to that index's keys (in key order). */
function* candidates(
  b: SortedObjects,
  fields: readonly FieldRequirement[],
  prefix: string,
  afterKey: string | undefined,
): Generator<[string, KObject]> {
  const indexed = fields.find((f) => !f.negate && b.hasIndex(f.field));
  if (!indexed) {
    yield* b.scan({ prefix, ...(afterKey === undefined ? {} : { afterKey }) });
    return;
  }
  for (const key of b.indexed(indexed.field, indexed.value)) {
    if (!key.startsWith(prefix) || (afterKey !== undefined && key <= afterKey)) continue;
    const object = b.get(key);
    if (object) yield [key, object];
  }
}

/** The token is opaque to clients: the RV the list started at and the last key served. */
function encodeContinue(rv: number, key: string): string {
  return Buffer.from(JSON.stringify({ v: 1, rv, key })).toString('base64url');
}

function decodeContinue(
  token: string,
  compactedRv: number,
): { afterKey: string; snapshot: number } {
  let parsed: { rv?: unknown; key?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw badRequest(
      `continue key is not valid: ${JSON.stringify(token)} is not a token from a previous list`,
    );
  }
  if (typeof parsed.rv !== 'number' || typeof parsed.key !== 'string') {
    throw badRequest(
      `continue key is not valid: ${JSON.stringify(token)} is not a token from a previous list`,
    );
  }
  if (parsed.rv < compactedRv) {
    throw expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  }
  return { afterKey: parsed.key, snapshot: parsed.rv };
}
