/**
 * The Job controller: runs pods until `completions` succeeded, counts failures (a pod that fails, or
 * is deleted while running) against `backoffLimit` with an exponential backoff between retries, fails
 * the Job on `activeDeadlineSeconds` or a FailJob `podFailurePolicy` rule, and deletes finished Jobs
 * after `ttlSecondsAfterFinished`. Status: active, ready, succeeded, failed, terminating, startTime,
 * completionTime and the Complete / Failed conditions (with SuccessCriteriaMet / FailureTarget).
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { failureAction } from './job-failure-policy.js';
import { podFromTemplate } from './pod-template.js';
import { ownedPods } from './replicaset.js';
import {
  controllerRef,
  findCondition,
  isPodReady,
  isPodTerminal,
  keyOf,
  podStatus,
  setCondition,
  splitKey,
  type Condition,
} from './shapes.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/job';
const MAX_BACKOFF_MS = 6 * 60_000;

interface Tally {
  counted: Set<string>;
  succeeded: number;
  failed: number;
  lastFailureAt?: number;
  failJob?: { reason: string; message: string };
}

const isFinished = (job: KObject): boolean =>
  ['Complete', 'Failed'].some(
    (type) =>
      findCondition(job.status?.['conditions'] as Condition[] | undefined, type)?.status === 'True',
  );

export function startJobController(ctx: ControllerContext): Stop {
  const { store, clock, delays } = ctx;
  const record = recorderFor(store, () => clock.now(), 'job-controller', ACTOR);
  const tallies = new Map<string, Tally>();

  const tallyOf = (job: KObject): Tally => {
    const uid = job.metadata.uid ?? '';
    let tally = tallies.get(uid);
    if (!tally) {
      tally = {
        counted: new Set(),
        succeeded: Number(job.status?.['succeeded'] ?? 0),
        failed: Number(job.status?.['failed'] ?? 0),
      };
      tallies.set(uid, tally);
    }
    return tally;
  };

  const countFailure = (job: KObject, tally: Tally, pod: KObject, now: number): void => {
    const action = failureAction(job, pod);
    if (action === 'Ignore') return;
    if (action === 'FailJob') {
      tally.failJob ??= {
        reason: 'PodFailurePolicy',
        message: `Pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} failed and matched a FailJob rule`,
      };
    }
    tally.failed++;
    tally.lastFailureAt = now;
  };

  const ttl = (job: KObject, key: string, now: number): void => {
    const seconds = job.spec?.['ttlSecondsAfterFinished'];
    if (typeof seconds !== 'number') return;
    const conditions = (job.status?.['conditions'] ?? []) as Condition[];
    const finishedAt = conditions.find(
      (c) => c.type === 'Complete' || c.type === 'Failed',
    )?.lastTransitionTime;
    const due = Date.parse(finishedAt ?? new Date(now).toISOString()) + seconds * 1_000;
    if (due > now) return queue.addAfter(key, due - now);
    const [namespace, name] = splitKey(key);
    store.delete(R.jobs, namespace, name, {
      actor: 'controller/ttl-after-finished',
      propagationPolicy: 'Background',
    });
  };

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const job = store.get(R.jobs, namespace, name);
    if (!job || job.metadata.deletionTimestamp) return;
    const now = clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    if (isFinished(job)) return ttl(job, key, now);
    if (job.spec?.['suspend'] === true) return;
    const tally = tallyOf(job);
    const pods = ownedPods(ctx, job);
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? '';
      if (!isPodTerminal(pod) || tally.counted.has(uid)) continue;
      tally.counted.add(uid);
      if (podStatus(pod).phase === 'Succeeded') tally.succeeded++;
      else countFailure(job, tally, pod, now);
    }
    const active = pods.filter((p) => !isPodTerminal(p) && !p.metadata.deletionTimestamp);
    const terminating = pods.filter((p) => !isPodTerminal(p) && p.metadata.deletionTimestamp);
    const spec = job.spec ?? {};
    const completions = Number(spec['completions'] ?? 1);
    const parallelism = Number(spec['parallelism'] ?? 1);
    const backoffLimit = Number(spec['backoffLimit'] ?? 6);
    const startTime = (job.status?.['startTime'] as string | undefined) ?? nowIso;
    const deadline = spec['activeDeadlineSeconds'];

    let outcome: { type: 'Complete' | 'Failed'; reason: string; message: string } | undefined;
    if (tally.failJob) outcome = { type: 'Failed', ...tally.failJob };
    else if (tally.failed > backoffLimit) {
      outcome = {
        type: 'Failed',
        reason: 'BackoffLimitExceeded',
        message: 'Job has reached the specified backoff limit',
      };
    } else if (typeof deadline === 'number' && now >= Date.parse(startTime) + deadline * 1_000) {
      outcome = {
        type: 'Failed',
        reason: 'DeadlineExceeded',
        message: 'Job was active longer than specified deadline',
      };
    } else if (tally.succeeded >= completions) {
      outcome = {
        type: 'Complete',
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
      };
    }

    let created = 0;
    if (outcome?.type === 'Failed') {
      for (const pod of active) {
        store.delete(R.pods, namespace, pod.metadata.name ?? '', { actor: ACTOR });
        record({
          regarding: job,
          reason: 'SuccessfulDelete',
          message: `Deleted pod: ${pod.metadata.name ?? ''}`,
        });
      }
    } else if (!outcome) {
      const want = Math.min(parallelism, completions - tally.succeeded) - active.length;
      const backoff =
        tally.failed > 0
          ? Math.min(MAX_BACKOFF_MS, delays.jobBackoffMs * 2 ** (tally.failed - 1))
          : 0;
      const waitMs = tally.lastFailureAt === undefined ? 0 : tally.lastFailureAt + backoff - now;
      if (want > 0 && waitMs > 0) queue.addAfter(key, waitMs);
      else {
        for (; created < want; created++) {
          const pod = store.create(R.pods, podFromTemplate(job), { actor: ACTOR });
          record({
            regarding: job,
            reason: 'SuccessfulCreate',
            message: `Created pod: ${pod.metadata.name ?? ''}`,
          });
        }
      }
      if (typeof deadline === 'number')
        queue.addAfter(key, Date.parse(startTime) + deadline * 1_000 - now);
    }

    store.mutate(
      R.jobs,
      namespace,
      name,
      (object) => {
        const status = (object.status ??= {}) as Record<string, unknown> & {
          conditions?: Condition[];
        };
        Object.assign(status, {
          startTime,
          active: outcome ? 0 : active.length + created,
          ready: outcome ? 0 : active.filter(isPodReady).length,
          succeeded: tally.succeeded,
          failed: tally.failed,
          terminating: terminating.length,
          uncountedTerminatedPods: {},
        });
        if (!outcome) return;
        const first = outcome.type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget';
        for (const type of [first, outcome.type]) {
          setCondition(
            status,
            {
              type,
              status: 'True',
              reason: outcome.reason,
              message: outcome.message,
              lastProbeTime: nowIso,
            },
            nowIso,
          );
        }
        if (outcome.type === 'Complete') status['completionTime'] = nowIso;
      },
      { actor: ACTOR, subresource: 'status' },
    );
    if (outcome) {
      record(
        outcome.type === 'Complete'
          ? { regarding: job, reason: 'Completed', message: 'Job completed' }
          : { regarding: job, reason: outcome.reason, message: outcome.message, type: 'Warning' },
      );
      const finished = store.get(R.jobs, namespace, name);
      if (finished) ttl(finished, key, now);
    }
  };

  const queue = createWorkQueue({ name: 'job', clock, log: ctx.log, reconcile });
  const jobKeyOf = (pod: KObject): string | undefined => {
    const ref = controllerRef(pod);
    return ref?.kind === 'Job' ? `${pod.metadata.namespace ?? ''}/${ref.name}` : undefined;
  };
  const stops = [
    store.watch(R.jobs, (e) => {
      if (e.type === 'DELETED') tallies.delete(e.object.metadata.uid ?? '');
      else queue.add(keyOf(e.object));
    }),
    store.watch(R.pods, (e) => {
      const key = jobKeyOf(e.object);
      if (!key) return;
      // A pod removed before it finished (evicted, node lost) failed, as far as the Job is concerned.
      const ref = controllerRef(e.object);
      const tally = ref && tallies.get(ref.uid);
      const uid = e.object.metadata.uid ?? '';
      if (e.type === 'DELETED' && tally && !tally.counted.has(uid)) {
        tally.counted.add(uid);
        if (podStatus(e.object).phase === 'Succeeded') tally.succeeded++;
        else {
          const job = store.get(R.jobs, e.object.metadata.namespace, ref.name);
          if (job && !isFinished(job)) countFailure(job, tally, e.object, clock.now().getTime());
        }
      }
      queue.add(key);
    }),
  ];
  for (const job of store.list(R.jobs)) queue.add(keyOf(job));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
