/**
 * The Eviction subresource (`POST pods/<name>/eviction`), following kube-apiserver's eviction REST
 * (k8s §2): terminal, pending and terminating pods skip PDBs; otherwise exactly one matching PDB
 * must allow a disruption (its status is maintained by the sim's disruption controller; without a
 * status the budget is computed here as a fallback). Refusals are the real 429s (with or without
 * Retry-After) and the real 500 for several PDBs; success decrements `disruptionsAllowed`, records
 * the pod in `status.disruptedPods`, marks the pod DisruptionTarget and deletes it gracefully.
 */
import { fromSelectorObject, matchesLabels, type LabelSelectorObject } from '../selectors.js';
import { forbidden, tooManyRequests } from '../status-errors.js';
import { formatTime } from '../store-meta.js';
import { R, StatusError, type DeleteOptions, type KObject, type Store } from '../types.js';
import { resourceDef } from '../resources.js';
import { checkPreconditions } from '../store.js';

type Obj = Record<string, unknown>;
const o = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};

export interface EvictionResult {
  pod: KObject;
  pdb: KObject | undefined;
  dryRun: boolean;
}

const isReady = (pod: KObject) =>
  (o(pod.status)['conditions'] as Obj[] | undefined)?.some(
    (c) => c['type'] === 'Ready' && c['status'] === 'True',
  ) ?? false;

/** Resolves an int-or-percent against `total` (percentages round up, as the controller does). */
function scaled(value: unknown, total: number): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+%$/.test(value))
    return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

/** Fallback budget when no disruption controller has written a status yet. */
export function computeBudget(pdb: KObject, pods: readonly KObject[]) {
  const selector = fromSelectorObject(o(pdb.spec)['selector'] as LabelSelectorObject | undefined);
  const matching = selector ? pods.filter((p) => matchesLabels(selector, p.metadata.labels)) : [];
  const expected = matching.length;
  const currentHealthy = matching.filter((p) => isReady(p) && !p.metadata.deletionTimestamp).length;
  const spec = o(pdb.spec);
  const maxUnavailable = scaled(spec['maxUnavailable'], expected);
  const desiredHealthy =
    maxUnavailable !== undefined
      ? Math.max(0, expected - maxUnavailable)
      : (scaled(spec['minAvailable'], expected) ?? 0);
  const disruptionsAllowed = expected <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy);
  return {
    currentHealthy,
    desiredHealthy,
    expectedPods: expected,
    disruptionsAllowed,
    observedGeneration: pdb.metadata.generation,
  };
}

export interface EvictInput {
  store: Store;
  namespace: string;
  name: string;
  body: Obj;
  dryRun: boolean;
  actor: string;
  now: () => Date;
}

export function evict(input: EvictInput): EvictionResult {
  const { store, namespace, name, body, dryRun, actor } = input;
  const apiVersion = body['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== 'policy/v1' && apiVersion !== 'policy/v1beta1') {
    throw new StatusError(
      400,
      'BadRequest',
      `the API version in the data (${JSON.stringify(apiVersion)}) does not match the expected API version (policy/v1)`,
    );
  }
  const meta = o(body['metadata']);
  if (meta['name'] !== name)
    throw new StatusError(400, 'BadRequest', 'name in URL does not match name in Eviction object');
  if (meta['namespace'] && meta['namespace'] !== namespace) {
    throw new StatusError(
      400,
      'BadRequest',
      'namespace in URL does not match namespace in Eviction object',
    );
  }
  const deleteOptions = o(body['deleteOptions']);
  const pod = store.get(R.pods, namespace, name);
  if (!pod)
    throw new StatusError(404, 'NotFound', `pods "${name}" not found`, {
      details: { name, kind: 'pods' },
    });
  const options: DeleteOptions = {
    actor,
    dryRun,
    subresource: 'eviction',
    ...(typeof deleteOptions['gracePeriodSeconds'] === 'number'
      ? { gracePeriodSeconds: deleteOptions['gracePeriodSeconds'] }
      : {}),
    ...(deleteOptions['preconditions'] ? { preconditions: o(deleteOptions['preconditions']) } : {}),
  };
  const remove = (extra: Partial<DeleteOptions> = {}, pdb?: KObject): EvictionResult => {
    const deleteOptions = { ...options, ...extra };
    if (!dryRun) {
      // `addConditionAndDeletePod`: the preconditions hold for the pod as it is now; the delete that
      // follows the DisruptionTarget update then expects the version that update wrote.
      checkPreconditions(resourceDef(R.pods)!, pod, deleteOptions.preconditions);
      const marked = store.mutate(
        R.pods,
        namespace,
        name,
        (p) => addDisruptionTarget(p, input.now()),
        {
          actor,
          subresource: 'status',
        },
      );
      if (deleteOptions.preconditions?.resourceVersion && marked) {
        deleteOptions.preconditions = {
          ...deleteOptions.preconditions,
          resourceVersion: marked.metadata.resourceVersion!,
        };
      }
    }
    store.delete(R.pods, namespace, name, deleteOptions);
    return { pod, pdb, dryRun };
  };
  const phase = o(pod.status)['phase'];
  const rvPrecondition = options.preconditions?.resourceVersion
    ? {}
    : {
        preconditions: { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion! },
      };
  if (phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp)
    return remove();
  if (phase === 'Pending' || phase === undefined) return remove(rvPrecondition);

  const pdbs = store.list(R.pdbs, { namespace }).filter((pdb) => {
    const selector = fromSelectorObject(o(pdb.spec)['selector'] as LabelSelectorObject | undefined);
    return selector !== undefined && matchesLabels(selector, pod.metadata.labels);
  });
  if (pdbs.length > 1) {
    throw new StatusError(
      500,
      '',
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
  }
  const pdb = pdbs[0];
  if (!pdb) return remove();
  const pdbName = pdb.metadata.name ?? '';
  const hasStatus = o(pdb.status)['observedGeneration'] !== undefined;
  const status: Obj = hasStatus
    ? o(pdb.status)
    : computeBudget(pdb, store.list(R.pods, { namespace }));

  if (!isReady(pod)) {
    const policy = o(pdb.spec)['unhealthyPodEvictionPolicy'];
    const healthyEnough =
      Number(status['currentHealthy'] ?? 0) >= Number(status['desiredHealthy'] ?? 0) &&
      Number(status['desiredHealthy'] ?? 0) > 0;
    if (policy === 'AlwaysAllow' || healthyEnough) return remove(rvPrecondition, pdb);
  }
  const message = "Cannot evict pod as it would violate the pod's disruption budget.";
  if (Number(status['observedGeneration'] ?? 0) < (pdb.metadata.generation ?? 0)) {
    throw tooManyRequests(message, {
      retryAfterSeconds: 10,
      causes: [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${pdbName} is still being processed by the server.`,
        },
      ],
    });
  }
  const allowed = Number(status['disruptionsAllowed'] ?? 0);
  const pdbDef = resourceDef(R.pdbs)!;
  if (allowed < 0) throw forbidden(pdbDef, pdbName, 'pdb disruptions allowed is negative');
  if (Object.keys(o(status['disruptedPods'])).length > 2000) {
    throw forbidden(
      pdbDef,
      pdbName,
      'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
  }
  if (allowed === 0) {
    throw tooManyRequests(message, {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${pdbName} needs ${Number(status['desiredHealthy'] ?? 0)} healthy pods and has ${Number(status['currentHealthy'] ?? 0)} currently`,
        },
      ],
    });
  }
  if (!dryRun) {
    store.mutate(
      R.pdbs,
      namespace,
      pdbName,
      (p) => {
        const s: Obj = { ...o(p.status), ...(hasStatus ? {} : status) };
        s['disruptionsAllowed'] = allowed - 1;
        s['disruptedPods'] = { ...o(s['disruptedPods']), [name]: formatTime(input.now()) };
        if (allowed - 1 === 0) setCondition(s, input.now());
        p.status = s;
      },
      { actor, subresource: 'status' },
    );
  }
  return remove({}, pdb);
}

function setCondition(status: Obj, now: Date): void {
  const conditions = ((status['conditions'] as Obj[] | undefined) ?? []).filter(
    (c) => c['type'] !== 'DisruptionAllowed',
  );
  conditions.push({
    type: 'DisruptionAllowed',
    status: 'False',
    reason: 'InsufficientPods',
    message: '',
    lastTransitionTime: formatTime(now),
    observedGeneration: status['observedGeneration'],
  });
  status['conditions'] = conditions;
}

function addDisruptionTarget(pod: KObject, now: Date): void {
  const status = o(pod.status);
  const conditions = ((status['conditions'] as Obj[] | undefined) ?? []).filter(
    (c) => c['type'] !== 'DisruptionTarget',
  );
  conditions.push({
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
    lastTransitionTime: formatTime(now),
  });
  pod.status = { ...status, conditions };
}
