/**
 * Events: one store behind the core/v1 and events.k8s.io/v1 APIs (the same object and resourceVersion
 * through both, fields converted), and the Events the controllers record as they act.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { meta } from '../fixtures.js';

type Obj = Record<string, unknown>;
const coreEvents = (ns: string) => `/api/v1/namespaces/${ns}/events`;
const v1Events = (ns: string) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`;

async function eventsAbout(b: Backend, ns: string, name: string): Promise<Obj[]> {
  const selector = encodeURIComponent(`involvedObject.name=${name}`);
  const reply = await b.request('GET', `${coreEvents(ns)}?fieldSelector=${selector}`);
  assert.equal(reply.code, 200, reply.text);
  return reply.json['items'] as Obj[];
}

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
});

export const eventCases: CaseGroup = {
  name: 'Events',
  cases: [
    {
      id: 'a core/v1 Event is the same object through events.k8s.io/v1, its fields converted',
      async run(b) {
        const ns = await b.namespace();
        const made = await b.request('POST', coreEvents(ns), {
          body: {
            metadata: { name: 'e1' },
            involvedObject: { kind: 'ConfigMap', namespace: ns, name: 'cm', apiVersion: 'v1' },
            reason: 'Checked',
            message: 'looked at it',
            type: 'Normal',
            source: { component: 'conformance', host: 'h1' },
            count: 3,
            firstTimestamp: '2026-03-01T10:00:00Z',
            lastTimestamp: '2026-03-01T10:05:00Z',
          },
        });
        assert.equal(made.code, 201, made.text);
        const seen = await b.request('GET', `${v1Events(ns)}/e1`);
        assert.equal(seen.code, 200, seen.text);
        const e = seen.json;
        assert.equal(e['apiVersion'], 'events.k8s.io/v1');
        assert.equal(meta(e).resourceVersion, meta(made.json).resourceVersion);
        assert.equal(e['note'], 'looked at it');
        assert.deepEqual(e['regarding'], {
          kind: 'ConfigMap',
          namespace: ns,
          name: 'cm',
          apiVersion: 'v1',
        });
        assert.deepEqual(e['deprecatedSource'], { component: 'conformance', host: 'h1' });
        assert.equal(e['deprecatedCount'], 3);
        assert.equal(e['deprecatedLastTimestamp'], '2026-03-01T10:05:00Z');
        assert.equal(e['message'], undefined);

        const selector = encodeURIComponent('regarding.name=cm');
        const listed = await b.request('GET', `${v1Events(ns)}?fieldSelector=${selector}`);
        assert.deepEqual(
          (listed.json['items'] as Obj[]).map((x) => meta(x).name),
          ['e1'],
        );
        const removed = await b.request('DELETE', `${v1Events(ns)}/e1`);
        assert.equal(removed.code, 200, removed.text);
        assert.equal((await b.request('GET', `${coreEvents(ns)}/e1`)).code, 404);
      },
    },
    {
      id: 'an Event must live in the namespace of the object it is about',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', coreEvents(ns), {
          body: {
            metadata: { name: 'elsewhere' },
            involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'cm' },
            reason: 'Checked',
            type: 'Normal',
          },
        });
        assert.equal(reply.code, 422, reply.text);
        const causes = (reply.json['details'] as Obj)['causes'] as Obj[];
        assert.deepEqual(causes, [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "default": does not match event.namespace',
            field: 'involvedObject.namespace',
          },
        ]);
      },
    },
    {
      id: 'the ReplicaSet controller records SuccessfulCreate for each pod it creates',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
          body: {
            metadata: { name: 'rs' },
            spec: {
              replicas: 2,
              selector: { matchLabels: { app: 'rs' } },
              template: template('rs'),
            },
          },
        });
        assert.equal(reply.code, 201, reply.text);
        const created = await eventually('two SuccessfulCreate events', async () => {
          const found = (await eventsAbout(b, ns, 'rs')).filter(
            (e) => e['reason'] === 'SuccessfulCreate',
          );
          return found.length === 2 ? found : undefined;
        });
        for (const e of created) {
          assert.equal(e['type'], 'Normal');
          assert.equal(e['count'], 1);
          assert.equal((e['source'] as Obj)['component'], 'replicaset-controller');
          assert.equal(e['reportingComponent'], 'replicaset-controller');
          assert.equal((e['involvedObject'] as Obj)['kind'], 'ReplicaSet');
          assert.equal((e['involvedObject'] as Obj)['uid'], meta(reply.json).uid);
          assert.match(String(e['message']), /^Created pod: rs-[a-z0-9]{5}$/);
          assert.ok(String(meta(e).name).startsWith('rs.'), String(meta(e).name));
        }
      },
    },
    {
      id: 'the Deployment controller records ScalingReplicaSet when it scales up its ReplicaSet',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
          body: {
            metadata: { name: 'web' },
            spec: {
              replicas: 2,
              selector: { matchLabels: { app: 'web' } },
              template: template('web'),
            },
          },
        });
        assert.equal(reply.code, 201, reply.text);
        const [scaled] = await eventually('ScalingReplicaSet', async () => {
          const found = (await eventsAbout(b, ns, 'web')).filter(
            (e) => e['reason'] === 'ScalingReplicaSet',
          );
          return found.length > 0 ? found : undefined;
        });
        assert.equal((scaled?.['source'] as Obj)['component'], 'deployment-controller');
        assert.match(
          String(scaled?.['message']),
          /^Scaled up replica set web-[a-z0-9]+ from 0 to 2$/,
        );
      },
    },
  ],
};
