/**
 * The CronJob controller (`pkg/controller/cronjob`, v2) on the sim's clock: at each scheduled time
 * (the most recent one missed, never a backlog; none older than `startingDeadlineSeconds`) a Job
 * named `<cronjob>-<scheduled unix minutes>` from `jobTemplate`, owned by the CronJob and annotated
 * with its scheduled time; `concurrencyPolicy` Forbid skips a run while one is active and Replace
 * deletes the active ones first. The status lists the active Jobs, `lastScheduleTime` and
 * `lastSuccessfulTime`; finished Jobs beyond the history limits are deleted, oldest first. Events
 * use the real controller's reasons.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { formatTime } from '../store-meta.js';
import { nextCronTime, parseCronSchedule, type CronSchedule } from '../cron-schedule.js';
import { ownerReference } from './pod-template.js';
import { controllerRef, findCondition, keyOf, splitKey, type Condition } from './shapes.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/cronjob';
export const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** Upstream stops counting missed start times here and says so. */
const MAX_MISSED = 100;

type Obj = Record<string, unknown>;
interface Ref {
  name?: string;
  uid?: string;
}

/** 'Complete' or 'Failed' once the Job is finished. */
export function jobFinished(job: KObject): 'Complete' | 'Failed' | undefined {
  const conditions = job.status?.['conditions'] as Condition[] | undefined;
  if (findCondition(conditions, 'Complete')?.status === 'True') return 'Complete';
  if (findCondition(conditions, 'Failed')?.status === 'True') return 'Failed';
  return undefined;
}

const HOUR = 3_600_000;

/**
 * The most recent scheduled time in (`since`, `now`], and how many there were (counted up to
 * `MAX_MISSED` + 1). The most recent one is looked for in a widening window before `now`, so a
 * CronJob that missed a year of minutes does not walk through all of them.
 */
function mostRecent(
  schedule: CronSchedule,
  since: number,
  now: number,
  zone?: string,
): { last?: number; missed: number } {
  let missed = 0;
  for (let t = nextCronTime(schedule, since, zone); t !== undefined && t <= now;) {
    if (++missed > MAX_MISSED) break;
    t = nextCronTime(schedule, t, zone);
  }
  if (missed === 0) return { missed };
  for (const back of [HOUR, 24 * HOUR, 31 * 24 * HOUR, Infinity]) {
    let last: number | undefined;
    const from = Math.max(since, now - back);
    for (let t = nextCronTime(schedule, from, zone); t !== undefined && t <= now;) {
      last = t;
      t = nextCronTime(schedule, t, zone);
    }
    if (last !== undefined) return { last, missed };
  }
  return { missed };
}

const startOf = (job: KObject): string => {
  const started = job.status?.['startTime'];
  return typeof started === 'string' ? started : (job.metadata.creationTimestamp ?? '');
};

export function startCronJobController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  const record = recorderFor(store, () => clock.now(), 'cronjob-controller', ACTOR);

  const createJob = (cj: KObject, at: number): KObject | undefined => {
    const template = (cj.spec?.['jobTemplate'] ?? {}) as { metadata?: Obj; spec?: Obj };
    const name = `${cj.metadata.name ?? ''}-${Math.floor(at / 60_000)}`;
    const existing = store.get(R.jobs, cj.metadata.namespace, name);
    if (existing) return controllerRef(existing)?.uid === cj.metadata.uid ? existing : undefined;
    const meta = (template.metadata ?? {}) as { labels?: Obj; annotations?: Obj };
    const job = store.create(
      R.jobs,
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name,
          namespace: cj.metadata.namespace,
          ...(meta.labels ? { labels: { ...meta.labels } as Record<string, string> } : {}),
          annotations: {
            ...(meta.annotations as Record<string, string> | undefined),
            [SCHEDULED_TIMESTAMP]: formatTime(new Date(at)),
          },
          ownerReferences: [ownerReference(cj)],
        },
        spec: structuredClone(template.spec ?? {}),
      },
      { actor: ACTOR },
    );
    record({ regarding: cj, reason: 'SuccessfulCreate', message: `Created job ${name}` });
    return job;
  };

  const deleteJob = (cj: KObject, name: string | undefined): void => {
    if (!name || !store.get(R.jobs, cj.metadata.namespace, name)) return;
    store.delete(R.jobs, cj.metadata.namespace, name, {
      actor: ACTOR,
      propagationPolicy: 'Background',
    });
    record({ regarding: cj, reason: 'SuccessfulDelete', message: `Deleted job ${name}` });
  };

  /** Finished Jobs beyond `limit` of their kind go, oldest first. */
  const trim = (cj: KObject, finished: KObject[], limit: unknown): void => {
    if (typeof limit !== 'number') return;
    const sorted = [...finished].sort((a, b) => startOf(a).localeCompare(startOf(b)));
    for (const job of sorted.slice(0, Math.max(0, sorted.length - limit)))
      deleteJob(cj, job.metadata.name);
  };

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const cj = store.get(R.cronjobs, namespace, name);
    if (!cj || cj.metadata.deletionTimestamp) return;
    const spec = cj.spec ?? {};
    const jobs = store
      .list(R.jobs, { namespace })
      .filter((j) => controllerRef(j)?.uid === cj.metadata.uid);
    const byUid = new Map(jobs.map((j) => [j.metadata.uid, j]));
    const status = { ...(cj.status ?? {}) } as Obj & { active?: Ref[] };
    let active = [...(status.active ?? [])];
    for (const ref of [...active]) {
      const job = byUid.get(ref.uid);
      const done = job && jobFinished(job);
      if (!job) {
        record({
          regarding: cj,
          reason: 'MissingJob',
          message: `Active job went missing: ${ref.name ?? ''}`,
        });
      } else if (done) {
        record({
          regarding: cj,
          reason: 'SawCompletedJob',
          message: `Saw completed job: ${ref.name ?? ''}, condition: ${done}`,
        });
        const completed = job.status?.['completionTime'];
        if (done === 'Complete' && typeof completed === 'string')
          status['lastSuccessfulTime'] = completed;
      }
      if (!job || done) active = active.filter((r) => r !== ref);
    }
    trim(
      cj,
      jobs.filter((j) => jobFinished(j) === 'Complete'),
      spec['successfulJobsHistoryLimit'],
    );
    trim(
      cj,
      jobs.filter((j) => jobFinished(j) === 'Failed'),
      spec['failedJobsHistoryLimit'],
    );

    const now = clock.now().getTime();
    const zone = typeof spec['timeZone'] === 'string' ? spec['timeZone'] : undefined;
    const schedule = parseCronSchedule(
      typeof spec['schedule'] === 'string' ? spec['schedule'] : '',
    );
    if (spec['suspend'] !== true && !('error' in schedule)) {
      const deadline = spec['startingDeadlineSeconds'];
      const lastSchedule = status['lastScheduleTime'];
      const last = Date.parse(
        typeof lastSchedule === 'string' ? lastSchedule : (cj.metadata.creationTimestamp ?? ''),
      );
      const since = typeof deadline === 'number' ? Math.max(last, now - deadline * 1000) : last;
      const due = mostRecent(schedule, since, now, zone);
      if (due.missed > MAX_MISSED) {
        record({
          regarding: cj,
          type: 'Warning',
          reason: 'TooManyMissedTimes',
          message: `too many missed start times: ${due.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`,
        });
      }
      if (due.last !== undefined && due.last > last) {
        const policy = spec['concurrencyPolicy'];
        if (policy === 'Forbid' && active.length > 0) {
          record({
            regarding: cj,
            reason: 'JobAlreadyActive',
            message:
              'Not starting job because prior execution is running and concurrency policy is Forbid',
          });
        } else {
          if (policy === 'Replace') {
            for (const ref of active) deleteJob(cj, ref.name);
            active = [];
          }
          const job = createJob(cj, due.last);
          if (job && !active.some((r) => r.uid === job.metadata.uid)) {
            active.push({
              apiVersion: 'batch/v1',
              kind: 'Job',
              name: job.metadata.name,
              namespace: job.metadata.namespace,
              uid: job.metadata.uid,
              resourceVersion: job.metadata.resourceVersion,
            } as Ref);
          }
          status['lastScheduleTime'] = formatTime(new Date(due.last));
        }
      }
      const next = nextCronTime(schedule, now, zone);
      // One wake-up per scheduled time, however often the CronJob is looked at before it.
      if (next !== undefined && planned.get(key) !== next) {
        planned.set(key, next);
        queue.addAfter(key, next - now + 100);
      }
    }
    if (active.length > 0) status.active = active;
    else delete status.active;
    store.mutate(R.cronjobs, namespace, name, (object) => void (object.status = status), {
      actor: ACTOR,
      subresource: 'status',
    });
  };

  const planned = new Map<string, number>();
  const queue = createWorkQueue({ name: 'cronjob', clock, log: ctx.log, reconcile });
  const stops = [
    store.watch(R.cronjobs, (e) => {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object));
      else planned.delete(keyOf(e.object));
    }),
    store.watch(R.jobs, (e) => {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'CronJob') queue.add(`${e.object.metadata.namespace ?? ''}/${ref.name}`);
    }),
  ];
  for (const cj of store.list(R.cronjobs)) queue.add(keyOf(cj));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
