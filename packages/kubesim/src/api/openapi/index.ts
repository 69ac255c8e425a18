/**
 * `/openapi/v2` and `/openapi/v3[/<group-version>]` as kube-apiserver serves them, so that kubectl
 * apply, diff and explain work: the real documents for the built-in kinds (documents.ts) and
 * documents built from the CRDs for custom resources (custom-resources.ts). kubectl 1.27 and 1.28
 * read v2 in protobuf only; every kubectl reads v3 as JSON, each document at the URL (with its
 * content hash) the v3 index names.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { apiVersionOf, type ResourceDef } from '../../resources.js';
import { StatusError, type Store } from '../../types.js';
import { sendJson } from '../http.js';
import { customResourceDocument } from './custom-resources.js';
import { openApiDocuments, type Json } from './documents.js';

/** What kubectl 1.27/1.28 send; the answer's type spells the version with a dot, as upstream. */
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2';
const V2_PROTOBUF_ANSWER = `${V2_PROTOBUF}.v1.0+protobuf`;

const gvPath = (d: ResourceDef) =>
  d.group === '' ? `api/${d.version}` : `apis/${apiVersionOf(d)}`;

/** Every group version's document: the stored one for built-in kinds, one per CRD group version. */
function v3Documents(store: Store): Map<string, Json> {
  const stored = openApiDocuments().v3;
  const out = new Map<string, Json>();
  const custom = new Map<string, ResourceDef[]>();
  for (const d of store.resources.all()) {
    const path = gvPath(d);
    if (d.custom) custom.set(path, [...(custom.get(path) ?? []), d]);
    else if (stored[path]) out.set(path, stored[path]);
  }
  for (const [path, defs] of custom) out.set(path, customResourceDocument(store, defs));
  return out;
}

const hashes = new WeakMap<Json, string>();
function hashOf(doc: Json): string {
  let hash = hashes.get(doc);
  if (!hash) {
    hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
    hashes.set(doc, hash);
  }
  return hash;
}

const notFound = () =>
  new StatusError(404, 'NotFound', 'the server could not find the requested resource');

/** Answers `/openapi/<path>` (`v2`, `v3`, `v3/apis/apps/v1`). */
export function serveOpenApi(res: ServerResponse, path: string, store: Store): void {
  if (path === 'v2') {
    const docs = openApiDocuments();
    if ((res.req.headers.accept ?? '').includes(V2_PROTOBUF)) {
      res.writeHead(200, {
        'Content-Type': V2_PROTOBUF_ANSWER,
        'Content-Length': docs.v2Protobuf.length,
      });
      res.end(docs.v2Protobuf);
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': docs.v2Json.length,
    });
    res.end(docs.v2Json);
    return;
  }
  const documents = v3Documents(store);
  if (path === 'v3') {
    const paths = Object.fromEntries(
      [...documents].map(([gv, doc]) => [
        gv,
        { serverRelativeURL: `/openapi/v3/${gv}?hash=${hashOf(doc)}` },
      ]),
    );
    return sendJson(res, 200, { paths });
  }
  const doc = path.startsWith('v3/') ? documents.get(path.slice(3)) : undefined;
  if (!doc) throw notFound();
  sendJson(res, 200, doc);
}
