/**
 * CronJobs: the defaults and schedule validation of the apiserver, and the controller creating a Job
 * at the scheduled minute (named `<cronjob>-<unix minutes>`, owned by the CronJob, annotated with
 * the scheduled time, carrying the template's labels) that the CronJob's status lists as active with
 * its `lastScheduleTime`. The schedule is every minute, so the case waits up to a minute and a bit.
 */
import assert from 'node:assert/strict';
import { eventually } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { field, MERGE, meta } from '../fixtures.js';

type Obj = Record<string, unknown>;

const cronJob = (name: string, schedule: string) => ({
  metadata: { name },
  spec: {
    schedule,
    jobTemplate: {
      metadata: { labels: { app: 'nightly' } },
      spec: {
        template: {
          spec: {
            restartPolicy: 'OnFailure',
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        },
      },
    },
  },
});

export const cronJobCases: CaseGroup = {
  name: 'CronJobs',
  cases: [
    {
      id: 'a CronJob gets its defaults; an unparseable schedule is refused',
      async run(b) {
        const ns = await b.namespace();
        const path = `/apis/batch/v1/namespaces/${ns}/cronjobs`;
        const created = await b.request('POST', path, {
          body: {
            metadata: { name: 'nightly' },
            spec: { ...cronJob('nightly', '0 3 * * *').spec, suspend: true },
          },
        });
        assert.equal(created.code, 201, created.text);
        const spec = created.json['spec'] as Obj;
        assert.deepEqual(
          [
            spec['concurrencyPolicy'],
            spec['suspend'],
            spec['successfulJobsHistoryLimit'],
            spec['failedJobsHistoryLimit'],
          ],
          ['Allow', true, 3, 1],
        );
        const bad = await b.request('POST', path, { body: cronJob('broken', 'every night') });
        assert.equal(bad.code, 422, bad.text);
        assert.equal(
          bad.json['message'],
          'CronJob.batch "broken" is invalid: spec.schedule: Invalid value: "every night": expected exactly 5 fields, found 2: [every night]',
        );
      },
    },
    {
      id: 'at its scheduled minute a CronJob creates a Job named after it and lists it as active',
      timeoutMs: 110_000,
      async run(b) {
        const ns = await b.namespace();
        const path = `/apis/batch/v1/namespaces/${ns}/cronjobs`;
        const created = await b.request('POST', path, { body: cronJob('tick', '* * * * *') });
        assert.equal(created.code, 201, created.text);
        const uid = meta(created.json)['uid'];
        const job = await eventually(
          'the first Job',
          async () => {
            const list = await b.request('GET', `/apis/batch/v1/namespaces/${ns}/jobs`);
            return ((list.json['items'] ?? []) as Obj[])[0];
          },
          90_000,
        );
        // No second run while the case looks.
        await b.request('PATCH', `${path}/tick`, {
          contentType: MERGE,
          body: { spec: { suspend: true } },
        });
        const name = String(meta(job)['name']);
        const minutes = Number(/^tick-(\d+)$/.exec(name)?.[1]);
        assert.ok(minutes > 0, `named <cronjob>-<unix minutes>: ${name}`);
        const scheduled = new Date(minutes * 60_000).toISOString().replace('.000Z', 'Z');
        assert.equal(
          (meta(job)['annotations'] as Obj)['batch.kubernetes.io/cronjob-scheduled-timestamp'],
          scheduled,
        );
        assert.equal((meta(job)['labels'] as Obj)['app'], 'nightly');
        const owner = (meta(job)['ownerReferences'] as Obj[])[0] ?? {};
        assert.deepEqual(
          [owner['apiVersion'], owner['kind'], owner['name'], owner['uid'], owner['controller']],
          ['batch/v1', 'CronJob', 'tick', uid, true],
        );
        const status = await eventually('the CronJob status', async () => {
          const reply = await b.request('GET', `${path}/tick`);
          return field(reply.json, 'status', 'lastScheduleTime')
            ? (reply.json['status'] as Obj)
            : undefined;
        });
        assert.equal(status['lastScheduleTime'], scheduled);
        const active = (status['active'] as Obj[] | undefined) ?? [];
        assert.deepEqual(
          active.map((r) => [r['kind'], r['name'], r['namespace'], r['uid']]),
          [['Job', name, ns, meta(job)['uid']]],
        );
      },
    },
  ],
};
