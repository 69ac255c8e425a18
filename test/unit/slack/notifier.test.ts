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

/** Just the node reads and the conditional request write the notifier uses. */
function memoryCluster(requests: MaintenanceRequest[]) {
  const nodes = new Map<string, NodeView>();
  for (const r of requests)
    nodes.set(r.node, { name: r.node, resourceVersion: '1', request: r } as NodeView);
  const cluster = {
    getNode: (name: string) => Promise.resolve(nodes.get(name)),
    listNodes: () => Promise.resolve([...nodes.values()]),
    writeRequest: (name: string, rv: string, request: MaintenanceRequest) => {
      const node = nodes.get(name)!;
      if (node.resourceVersion !== rv)
        return Promise.reject(Object.assign(new Error('conflict'), { code: 'conflict' }));
      const next = String(Number(rv) + 1);
      nodes.set(name, { ...node, resourceVersion: next, request });
      return Promise.resolve(next);
    },
  } as unknown as ClusterPort;
  return { cluster, nodes };
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

const setup = (chat: SlackChat, requests: MaintenanceRequest[]) => {
  const memory = memoryCluster(requests);
  const notifier = createSlackNotifier({
    channel: 'C1',
    chat,
    cluster: memory.cluster,
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
    const { notifier, nodes } = setup(chat, [byState.proposed]);
    await notifier.notify(event('proposed', byState.proposed), byState.proposed);
    await notifier.notify(event('approved', byState.approved), byState.approved);
    assert.ok(notifier.pending() > 0, 'notify does not wait for Slack');
    await notifier.flush();
    assert.equal(notifier.pending(), 0);
    assert.deepEqual(calls, [
      'post prompt: Reboot node-2 (sim): Waiting f',
      'update 100.1: Reboot node-2 (sim): Approved.',
      'post reply: :white_check_mark: Approved',
    ]);
    assert.deepEqual(nodes.get('node-2')?.request?.slack, { channel: 'C1', ts: '100.1' });
  });

  it('never throws when Slack fails, and the next event posts the missing prompt', async () => {
    const { chat, calls } = recordingChat({ post: 1, update: 5 });
    const { notifier, nodes } = setup(chat, [byState.proposed]);
    await notifier.notify(event('proposed', byState.proposed), byState.proposed);
    await notifier.flush();
    assert.equal(
      nodes.get('node-2')?.request?.slack,
      undefined,
      'nothing posted, nothing recorded',
    );
    await notifier.notify(event('approved', byState.approved), byState.approved);
    await notifier.flush();
    assert.equal(calls.filter((c) => c.startsWith('post prompt')).length, 2);
    assert.ok(nodes.get('node-2')?.request?.slack, 'the retry recorded the thread');
    assert.ok(calls.at(-1)?.startsWith('post reply'), 'the reply still went to the thread');
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
