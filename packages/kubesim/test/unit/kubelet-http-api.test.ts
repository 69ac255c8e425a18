/**
 * The attached kubelet's view of its cluster (attach/kubelet-http-api.ts) against a scripted
 * apiserver: writes show at once and go out in the background, one at a time, latest wins; status
 * patches carry the pod's uid and only what changed; stale watch events are ignored; a pod replaced
 * under the same name is the old one deleted; the Lease is created once, then renewed with the
 * resourceVersion it read, re-read after a conflict; a deleted Node stops the kubelet posting.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiCallError, kindOfStatus } from '../../src/attach/api-errors.js';
import { silentLogger } from '../../src/log.js';
import type { KubeJson, RequestOptions } from '../../src/attach/kube-json.js';
import { httpKubeletApi } from '../../src/attach/kubelet-http-api.js';
import type { KObject } from '../../src/types.js';

interface Sent {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  contentType: string | undefined;
}

type Answer = (sent: Sent) => unknown;

// What kube-json throws for a refusal (the Status's reason and message).
const apiError = (code: number, reason: string) =>
  new ApiCallError(kindOfStatus(code, reason), reason, { status: code, reason });

/** A KubeJson whose answers the test scripts; each request may be held until released. */
function scriptedApi(answer: Answer) {
  const sent: Sent[] = [];
  const held: (() => void)[] = [];
  let hold = false;
  const client: KubeJson = {
    server: 'https://api.test',
    config: new KubeConfig(),
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
      const record: Sent = {
        method,
        path,
        body: options.body as Record<string, unknown> | undefined,
        contentType: options.contentType,
      };
      sent.push(record);
      if (hold) await new Promise<void>((release) => held.push(release));
      return answer(record) as T;
    },
  };
  return {
    client,
    sent,
    hold: (on: boolean) => void (hold = on),
    release: () => held.splice(0).forEach((go) => go()),
  };
}

const NODE: KObject = {
  metadata: { name: 'n1', uid: 'node-uid', resourceVersion: '1' },
  status: {},
};
const pod = (rv: string, uid = 'pod-uid', status: Record<string, unknown> = { phase: 'Pending' }) =>
  ({
    metadata: { name: 'p', namespace: 'ns', uid, resourceVersion: rv },
    spec: { nodeName: 'n1' },
    status,
  }) satisfies KObject;

/** Answers a pod status patch as the apiserver would: the pod with the patch's status, next rv. */
function podServer(start: number) {
  let rv = start;
  return (sent: Sent): unknown => {
    if (!sent.path.endsWith('/status')) return {};
    rv += 1;
    const status = { ...(sent.body?.['status'] as Record<string, unknown>) };
    return pod(String(rv), 'pod-uid', status);
  };
}

describe('attached kubelet API (write-behind over HTTP)', () => {
  it('shows a pod status write at once and sends it with the pod uid and only what changed', async () => {
    const api = scriptedApi(podServer(10));
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.observe('ADDED', pod('5'));
    const written = kubelet.writePodStatus(pod('5'), (p) => {
      p.status = { ...p.status, phase: 'Running' };
    });
    assert.equal(written?.status?.['phase'], 'Running');
    assert.equal(kubelet.pod('ns', 'p')?.status?.['phase'], 'Running', 'reads its own write');
    await kubelet.flushed();
    assert.equal(api.sent.length, 1);
    assert.equal(api.sent[0]?.method, 'PATCH');
    assert.equal(api.sent[0]?.path, '/api/v1/namespaces/ns/pods/p/status');
    assert.equal(api.sent[0]?.contentType, 'application/strategic-merge-patch+json');
    assert.deepEqual(api.sent[0]?.body, {
      metadata: { uid: 'pod-uid' },
      status: { phase: 'Running' },
    });
    kubelet.stop();
  });

  it('sends writes made while one is in flight as one, the latest', async () => {
    const api = scriptedApi(podServer(10));
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.observe('ADDED', pod('5'));
    api.hold(true);
    kubelet.writePodStatus(pod('5'), (p) => void (p.status = { phase: 'Running' }));
    await new Promise((r) => setImmediate(r));
    kubelet.writePodStatus(pod('5'), (p) => void (p.status = { phase: 'Running', podIP: 'a' }));
    kubelet.writePodStatus(pod('5'), (p) => void (p.status = { phase: 'Succeeded', podIP: 'a' }));
    api.hold(false);
    api.release();
    await kubelet.flushed();
    assert.equal(api.sent.length, 2, 'the first, then the latest of the other two');
    assert.deepEqual(api.sent[1]?.body?.['status'], { phase: 'Succeeded', podIP: 'a' });
    assert.equal(kubelet.pod('ns', 'p')?.status?.['phase'], 'Succeeded');
    kubelet.stop();
  });

  it('ignores a watch event older than the answer to its own write', async () => {
    const api = scriptedApi(podServer(10));
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.observe('ADDED', pod('5'));
    kubelet.writePodStatus(pod('5'), (p) => void (p.status = { phase: 'Running' }));
    await kubelet.flushed();
    assert.deepEqual(kubelet.observe('MODIFIED', pod('9', 'pod-uid', { phase: 'Pending' })), []);
    assert.equal(kubelet.pod('ns', 'p')?.status?.['phase'], 'Running');
    const newer = kubelet.observe('MODIFIED', pod('12', 'pod-uid', { phase: 'Running', x: 1 }));
    assert.equal(newer.length, 1);
    assert.equal(kubelet.pod('ns', 'p')?.status?.['x'], 1);
    kubelet.stop();
  });

  it('takes a pod replaced under the same name as the old one deleted', () => {
    const api = scriptedApi(() => ({}));
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.observe('ADDED', pod('5', 'old'));
    const changes = kubelet.observe('MODIFIED', pod('20', 'new'));
    assert.deepEqual(
      changes.map((c) => [c.pod.metadata.uid, c.deleted]),
      [
        ['old', true],
        ['new', false],
      ],
    );
    assert.equal(
      kubelet.writePodStatus(pod('5', 'old'), () => undefined),
      undefined,
    );
    kubelet.stop();
  });

  it('drops a status the apiserver refuses for a replaced pod instead of retrying it', async () => {
    const api = scriptedApi(() => {
      throw apiError(422, 'Invalid');
    });
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.observe('ADDED', pod('5'));
    kubelet.writePodStatus(pod('5'), (p) => void (p.status = { phase: 'Running' }));
    await kubelet.flushed();
    assert.equal(api.sent.length, 1);
    assert.equal(
      kubelet.pod('ns', 'p')?.status?.['phase'],
      'Pending',
      'back to what the server has',
    );
    kubelet.stop();
  });

  it('creates its Lease once, renews it with the version it read, and re-reads after a conflict', async () => {
    let leaseRv = 0;
    let conflictOnce = true;
    const lease = () => ({
      metadata: { name: 'n1', namespace: 'kube-node-lease', resourceVersion: String(++leaseRv) },
      spec: { holderIdentity: 'n1' },
    });
    const api = scriptedApi((sent) => {
      if (sent.method === 'GET' && leaseRv === 0) throw apiError(404, 'NotFound');
      if (sent.method === 'PUT' && conflictOnce) {
        conflictOnce = false;
        throw apiError(409, 'Conflict');
      }
      return lease();
    });
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.renewLease('2026-01-05T09:00:00.000000Z');
    await kubelet.flushed();
    const create = api.sent.find((s) => s.method === 'POST');
    assert.equal(create?.path, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases');
    const owner = (create?.body?.['metadata'] as { ownerReferences: { uid: string }[] })
      .ownerReferences[0];
    assert.equal(owner?.uid, 'node-uid', 'owned by its Node');
    kubelet.renewLease('2026-01-05T09:00:10.000000Z');
    await kubelet.flushed();
    const methods = api.sent.map((s) => s.method);
    assert.deepEqual(methods, ['GET', 'POST', 'PUT', 'GET', 'PUT']);
    const last = api.sent.at(-1)?.body as {
      metadata: { resourceVersion: string };
      spec: Record<string, unknown>;
    };
    assert.equal(last.metadata.resourceVersion, String(leaseRv - 1), 'the version it re-read');
    assert.equal(last.spec['renewTime'], '2026-01-05T09:00:10.000000Z');
    kubelet.stop();
  });

  it("puts its own conditions back at the next sync when another writer changed them, not others'", async () => {
    const api = scriptedApi(podServer(10));
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    const ready = [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'True' },
      { type: 'ContainersReady', status: 'True' },
    ];
    kubelet.observe('ADDED', pod('5'));
    kubelet.writePodStatus(
      pod('5'),
      (p) => void (p.status = { phase: 'Running', conditions: ready }),
    );
    await kubelet.flushed();
    kubelet.resyncPods?.();
    await kubelet.flushed();
    assert.equal(api.sent.length, 1, 'nothing to put back while the server shows what it wrote');
    // The node lifecycle controller's MarkPodsNotReady after missed heartbeats, and the eviction's
    // DisruptionTarget: the first is the kubelet's to correct, the second is not.
    const marked = [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'False', reason: 'NodeNotReady' },
      { type: 'ContainersReady', status: 'False', reason: 'NodeNotReady' },
      { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' },
    ];
    kubelet.observe('MODIFIED', pod('11', 'pod-uid', { phase: 'Running', conditions: marked }));
    assert.equal(api.sent.length, 1, 'not at once: at the next sync');
    kubelet.resyncPods?.();
    await kubelet.flushed();
    assert.equal(api.sent.length, 2);
    const sent = (api.sent[1]?.body?.['status'] as { conditions: Record<string, unknown>[] })
      .conditions;
    const byType = (type: string) => sent.find((c) => c['type'] === type);
    assert.deepEqual(byType('Ready'), { type: 'Ready', status: 'True', reason: null });
    assert.deepEqual(byType('ContainersReady'), {
      type: 'ContainersReady',
      status: 'True',
      reason: null,
    });
    assert.equal(byType('DisruptionTarget'), undefined, "another writer's: not sent back");
    assert.equal(sent.length, 2, 'only the two it put back');
    kubelet.resyncPods?.();
    await kubelet.flushed();
    assert.equal(api.sent.length, 2, 'once put back, nothing more');
    kubelet.stop();
  });

  it('stops posting once its Node is deleted', async () => {
    const api = scriptedApi(() => {
      throw apiError(404, 'NotFound');
    });
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.writeNodeStatus((n) => void (n.status = { phase: 'Running' }));
    await kubelet.flushed();
    assert.equal(kubelet.node(), undefined);
    kubelet.writeNodeStatus((n) => void (n.status = { phase: 'Running', again: true }));
    await kubelet.flushed();
    assert.equal(api.sent.length, 1, 'no further writes');
    kubelet.stop();
  });

  it('removes a pod it terminated however long the apiserver is away, as a pod worker does', async () => {
    // 20 answers of 503 (Retry-After 1 ms, so the test takes no backoff): more than the eight tries
    // other writes get. Given up, the pod stayed Terminating for ever and a drain waited on it.
    let away = 20;
    const api = scriptedApi((sent) => {
      if (sent.method !== 'DELETE') return {};
      if (away-- > 0)
        throw new ApiCallError('unavailable', 'ServiceUnavailable', {
          status: 503,
          reason: 'ServiceUnavailable',
          retryAfterMs: 1,
        });
      return {};
    });
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.deletePod(pod('5'));
    await kubelet.flushed();
    const deletes = api.sent.filter((s) => s.method === 'DELETE');
    assert.equal(deletes.length, 21, 'tried until the apiserver answered');
    assert.deepEqual(deletes.at(-1)?.body?.['preconditions'], { uid: 'pod-uid' });
    kubelet.stop();
  });

  it('removes a pod past refusals of an apiserver just restarted (its authorizer not warm yet)', async () => {
    let refused = 3;
    const api = scriptedApi((sent) => {
      if (sent.method !== 'DELETE') return {};
      if (refused-- > 0)
        throw new ApiCallError('forbidden', 'cannot impersonate resource "users"', {
          status: 403,
          reason: 'Forbidden',
        });
      return {};
    });
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.deletePod(pod('5'));
    await kubelet.flushed();
    assert.equal(api.sent.filter((s) => s.method === 'DELETE').length, 4, 'tried until allowed');
    kubelet.stop();
  });

  it('stops trying to remove a pod once the kubelet is stopped', async () => {
    const api = scriptedApi((sent) => {
      if (sent.method !== 'DELETE') return {};
      throw new ApiCallError('unavailable', 'ServiceUnavailable', {
        status: 503,
        reason: 'ServiceUnavailable',
        retryAfterMs: 1,
      });
    });
    const kubelet = httpKubeletApi(api.client, NODE, silentLogger());
    kubelet.deletePod(pod('5'));
    // Past the eight tries other writes get, however slowly a loaded machine runs them (a fixed
    // 50 ms saw fewer than eight under CI's load).
    const deadline = Date.now() + 30_000;
    while (api.sent.length <= 8 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    kubelet.stop();
    const tried = api.sent.length;
    assert.ok(tried > 8, `still trying past eight while running (${tried})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(
      api.sent.length <= tried + 1,
      `at most the try in flight after stop (${tried} → ${api.sent.length})`,
    );
  });
});
