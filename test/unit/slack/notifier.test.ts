/**
 * The Slack notifier's promises to the control plane, with a fake chat and an in-memory cluster:
 * notify returns at once and never throws, even when every Slack call fails; events of one request
 * reach Slack in order (the reply never overtakes the prompt); a prompt that could not be posted is
 * posted by the next event; flush waits for everything queued.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterPort, NodeView } from '../../../src/app/control/ports.js';
import { createSlackNotifier } from '../../../src/adapters/slack/notifier.js';
import type { SlackChat } from '../../../src/adapters/slack/thread-chat.js';
import type { MaintenanceEvent } from '../../../src/core/events.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { silentLogger } from '../../../src/log.js';
import { byState } from '../templates/slack-fixtures.js';

/**
 * Just the reads and the conditional request write the notifier uses (ADR 0012): requests stored by
 * id with a resourceVersion, found by id or listed with their nodes; a write at a stale version is a
 * conflict, and a write without one creates (here: a test bug, refused).
 */
function memoryCluster(requests: MaintenanceRequest[]) {
  const stored = new Map<string, { request: MaintenanceRequest; version: string }>();
  for (const r of requests) stored.set(r.id, { request: r, version: '1' });
  const view = (id: string): NodeView | undefined => {
    const entry = stored.get(id);
    if (!entry) return undefined;
    const { request, version } = entry;
    return {
      name: request.node,
      resourceVersion: '7',
      request,
      requestVersion: version,
      requestAccepted: true,
    } as NodeView;
  };
  const cluster = {
    findRequest: (id: string) => Promise.resolve(view(id)),
    listRequestNodes: () => Promise.resolve([...stored.keys()].map((id) => view(id)!)),
    writeRequest: (request: MaintenanceRequest, version: string | undefined) => {
      const entry = stored.get(request.id);
      if (!entry || version === undefined)
        return Promise.reject(new Error(`the notifier only updates requests (${request.id})`));
      if (entry.version !== version)
        return Promise.reject(Object.assign(new Error('conflict'), { code: 'conflict' }));
      const next = String(Number(version) + 1);
      stored.set(request.id, { request, version: next });
      return Promise.resolve(next);
    },
  } as unknown as ClusterPort;
  /** The request of `node` as stored now. */
  const requestOn = (node: string): MaintenanceRequest | undefined =>
    [...stored.values()].find((e) => e.request.node === node)?.request;
  /** Another writer (a tick, a click) moves the request on: the notifier's next write conflicts. */
  const writeElsewhere = (id: string, change: (r: MaintenanceRequest) => MaintenanceRequest) => {
    const entry = stored.get(id)!;
    stored.set(id, { request: change(entry.request), version: String(Number(entry.version) + 1) });
  };
  return { cluster, requestOn, writeElsewhere };
}

function recordingChat(failures: { post?: number; update?: number } = {}) {
  const calls: string[] = [];
  let seq = 0;
  const chat: SlackChat = {
    async post(channel, message, threadTs) {
      await new Promise((r) => setTimeout(r, 5));
      calls.push(`post ${threadTs ? 'reply' : 'prompt'}: ${message.text.slice(0, 30)}`);
      if ((failures.post ?? 0) > 0 && failures.post!--) throw new Error('ratelimited');
      return { channel, ts: `100.${++seq}` };
    },
    update(_channel, ts, message) {
      calls.push(`update ${ts}: ${message.text.slice(0, 30)}`);
      if ((failures.update ?? 0) > 0 && failures.update!--)
        return Promise.reject(new Error('boom'));
      return Promise.resolve();
    },
  };
  return { chat, calls };
}

const event = (kind: MaintenanceEvent['kind'], r: MaintenanceRequest): MaintenanceEvent => ({
  kind,
  node: r.node,
  cluster: 'sim',
  requestId: r.id,
  action: r.action,
});

const setup = (
  chat: SlackChat,
  requests: MaintenanceRequest[],
  wrap: (memory: ReturnType<typeof memoryCluster>) => ClusterPort = (m) => m.cluster,
) => {
  const memory = memoryCluster(requests);
  const notifier = createSlackNotifier({
    channel: 'C1',
    chat,
    cluster: wrap(memory),
    clock: { now: () => new Date('2026-11-22T02:00:00Z') },
    log: silentLogger(),
    clusterName: 'sim',
    timeZone: 'UTC',
  });
  return { notifier, ...memory };
};

describe('slack notifier', () => {
  it('delivers one request’s events in order: prompt, then update and reply', async () => {
    const { chat, calls } = recordingChat();
    const { notifier, requestOn } = setup(chat, [byState.proposed]);
    await notifier.notify(event('proposed', byState.proposed), byState.proposed);
    await notifier.notify(event('approved', byState.approved), byState.approved);
    assert.ok(notifier.pending() > 0, 'notify does not wait for Slack');
    await notifier.flush();
    assert.equal(notifier.pending(), 0);
    assert.deepEqual(calls, [
      'post prompt: Reboot node-2 (sim): Proposed,',
      'update 100.1: Reboot node-2 (sim): Approved.',
      'post reply: :white_check_mark: Approved',
    ]);
    assert.deepEqual(requestOn('node-2')?.slack, { channel: 'C1', ts: '100.1' });
  });

  it('never throws when Slack fails, and the next event posts the missing prompt', async () => {
    const { chat, calls } = recordingChat({ post: 1, update: 5 });
    const { notifier, requestOn } = setup(chat, [byState.proposed]);
    await notifier.notify(event('proposed', byState.proposed), byState.proposed);
    await notifier.flush();
    assert.equal(requestOn('node-2')?.slack, undefined, 'nothing posted, nothing recorded');
    await notifier.notify(event('approved', byState.approved), byState.approved);
    await notifier.flush();
    assert.equal(calls.filter((c) => c.startsWith('post prompt')).length, 2);
    assert.ok(requestOn('node-2')?.slack, 'the retry recorded the thread');
    assert.ok(calls.at(-1)?.startsWith('post reply'), 'the reply still went to the thread');
  });

  it('records the thread on the request as it is now when another writer got there first', async () => {
    const { chat } = recordingChat();
    let raced = false;
    const { notifier, requestOn } = setup(chat, [byState.proposed], (memory) => ({
      ...memory.cluster,
      findRequest: async (id: string) => {
        const found = await memory.cluster.findRequest(id);
        if (!raced) {
          raced = true;
          // A click approves it between the notifier's read and its write.
          memory.writeElsewhere(id, () => byState.approved);
        }
        return found;
      },
    }));
    await notifier.notify(event('proposed', byState.proposed), byState.proposed);
    await notifier.flush();
    assert.ok(raced);
    assert.deepEqual(requestOn('node-2')?.slack, { channel: 'C1', ts: '100.1' });
    assert.equal(requestOn('node-2')?.state, 'approved', 'the other write was kept');
  });

  it('flush gives up after its timeout while Slack hangs', async () => {
    const hanging: SlackChat = {
      post: () => new Promise(() => undefined),
      update: () => Promise.resolve(),
    };
    const { notifier } = setup(hanging, [byState.proposed]);
    await notifier.notify(event('proposed', byState.proposed), byState.proposed);
    await notifier.flush(50);
    assert.equal(notifier.pending(), 1);
  });
});
