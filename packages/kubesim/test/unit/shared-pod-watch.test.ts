/**
 * The attached fleet's one pod watch (attach/shared-pod-watch.ts) against a scripted apiserver and a
 * scripted watch stream: one list and one watch of bound pods for any number of nodes, each event
 * handed to the node its pod is bound to and dropped for nodes not attached, a node subscribing after
 * the first list answered from the cache, a stopped node hearing nothing more, a failed first list
 * rejecting `synced`, and a failed watch started again after a backoff.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import type { KubeJson, RequestOptions } from '../../src/attach/kube-json.js';
import { ApiCallError } from '../../src/attach/api-errors.js';
import {
  BOUND_PODS,
  sharedPodWatch,
  type PodEventType,
} from '../../src/attach/shared-pod-watch.js';
import { silentLogger } from '../../src/log.js';
import { waitFor } from '../../src/testing/wait.js';
import type { KObject } from '../../src/types.js';

const pod = (name: string, node: string, resourceVersion: string): KObject => ({
  metadata: { name, namespace: 'default', resourceVersion },
  spec: { nodeName: node },
});

/**
 * A KubeJson that answers the pod list with `pods` (or throws `failure`), recording each request; with
 * `gate`, the answer waits for it.
 */
function scriptedApi(pods: KObject[]) {
  const sent: { path: string; query: Record<string, string> | undefined }[] = [];
  const state: { failure?: Error; gate?: Promise<void> } = {};
  const client: KubeJson = {
    server: 'https://api.test',
    config: new KubeConfig(),
    async request<T>(_method: string, path: string, options: RequestOptions = {}): Promise<T> {
      sent.push({ path, query: options.query });
      await state.gate;
      if (state.failure) throw state.failure;
      return { items: pods, metadata: { resourceVersion: '10' } } as T;
    },
  };
  return { client, sent, state };
}

interface Stream {
  path: string;
  query: Record<string, unknown>;
  controller: AbortController;
  send(type: string, object: KObject): void;
  end(error: unknown): void;
}

/** A Watch whose streams the test drives: `send` an event, `end` the stream. */
class ScriptedWatch extends Watch {
  readonly streams: Stream[] = [];

  constructor() {
    super(new KubeConfig());
  }

  override watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, object: unknown) => void,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    const controller = new AbortController();
    this.streams.push({ path, query, controller, send: callback, end: done });
    return Promise.resolve(controller);
  }
}

/** What each node heard, as `<type> <pod>`. */
function recorder() {
  const heard: Record<string, string[]> = {};
  const on = (node: string) => (type: PodEventType, p: KObject) =>
    (heard[node] ??= []).push(`${type} ${p.metadata.name}`);
  return { heard, on };
}

const names = (pods: KObject[]) => pods.map((p) => p.metadata.name).sort();

describe('sharedPodWatch', () => {
  it('lists and watches bound pods once for every node, as the client it was given', async () => {
    const { client, sent } = scriptedApi([]);
    const watch = new ScriptedWatch();
    const pods = sharedPodWatch(client, silentLogger(), watch);
    const { on } = recorder();
    const nodes = ['n0', 'n1', 'n2'].map((n) => pods.subscribe(n, on(n)));
    await Promise.all(nodes.map((n) => n.listed));

    assert.deepEqual(sent, [{ path: '/api/v1/pods', query: { fieldSelector: BOUND_PODS } }]);
    assert.equal(watch.streams.length, 1);
    assert.equal(watch.streams[0]?.path, '/api/v1/pods');
    assert.deepEqual(watch.streams[0]?.query, {
      fieldSelector: 'spec.nodeName!=',
      resourceVersion: '10',
    });
    pods.stop();
  });

  it('hands each event to the node its pod is bound to, and drops pods of nodes not attached', async () => {
    const { client } = scriptedApi([pod('a', 'n0', '1'), pod('elsewhere', 'other', '2')]);
    const watch = new ScriptedWatch();
    const pods = sharedPodWatch(client, silentLogger(), watch);
    const { heard, on } = recorder();
    const n0 = pods.subscribe('n0', on('n0'));
    pods.subscribe('n1', on('n1'));
    assert.deepEqual(names(await n0.listed), ['a']);

    const stream = watch.streams[0]!;
    stream.send('ADDED', pod('b', 'n1', '11'));
    stream.send('MODIFIED', pod('a', 'n0', '12'));
    stream.send('ADDED', pod('c', 'other', '13'));
    stream.send('DELETED', pod('b', 'n1', '14'));

    // n0 heard its listed pod as the cache filled, then its own events; nobody heard `other`'s.
    assert.deepEqual(heard, {
      n0: ['ADDED a', 'MODIFIED a'],
      n1: ['ADDED b', 'DELETED b'],
    });
    pods.stop();
  });

  it('answers a node that subscribes after the first list from the cache, with no request', async () => {
    const { client, sent } = scriptedApi([pod('a', 'n0', '1'), pod('b', 'late', '2')]);
    const watch = new ScriptedWatch();
    const pods = sharedPodWatch(client, silentLogger(), watch);
    await pods.synced;
    const stream = watch.streams[0]!;
    stream.send('ADDED', pod('c', 'late', '11'));
    stream.send('ADDED', pod('d', 'late', '12'));
    stream.send('DELETED', pod('d', 'late', '13'));

    const { heard, on } = recorder();
    const late = pods.subscribe('late', on('late'));
    assert.deepEqual(names(await late.listed), ['b', 'c'], 'the listed pod and the watched one');
    assert.equal(sent.length, 1, 'the first list only');
    assert.equal(watch.streams.length, 1, 'the first watch only');
    stream.send('MODIFIED', pod('c', 'late', '14'));
    assert.deepEqual(heard, { late: ['MODIFIED c'] });
    pods.stop();
  });

  it('stops handing events to a node that stopped, and only to it', async () => {
    const { client } = scriptedApi([]);
    const watch = new ScriptedWatch();
    const pods = sharedPodWatch(client, silentLogger(), watch);
    const { heard, on } = recorder();
    const n0 = pods.subscribe('n0', on('n0'));
    pods.subscribe('n1', on('n1'));
    await n0.listed;
    n0.stop();
    watch.streams[0]!.send('ADDED', pod('a', 'n0', '11'));
    watch.streams[0]!.send('ADDED', pod('b', 'n1', '12'));
    assert.deepEqual(heard, { n1: ['ADDED b'] });
    // The node may take its share again (a kubelet attached anew).
    const again = pods.subscribe('n0', on('n0'));
    assert.deepEqual(names(await again.listed), ['a']);
    assert.throws(() => pods.subscribe('n0', on('n0')), /already subscribed/);
    pods.stop();
  });

  it('rejects synced and every listed when the first list fails', async () => {
    const { client, state } = scriptedApi([]);
    state.failure = new ApiCallError('forbidden', 'pods is forbidden', { status: 403 });
    const pods = sharedPodWatch(client, silentLogger(), new ScriptedWatch());
    const n0 = pods.subscribe('n0', () => undefined);
    await assert.rejects(pods.synced, /pods is forbidden/);
    await assert.rejects(n0.listed, /pods is forbidden/);
    pods.stop();
  });

  it('closes the watch ListWatch opens after a list that was in flight when it stopped', async () => {
    const { client, sent, state } = scriptedApi([]);
    let answer: () => void = () => undefined;
    state.gate = new Promise((resolve) => (answer = resolve));
    const watch = new ScriptedWatch();
    const pods = sharedPodWatch(client, silentLogger(), watch);
    await waitFor('the list asked for', () => sent.length === 1);
    pods.stop();
    answer();
    const stream = await waitFor('the watch', () => watch.streams[0]);
    await waitFor('the watch closed', () => stream.controller.signal.aborted);
  });

  it('starts a failed watch again after a backoff and keeps handing events out', async () => {
    const { client, sent } = scriptedApi([]);
    const watch = new ScriptedWatch();
    const pods = sharedPodWatch(client, silentLogger(), watch);
    const { heard, on } = recorder();
    await pods.subscribe('n0', on('n0')).listed;
    watch.streams[0]!.end(new Error('connection reset'));
    const second = await waitFor('the watch again', () => watch.streams[1]);
    // From where it was: ListWatch keeps the resourceVersion after an error that is not a 410.
    assert.equal(second.query['resourceVersion'], '10');
    assert.equal(sent.length, 1, 'no second list');
    second.send('ADDED', pod('a', 'n0', '11'));
    assert.deepEqual(heard, { n0: ['ADDED a'] });
    pods.stop();
  });
});
