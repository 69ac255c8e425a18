/**
 * Discovery documents built from the registry: `/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>` and
 * `/version`. They are plain (legacy) JSON: client-go sees `Content-Type: application/json` instead
 * of the aggregated v2 format it asks for and falls back to per-group requests, which is what
 * kubectl does against any server without aggregated discovery. `/api/v1` lists `pods/eviction`
 * with group policy and version v1 — without that, `kubectl drain` silently deletes instead of evicting.
 */
import { allResources, apiVersionOf, type ResourceDef } from '../resources.js';
import { StatusError } from '../types.js';

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
}

/** A minor in kubectl's bundled range (1.27–1.33 on this machine), so its dispatcher runs 1.31. */
export const DEFAULT_VERSION: ServerVersion = { major: '1', minor: '31', gitVersion: 'v1.31.4' };

export function versionDocument(v: ServerVersion) {
  return {
    ...v,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.4',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const groups = (): string[] =>
  [...new Set(allResources().map((d) => d.group))].filter((g) => g !== '');

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(group: string) {
  const gv = { groupVersion: `${group}/v1`, version: 'v1' };
  return { name: group, versions: [gv], preferredVersion: gv };
}

export function apiGroupList() {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups().map(groupDocument) };
}

export function apiGroup(group: string) {
  if (!groups().includes(group))
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group) };
}

/** Subresources that only take a POST, and the kind (and group/version when not the parent's) they take. */
export const POST_ONLY_SUBRESOURCES: Readonly<
  Record<string, { kind: string; group?: string; version?: string }>
> = {
  eviction: { kind: 'Eviction', group: 'policy', version: 'v1' },
  binding: { kind: 'Binding' },
  token: { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1' },
};

function subresourceEntry(def: ResourceDef, sub: string) {
  const postOnly = POST_ONLY_SUBRESOURCES[sub];
  if (postOnly) {
    return {
      name: `${def.plural}/${sub}`,
      singularName: '',
      namespaced: true,
      ...postOnly,
      verbs: ['create'],
    };
  }
  return {
    name: `${def.plural}/${sub}`,
    singularName: '',
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: ['get', 'patch', 'update'],
  };
}

export function apiResourceList(group: string, version: string) {
  const defs = allResources().filter((d) => d.group === group && d.version === version);
  if (defs.length === 0)
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  const resources = defs.flatMap((def) => [
    {
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: VERBS,
      ...(def.shortNames.length > 0 ? { shortNames: def.shortNames } : {}),
      ...(def.categories.length > 0 ? { categories: def.categories } : {}),
    },
    ...def.subresources.map((sub) => subresourceEntry(def, sub)),
  ]);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources,
  };
}
