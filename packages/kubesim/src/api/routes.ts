/**
 * Turns a request path into what it addresses: a discovery document, a collection, an object or an
 * object's subresource. Trailing slashes are tolerated (generated clients spell some of them).
 */
import type { ResourceRegistry } from '../resource-registry.js';
import type { ResourceDef } from '../resources.js';
import { StatusError } from '../types.js';

export type Route =
  | { type: 'version' | 'health' | 'apis' | 'api' }
  | { type: 'openapi'; path: string }
  | { type: 'apiVersion'; group: string; version: string }
  | { type: 'apiGroup'; group: string }
  | {
      type: 'resource';
      def: ResourceDef;
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
    };

const notFound = () =>
  new StatusError(404, 'NotFound', 'the server could not find the requested resource');

export function parseRoute(pathname: string, resources: ResourceRegistry): Route {
  const segs = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  const [first, second, third] = segs;
  if (segs.length === 1 && first === 'version') return { type: 'version' };
  if (segs.length >= 1 && ['healthz', 'readyz', 'livez'].includes(first ?? ''))
    return { type: 'health' };
  if (first === 'openapi') return { type: 'openapi', path: segs.slice(1).join('/') };
  let group: string;
  let version: string;
  let rest: string[];
  if (first === 'api') {
    if (segs.length === 1) return { type: 'api' };
    if (second !== 'v1') throw notFound();
    group = '';
    version = 'v1';
    rest = segs.slice(2);
  } else if (first === 'apis') {
    if (segs.length === 1) return { type: 'apis' };
    if (segs.length === 2) return { type: 'apiGroup', group: second ?? '' };
    group = second ?? '';
    version = third ?? '';
    rest = segs.slice(3);
  } else {
    throw notFound();
  }
  if (rest.length === 0) return { type: 'apiVersion', group, version };
  let namespace: string | undefined;
  // `namespaces/<ns>/<plural>/…` addresses namespaced objects; `namespaces/<name>[/status]` a Namespace.
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !['status', 'finalize'].includes(rest[2] ?? '')
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, extra] = rest;
  const def = resources.byPath(group, version, plural ?? '');
  if (!def || extra !== undefined) throw notFound();
  if (subresource !== undefined && !def.subresources.includes(subresource)) throw notFound();
  if (def.namespaced && name !== undefined && namespace === undefined) throw notFound();
  return {
    type: 'resource',
    def,
    namespace: def.namespaced ? namespace : undefined,
    name,
    subresource,
  };
}
