/**
 * ControllerRevisions (apps/v1), the history DaemonSets and StatefulSets keep of their pod templates:
 * one revision per template, named `<owner>-<hash>`, labelled `controller-revision-hash`, numbered in
 * order, holding the strategic merge patch that puts the template back (what `kubectl rollout undo`
 * applies). A template that comes back (a rollback) takes the next number, as upstream's history does;
 * revisions beyond `revisionHistoryLimit` that no pod runs are deleted, oldest first.
 */
import { R, type KObject, type Store } from '../types.js';
import { ownerReference, templateHash, templateOf } from './pod-template.js';
import { controllerRef, type LabelSelector } from './shapes.js';
import { selectorToString } from './selectors.js';

export const REVISION_HASH = 'controller-revision-hash';

export const revisionNumber = (revision: KObject): number =>
  typeof revision['revision'] === 'number' ? revision['revision'] : 0;

/** `pkg/controller/daemon/update.go` getPatch: the template, replaced whole when applied. */
export function revisionData(owner: KObject): Record<string, unknown> {
  return { spec: { template: { ...structuredClone(templateOf(owner)), $patch: 'replace' } } };
}

/** The owner's revisions, oldest first. */
export function ownedRevisions(store: Store, owner: KObject): KObject[] {
  const selector = owner.spec?.['selector'] as LabelSelector | undefined;
  const labelSelector = selector ? selectorToString(selector) : '';
  return store
    .list(R.controllerrevisions, {
      namespace: owner.metadata.namespace,
      ...(labelSelector ? { labelSelector } : {}),
    })
    .filter((r) => controllerRef(r)?.uid === owner.metadata.uid)
    .sort((a, b) => revisionNumber(a) - revisionNumber(b));
}

export interface RevisionState {
  /** The revision of the owner's current template. */
  current: KObject;
  /** Its hash: pods of the current template carry it in `controller-revision-hash`. */
  hash: string;
}

/**
 * Makes sure the owner's current template has the newest revision, and trims the history.
 * `inUse`: the `controller-revision-hash` labels of live pods (a DaemonSet's pods carry the hash, a
 * StatefulSet's the revision's name): their revisions are kept whatever the limit.
 */
export function syncRevisions(
  store: Store,
  owner: KObject,
  options: { actor: string; inUse: ReadonlySet<string>; annotations?: Record<string, string> },
): RevisionState {
  const history = ownedRevisions(store, owner);
  const hash = templateHash(templateOf(owner));
  const newest = Math.max(0, ...history.map(revisionNumber));
  const namespace = owner.metadata.namespace;
  let current = history.find((r) => r.metadata.labels?.[REVISION_HASH] === hash);
  if (current && revisionNumber(current) < newest) {
    current =
      store.mutate(
        R.controllerrevisions,
        namespace,
        current.metadata.name ?? '',
        (r) => void (r['revision'] = newest + 1),
        { actor: options.actor },
      ) ?? current;
  } else if (!current) {
    const template = templateOf(owner);
    current = store.create(
      R.controllerrevisions,
      {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: `${owner.metadata.name ?? ''}-${hash}`,
          namespace,
          labels: { ...template.metadata?.labels, [REVISION_HASH]: hash },
          ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
          ownerReferences: [ownerReference(owner)],
        },
        data: revisionData(owner),
        revision: newest + 1,
      },
      { actor: options.actor },
    );
  }
  const limit = Number(owner.spec?.['revisionHistoryLimit'] ?? 10);
  const old = history.filter(
    (r) =>
      r.metadata.name !== current.metadata.name &&
      !options.inUse.has(r.metadata.labels?.[REVISION_HASH] ?? '') &&
      !options.inUse.has(r.metadata.name ?? ''),
  );
  for (const r of old.slice(0, Math.max(0, old.length - limit))) {
    store.delete(R.controllerrevisions, namespace, r.metadata.name ?? '', { actor: options.actor });
  }
  return { current, hash };
}
