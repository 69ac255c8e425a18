/**
 * What apiextensions-apiserver's controllers do with a CustomResourceDefinition, done as the store
 * writes it (its watch delivers synchronously, so the CR is served before the write's answer is
 * sent): serve its versions (resource-registry.ts), accept its names unless another CRD already
 * has them (NamesAccepted, then Established, with `acceptedNames`), and when it is deleted mark it
 * Terminating, delete its objects and release the cleanup finalizer so the CRD goes too.
 */
import { customResourceDefs } from './crd-defs.js';
import { CRD_CLEANUP_FINALIZER, crdSpec } from './crd-validation.js';
import type { ResourceRegistry } from './resource-registry.js';
import { formatTime } from './store-meta.js';
import type { ResourceDef } from './resources.js';
import type { RestoredObjects } from './store.js';
import type { KObject, Store } from './types.js';

export const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';
const ACTOR = 'controller/apiextensions';

type Condition = Record<string, unknown>;

function withCondition(conditions: Condition[], next: Condition, now: Date): Condition[] {
  const old = conditions.find((c) => c['type'] === next['type']);
  const same = old && old['status'] === next['status'];
  const merged = {
    ...next,
    lastTransitionTime: same ? old['lastTransitionTime'] : formatTime(now),
  };
  return [...conditions.filter((c) => c['type'] !== next['type']), merged];
}

/** The CRD that already holds one of `crd`'s names in its group, if any. */
function conflictOf(store: Store, crd: KObject): string | undefined {
  const s = crdSpec(crd);
  const mine = new Set([s.plural, s.singular, ...s.shortNames].filter((n) => n !== ''));
  for (const other of store.list(CRDS)) {
    if (other.metadata.name === crd.metadata.name) continue;
    const o = crdSpec(other);
    if (o.group !== s.group) continue;
    const theirs = [o.plural, o.singular, ...o.shortNames];
    const clash = theirs.find((n) => mine.has(n));
    if (clash) return `"${clash}" is already in use`;
    if (o.kind === s.kind) return `"${s.kind}" is already in use`;
  }
  return undefined;
}

/**
 * Puts saved objects back (a restart from saved state): the CRDs first, each served again if its
 * names were accepted, then every object whose resource is served. Returns the resourceVersion to
 * continue from. An object of a resource no longer served (its CRD went) is dropped, as its bucket
 * would have been emptied.
 */
export function restoreObjects(
  saved: RestoredObjects,
  registry: ResourceRegistry,
  put: (def: ResourceDef, object: KObject) => void,
): number {
  const crds = saved.objects.filter((o) => o.resource === CRDS);
  for (const { object } of crds) {
    put(registry.require(CRDS), object);
    const accepted = (object.status?.['conditions'] as Condition[] | undefined)?.some(
      (c) => c['type'] === 'NamesAccepted' && c['status'] === 'True',
    );
    if (accepted && !object.metadata.deletionTimestamp)
      registry.serve(object.metadata.name ?? '', customResourceDefs(object));
  }
  for (const { resource, object } of saved.objects) {
    if (resource === CRDS) continue;
    const def = registry.get(resource);
    if (def) put(def, object);
  }
  return saved.resourceVersion;
}

export function attachCustomResources(
  store: Store,
  registry: ResourceRegistry,
  now: () => Date,
): void {
  const writeStatus = (name: string, status: (current: KObject) => Record<string, unknown>) =>
    store.mutate(CRDS, undefined, name, (crd) => void (crd.status = status(crd)), {
      actor: ACTOR,
      subresource: 'status',
    });

  function establish(crd: KObject): void {
    const name = crd.metadata.name ?? '';
    const conflict = conflictOf(store, crd);
    const s = crdSpec(crd);
    if (conflict) {
      registry.withdraw(name);
    } else {
      registry.serve(name, customResourceDefs(crd));
    }
    writeStatus(name, (current) => {
      const status = { ...current.status };
      let conditions = Array.isArray(status['conditions'])
        ? (status['conditions'] as Condition[])
        : [];
      conditions = withCondition(
        conditions,
        conflict
          ? { type: 'NamesAccepted', status: 'False', reason: 'NameConflict', message: conflict }
          : {
              type: 'NamesAccepted',
              status: 'True',
              reason: 'NoConflicts',
              message: 'no conflicts found',
            },
        now(),
      );
      if (!conflict) {
        conditions = withCondition(
          conditions,
          {
            type: 'Established',
            status: 'True',
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
          },
          now(),
        );
        status['acceptedNames'] = {
          kind: s.kind,
          listKind: s.listKind,
          plural: s.plural,
          singular: s.singular,
          ...(s.shortNames.length > 0 ? { shortNames: s.shortNames } : {}),
          ...(s.categories.length > 0 ? { categories: s.categories } : {}),
        };
      }
      status['conditions'] = conditions;
      return status;
    });
  }

  function terminate(crd: KObject): void {
    const name = crd.metadata.name ?? '';
    const def = registry.get(`${crdSpec(crd).plural}.${crdSpec(crd).group}`);
    writeStatus(name, (current) => ({
      ...current.status,
      conditions: withCondition(
        Array.isArray(current.status?.['conditions'])
          ? (current.status['conditions'] as Condition[])
          : [],
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        },
        now(),
      ),
    }));
    if (def?.custom?.crd === name) {
      for (const o of store.list(def.key)) {
        store.delete(def.key, o.metadata.namespace, o.metadata.name ?? '', { actor: ACTOR });
      }
    }
    registry.withdraw(name);
    store.mutate(
      CRDS,
      undefined,
      name,
      (c) => {
        c.metadata.finalizers = (c.metadata.finalizers ?? []).filter(
          (f) => f !== CRD_CLEANUP_FINALIZER,
        );
      },
      { actor: ACTOR },
    );
  }

  /** The generation each CRD was last served at: status writes (ours included) change nothing served. */
  const served = new Map<string, number | undefined>();
  store.watch(CRDS, (event) => {
    const name = event.object.metadata.name ?? '';
    // Act on the stored CRD, not the event's copy: nested writes may have moved it on since.
    const crd = store.get(CRDS, undefined, name);
    if (!crd) {
      served.delete(name);
      return registry.withdraw(name);
    }
    if (crd.metadata.deletionTimestamp) {
      if ((crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) terminate(crd);
      return;
    }
    if (served.has(name) && served.get(name) === crd.metadata.generation) return;
    served.set(name, crd.metadata.generation);
    establish(crd);
  });
}
