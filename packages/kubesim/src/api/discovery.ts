/**
 * Discovery documents built from the registry: `/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>` and
 * `/version`. They are plain (legacy) JSON: client-go sees `Content-Type: application/json` instead
 * of the aggregated v2 format it asks for and falls back to per-group requests, which is what
 * kubectl does against any server without aggregated discovery. `/api/v1` lists `pods/eviction`
 * with group policy and version v1 — without that, `kubectl drain` silently deletes instead of evicting.
 */
import type { ResourceRegistry } from '../resource-registry.js';
import { apiVersionOf, type ResourceDef } from '../resources.js';
import { StatusError } from '../types.js';
import { POD_STREAMS } from './pod-streams.js';

export interface ServerVersion {
  major: string;
  minor: string;
  /** KEP-4330 (1.32+): the version it emulates and the oldest it stays compatible with. */
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
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

/** Kubernetes' version order (v1 > v1beta2 > v1beta1 > v1alpha1 > other names): the first is preferred. */
function versionRank(v: string): [number, number, number, string] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return [3, 0, 0, v];
  const level = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
  return [level, -Number(m[1]), -Number(m[3] ?? 0), v];
}

const byRank = (a: string, b: string): number => {
  const [x, y] = [versionRank(a), versionRank(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x[3].localeCompare(y[3]);
};

/** Each named group with its versions, preferred first. */
function groups(resources: ResourceRegistry): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of resources.all()) {
    if (d.group === '') continue;
    const versions = out.get(d.group) ?? [];
    if (!versions.includes(d.version)) versions.push(d.version);
    out.set(d.group, versions.sort(byRank));
  }
  return out;
}

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(group: string, versions: readonly string[]) {
  const gvs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

export function apiGroupList(resources: ResourceRegistry) {
  const groupDocuments = [...groups(resources)].map(([g, v]) => groupDocument(g, v));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupDocuments };
}

export function apiGroup(group: string, resources: ResourceRegistry) {
  const versions = groups(resources).get(group);
  if (!versions)
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group, versions) };
}

/** Subresources that only take a POST, and the kind (and group/version when not the parent's) they take. */
export const POST_ONLY_SUBRESOURCES: Readonly<
  Record<string, { kind: string; group?: string; version?: string }>
> = {
  eviction: { kind: 'Eviction', group: 'policy', version: 'v1' },
  binding: { kind: 'Binding' },
  token: { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1' },
};

/** Subresources read and written as another kind than their parent's. */
const OTHER_KIND_SUBRESOURCES: Readonly<
  Record<string, { kind: string; group: string; version: string }>
> = {
  scale: { kind: 'Scale', group: 'autoscaling', version: 'v1' },
};

function subresourceEntry(def: ResourceDef, sub: string) {
  const stream = POD_STREAMS[sub];
  if (stream)
    return { name: `${def.plural}/${sub}`, singularName: '', namespaced: true, ...stream };
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
    ...OTHER_KIND_SUBRESOURCES[sub],
    verbs: ['get', 'patch', 'update'],
  };
}

export function apiResourceList(group: string, version: string, registry: ResourceRegistry) {
  const defs = registry.all().filter((d) => d.group === group && d.version === version);
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
