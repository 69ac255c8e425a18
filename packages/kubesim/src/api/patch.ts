/**
 * The three patch types the apiserver accepts from kubectl and client-node: JSON merge patch
 * (RFC 7386: null deletes, lists replaced), strategic merge patch (lists of known kinds merged by
 * their merge key, plus the `$patch`/`$setElementOrder`/`$retainKeys`/`$deleteFromPrimitiveList`
 * directives kubectl apply emits) and JSON patch (RFC 6902). Server-side apply is refused with 415.
 */
import { StatusError } from '../types.js';

type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObj(patch)) return patch;
  const result: Obj = isObj(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * Merge keys of the built-in types' list fields (`patchMergeKey` tags in k8s.io/api). Lists not
 * named here (Node `spec.taints`, Pod `spec.tolerations`, container args) are replaced, as upstream.
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  addresses: 'type',
  hostAliases: 'ip',
  readinessGates: 'conditionType',
  topologySpreadConstraints: 'topologyKey',
};

function mergeList(field: string, target: Json, patch: Json[]): Json[] {
  const key = MERGE_KEYS[field];
  if (patch.some((p) => isObj(p) && p['$patch'] === 'replace')) {
    return patch.filter((p) => !(isObj(p) && p['$patch'] === 'replace'));
  }
  if (!key || !Array.isArray(target)) {
    return patch.filter((p) => !(isObj(p) && p['$patch'] === 'delete'));
  }
  const result: Json[] = [...(target as Json[])];
  for (const item of patch) {
    if (!isObj(item)) continue;
    const at = result.findIndex((t) => isObj(t) && t[key] === item[key]);
    if (item['$patch'] === 'delete') {
      if (at >= 0) result.splice(at, 1);
    } else if (at >= 0) {
      result[at] = strategicMergePatch(result[at], item);
    } else {
      result.push(strategicMergePatch({}, item));
    }
  }
  return result;
}

export function strategicMergePatch(target: Json, patch: Json): Json {
  if (!isObj(patch)) return patch;
  if (patch['$patch'] === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch['$patch'] === 'delete') return undefined;
  const result: Obj = isObj(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$setElementOrder/') || key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const gone = Array.isArray(value) ? value : [];
      const current = result[field];
      if (Array.isArray(current)) result[field] = current.filter((v) => !gone.includes(v));
      continue;
    }
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = mergeList(key, result[key], value);
    else if (isObj(value)) {
      const merged = strategicMergePatch(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else result[key] = value;
  }
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObj(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, v]) => [k, stripDirectives(v)]),
  );
}

/** kube-apiserver says only the first part; the sim adds what did not apply, for whoever reads it. */
function unprocessable(message: string): StatusError {
  return new StatusError(
    422,
    'Invalid',
    `the server rejected our request due to an error in our request: ${message}`,
  );
}

function parsePointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
    throw unprocessable(`invalid JSON pointer ${JSON.stringify(path)}`);
  }
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, parts: string[], op: string): { parent: Obj | Json[]; last: string } {
  let node = doc;
  for (const part of parts.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(part)] : isObj(node) ? node[part] : undefined;
    if (node === undefined || node === null || typeof node !== 'object') {
      throw unprocessable(
        `${op} operation does not apply: doc is missing path: "/${parts.join('/')}": missing value`,
      );
    }
  }
  return { parent: node as Obj | Json[], last: parts.at(-1) ?? '' };
}

function getAt(doc: Json, parts: string[]): Json {
  let node = doc;
  for (const part of parts) {
    node = Array.isArray(node) ? node[Number(part)] : isObj(node) ? node[part] : undefined;
  }
  return node;
}

function removeAt(doc: Json, parts: string[], op: string): Json {
  const { parent, last } = parentOf(doc, parts, op);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!(i >= 0 && i < parent.length))
      throw unprocessable(
        `${op} operation does not apply: doc is missing path: "/${parts.join('/')}": missing value`,
      );
    return parent.splice(i, 1)[0];
  }
  if (!(last in parent))
    throw unprocessable(
      `${op} operation does not apply: doc is missing path: "/${parts.join('/')}": missing value`,
    );
  const value = parent[last];
  delete parent[last];
  return value;
}

function addAt(doc: Json, parts: string[], value: Json, op: string, replace: boolean): Json {
  if (parts.length === 0) return value;
  const { parent, last } = parentOf(doc, parts, op);
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!(i >= 0 && i <= parent.length))
      throw unprocessable(
        `${op} operation does not apply: index out of range: "/${parts.join('/')}"`,
      );
    parent.splice(i, replace ? 1 : 0, value);
  } else {
    if (replace && !(last in parent))
      throw unprocessable(
        `replace operation does not apply: doc is missing key: /${parts.join('/')}: missing value`,
      );
    parent[last] = value;
  }
  return doc;
}

/** RFC 6902. The body must be an array, else the apiserver's exact decoding error (400). */
export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) {
    throw new StatusError(
      400,
      'BadRequest',
      'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    );
  }
  let doc = structuredClone(target);
  for (const raw of ops) {
    const op = isObj(raw) ? raw : {};
    const path = parsePointer(op['path']);
    const name = String(op['op']);
    switch (name) {
      case 'add':
        doc = addAt(doc, path, structuredClone(op['value']), name, false);
        break;
      case 'replace':
        doc = addAt(doc, path, structuredClone(op['value']), name, true);
        break;
      case 'remove':
        removeAt(doc, path, name);
        break;
      case 'move': {
        const value = removeAt(doc, parsePointer(op['from']), name);
        doc = addAt(doc, path, value, name, false);
        break;
      }
      case 'copy':
        doc = addAt(doc, path, structuredClone(getAt(doc, parsePointer(op['from']))), name, false);
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(op['value'])) {
          throw unprocessable(`testing value /${path.join('/')} failed`);
        }
        break;
      default:
        throw new StatusError(
          400,
          'BadRequest',
          `unexpected kind of JSON patch operation: ${JSON.stringify(op['op'])}`,
        );
    }
  }
  return doc;
}

/** 415 for anything but the three patch types (server-side apply included: the sim has no field managers). */
export function assertPatchType(contentType: string): void {
  const known: string[] = [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.strategic];
  if (!known.includes(contentType)) {
    // kube-apiserver names no accepted types here, only the code (details: {} included).
    throw new StatusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {
      details: {},
    });
  }
}

/** Applies a patch body of the given content type to a copy of `target`. */
export function applyPatch(contentType: string, target: Json, body: Json): Json {
  switch (contentType) {
    case PATCH_TYPES.json:
      return jsonPatch(target, body);
    case PATCH_TYPES.merge:
      if (!isObj(body))
        throw new StatusError(
          400,
          'BadRequest',
          'error decoding patch: a merge patch must be a JSON object',
        );
      return mergePatch(target, body);
    case PATCH_TYPES.strategic:
      if (!isObj(body))
        throw new StatusError(
          400,
          'BadRequest',
          'error decoding patch: a strategic merge patch must be a JSON object',
        );
      return strategicMergePatch(target, body);
    default:
      throw new StatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.json}, ${PATCH_TYPES.merge}, ${PATCH_TYPES.strategic}`,
      );
  }
}
