/**
 * One store's view of the resources it serves: the built-in kinds of resources.ts plus whatever its
 * CustomResourceDefinitions add while they exist. Each store has its own (two sims in one process
 * must not see each other's CRDs), and the API server routes, discovers and stores through it.
 * A custom resource has one def per served version, all under one key (`<plural>.<group>`): they
 * share one storage, and `get(key)` answers the storage version's.
 */
import { allResources, resourceDef, type ResourceDef } from './resources.js';
import { StatusError, type ResourceKey } from './types.js';

export interface ResourceRegistry {
  /** Every served resource version, built-in first. */
  all(): readonly ResourceDef[];
  /** The resource stored under `key` (for a custom resource: its storage version). */
  get(key: ResourceKey): ResourceDef | undefined;
  /** `get`, or the apiserver's 404 for a resource it does not serve. */
  require(key: ResourceKey): ResourceDef;
  /** Looks a resource up by group/version/plural, as URL paths name it. */
  byPath(group: string, version: string, plural: string): ResourceDef | undefined;
  /** Serves `defs` for `owner` (a CRD's name), replacing what it served before; storage version first. */
  serve(owner: string, defs: readonly ResourceDef[]): void;
  /** Stops serving what `owner` served. */
  withdraw(owner: string): void;
}

export function createResourceRegistry(): ResourceRegistry {
  const dynamic = new Map<string, readonly ResourceDef[]>();
  let custom: ResourceDef[] = [];
  const refresh = () => void (custom = [...dynamic.values()].flat());

  const get = (key: ResourceKey) => resourceDef(key) ?? custom.find((d) => d.key === key);
  return {
    all: () => [...allResources(), ...custom],
    get,
    require(key) {
      const def = get(key);
      if (!def) {
        throw new StatusError(
          404,
          'NotFound',
          `the server could not find the requested resource (${key})`,
        );
      }
      return def;
    },
    byPath: (group, version, plural) =>
      allResources().find(
        (d) => d.group === group && d.version === version && d.plural === plural,
      ) ?? custom.find((d) => d.group === group && d.version === version && d.plural === plural),
    serve(owner, defs) {
      dynamic.set(owner, defs);
      refresh();
    },
    withdraw(owner) {
      dynamic.delete(owner);
      refresh();
    },
  };
}
