import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import { EventsV1Api, V1MicroTime } from '@kubernetes/client-node';
import { createStore, R } from '../../src/index.js';
import { EVENT_TTL_MS, legacyEvent, createEventSink, sweepEvents } from '../../src/events.js';
import { startTestSim, waitFor, type TestSim } from '../support.js';

const NS = 'shop';
const run = promisify(execFile);

describe('sim Events from controllers and kubelets', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  const eventsOf = async (name: string): Promise<CoreV1Event[]> =>
    (
      await sim.core.listNamespacedEvent({
        namespace: NS,
        fieldSelector: `involvedObject.name=${name}`,
      })
    ).items;

  it('records the lifecycle of a ReplicaSet pod like the real components', async () => {
    await sim.apps.createNamespacedReplicaSet({
      namespace: NS,
      body: {
        metadata: { name: 'ev-rs' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'ev-rs' } },
          template: {
            metadata: { labels: { app: 'ev-rs' } },
            spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1' }] },
          },
        },
      },
    });
    const [created] = await waitFor('SuccessfulCreate', async () => {
      const found = (await eventsOf('ev-rs')).filter((e) => e.reason === 'SuccessfulCreate');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(created?.source?.component, 'replicaset-controller');
    assert.equal(created?.involvedObject.kind, 'ReplicaSet');
    assert.equal(created?.count, 1);
    const podName = created?.message?.replace('Created pod: ', '') ?? '';
    const reasons = await waitFor('pod events', async () => {
      const got = (await eventsOf(podName)).map((e) => e.reason);
      return got.includes('Started') ? got : undefined;
    });
    for (const reason of ['Scheduled', 'Pulled', 'Created', 'Started']) {
      assert.ok(reasons.includes(reason), `${reason} in ${reasons.join(',')}`);
    }
    const started = (await eventsOf(podName)).find((e) => e.reason === 'Started');
    assert.equal(started?.source?.component, 'kubelet');
    assert.equal(started?.involvedObject.fieldPath, 'spec.containers{web}');
    assert.equal(started?.message, 'Started container web');

    await sim.core.deleteNamespacedPod({ namespace: NS, name: podName });
    await waitFor('Killing', async () =>
      (await eventsOf(podName)).some((e) => e.reason === 'Killing') ? true : undefined,
    );
  });

  it('serves one store through core/v1 and events.k8s.io/v1', async () => {
    const events = sim.kc.makeApiClient(EventsV1Api);
    const scheduled = await waitFor('Scheduled through events.k8s.io', async () => {
      const list = await events.listNamespacedEvent({ namespace: NS });
      return list.items.find((e) => e.reason === 'Scheduled');
    });
    assert.equal(scheduled.reportingController, 'default-scheduler');
    assert.equal(scheduled.action, 'Binding');
    assert.match(scheduled.note ?? '', /^Successfully assigned shop\//);
    const name = scheduled.metadata?.name ?? '';
    const core = await sim.core.readNamespacedEvent({ namespace: NS, name });
    assert.equal(core.message, scheduled.note);
    assert.equal(core.metadata.resourceVersion, scheduled.metadata?.resourceVersion);

    const made = await events.createNamespacedEvent({
      namespace: NS,
      body: {
        metadata: { name: 'via-v1' },
        eventTime: new V1MicroTime(),
        reportingController: 'example.com/ctl',
        reportingInstance: 'ctl-1',
        action: 'Check',
        reason: 'Checked',
        note: 'checked it',
        type: 'Normal',
        regarding: { kind: 'ConfigMap', namespace: NS, name: 'cm', apiVersion: 'v1' },
      },
    });
    const seen = await sim.core.readNamespacedEvent({ namespace: NS, name: 'via-v1' });
    assert.equal(seen.message, 'checked it');
    assert.equal(seen.reportingComponent, 'example.com/ctl');
    assert.equal(seen.involvedObject.name, 'cm');
    assert.equal(seen.metadata.resourceVersion, made.metadata?.resourceVersion);
    const selected = await events.listNamespacedEvent({
      namespace: NS,
      fieldSelector: 'reportingController=example.com/ctl',
    });
    assert.deepEqual(
      selected.items.map((e) => e.metadata?.name),
      ['via-v1'],
    );
  });

  it('prints LAST SEEN, TYPE, REASON, OBJECT, MESSAGE in kubectl get events', async (t) => {
    const kubectl = await run('kubectl', ['version', '--client']).catch(() => undefined);
    if (!kubectl) return t.skip('no kubectl');
    const { stdout } = await run('kubectl', [
      '--kubeconfig',
      sim.kubeconfigPath,
      'get',
      'events',
      '-n',
      NS,
    ]);
    const header = stdout
      .split('\n')[0]
      ?.trim()
      .split(/\s{2,}/);
    assert.deepEqual(header, ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    assert.match(stdout, /Normal\s+Scheduled\s+pod\/ev-rs-/);
  });
});

describe('event recording and expiry', () => {
  const at = new Date('2026-01-01T00:00:00Z');
  let now = at;
  const store = createStore({ now: () => now });
  store.create(R.namespaces, { metadata: { name: 'ns' } });
  const pod = store.create(R.pods, {
    metadata: { name: 'p', namespace: 'ns' },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  });

  it('aggregates a repeated event into count and lastTimestamp', () => {
    const sink = createEventSink(store, 'test');
    const input = { regarding: pod, reason: 'BackOff', message: 'again', component: 'kubelet' };
    sink(legacyEvent(input, now));
    now = new Date(at.getTime() + 5_000);
    sink(legacyEvent(input, now));
    const [only, ...rest] = store.list(R.events, { namespace: 'ns' });
    assert.equal(rest.length, 0);
    assert.equal(only?.['count'], 2);
    assert.equal(only?.['firstTimestamp'], '2026-01-01T00:00:00Z');
    assert.equal(only?.['lastTimestamp'], '2026-01-01T00:00:05Z');
  });

  it('expires events an hour (the event TTL) after they were last seen', () => {
    now = new Date(at.getTime() + EVENT_TTL_MS);
    assert.equal(sweepEvents(store, now), 0);
    now = new Date(at.getTime() + EVENT_TTL_MS + 10_000);
    assert.equal(sweepEvents(store, now), 1);
    assert.equal(store.list(R.events).length, 0);
  });
});
