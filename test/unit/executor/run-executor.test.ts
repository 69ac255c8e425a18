import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runExecutor, type ExecutorInput } from '../../../src/app/executor/run-executor.js';
import type { ExecutorSettings } from '../../../src/app/executor/settings.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../../src/compose/executor-settings.js';
import { EXIT } from '../../../src/core/exit-codes.js';
import type { KubemaintError } from '../../../src/errors.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { silentLogger } from '../../../src/log.js';
import { FakeCluster, testClock, type FakeClusterOptions } from '../../fakes/cluster.js';
import { approvedRequest } from '../../fakes/requests.js';

const SETTINGS: ExecutorSettings = {
  ...DEFAULT_SETTINGS,
  drain: { ...DEFAULT_SETTINGS.drain, timeoutMs: 500, evictionRetryMs: 10, stallAfterMs: 10_000 },
  // An upgrade command of one's own (upgrade.method: command); kubeadm's is tested below.
  upgrade: {
    ...DEFAULT_SETTINGS.upgrade,
    method: 'command',
    command: ['/usr/local/bin/kubemaint-upgrade-kubelet', '{{version}}'],
  },
  progressIntervalMs: 0,
};

function setup(
  request: Partial<MaintenanceRequest> | null = {},
  options: FakeClusterOptions = {},
  node: { unschedulable?: boolean } = {},
) {
  const c = new FakeCluster(options);
  c.addNode('n1', node);
  if (request !== null) c.addRequest(approvedRequest('n1', request));
  for (let i = 0; i < 4; i++) c.addPod({ name: `web-${i}`, nodeName: 'n1' });
  return c;
}

const ports = (c: FakeCluster, hostExit = 0) => ({
  nodes: c.nodesPort(),
  requests: c.requestsPort(),
  pods: c.podsPort(),
  leases: c.leasesPort(),
  events: c.eventsPort(),
  host: c.hostPort(hostExit),
  clock: testClock,
  log: silentLogger(),
});
const input = (patch: Partial<ExecutorInput> = {}): ExecutorInput => ({
  node: 'n1',
  requestId: 'r-abc123',
  settings: SETTINGS,
  job: 'kubemaint-r-abc123-n1',
  ...patch,
});
/** The executor's request as stored (ADR 0012: the MaintenanceRequest, not the node). */
const requestOn = (c: FakeCluster) => c.request('r-abc123')!;
/** The control plane writes the request while the executor works (a cancel, a drain decision). */
const controlPlaneWrites = (
  c: FakeCluster,
  change: (r: MaintenanceRequest) => MaintenanceRequest,
): void => c.writeRequestStatus('r-abc123', change);
const steps = (c: FakeCluster) =>
  c.log.filter(
    (l) => !l.startsWith('write-request') && !l.startsWith('gone') && !l.startsWith('evict'),
  );

describe('runExecutor', () => {
  it('marks the node DrainInProgress, Drained, then MaintenanceInProgress before the reboot', async () => {
    const c = setup();
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.deepEqual(
      c.conditionWrites.map((w) => [w.node, w.types.join('+'), w.hostCommandsBefore]),
      [
        ['n1', 'DrainInProgress', 0],
        ['n1', 'Drained', 0],
        ['n1', 'Drained+MaintenanceInProgress', 0],
      ],
    );
    assert.match(
      c.maintenanceConditions.get('n1')![1]!.message,
      /kubemaint request r-abc123 \(reboot\): rebooting/,
    );
    assert.equal(c.host.length, 1, 'the reboot ran after the conditions were written');
  });

  it('removes the maintenance conditions when it ends the request itself', async () => {
    const c = setup({}, { stuck: () => true });
    const result = await runExecutor(ports(c), input());
    assert.notEqual(result.exitCode, EXIT.ok);
    assert.deepEqual(c.maintenanceConditions.get('n1'), []);
    assert.equal(c.conditionWrites[0]!.types.join('+'), 'DrainInProgress');
  });

  it('goes on when the conditions cannot be written (an install whose RBAC predates them)', async () => {
    const c = setup();
    const nodes = c.nodesPort();
    const refused = {
      ...ports(c),
      nodes: {
        ...nodes,
        setMaintenanceConditions: async () => {
          throw new Error('nodes "n1" is forbidden: cannot patch resource "nodes/status"');
        },
      },
    };
    const result = await runExecutor(refused, input());
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.equal(c.host.length, 1);
  });

  it('locks, cordons, drains, records the bootID, then reboots, in that order', async () => {
    const c = setup();
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.deepEqual(steps(c), [
      'lease kubemaint-slot-0 → n1/r-abc123',
      'event KubemaintStarted',
      'cordon n1',
      'event KubemaintCordoned',
      'event KubemaintDraining',
      'event KubemaintDrained',
      'event KubemaintRebooting',
      'host nsenter -m/proc/1/ns/mnt -- systemctl reboot',
    ]);
    const r = requestOn(c);
    assert.equal(r.state, 'verifying');
    assert.equal(r.bootIdBefore, 'boot-n1-1');
    assert.equal(r.slot, 'kubemaint-slot-0');
    assert.equal(r.job, 'kubemaint-r-abc123-n1');
    assert.equal(r.wasCordoned, false);
    assert.equal(r.cordonedByUs, true);
    assert.ok(r.hostCommandIssuedAt);
    assert.equal(r.drain?.message, '4 of 4 pods evicted');
    assert.deepEqual(
      r.history.slice(-2).map((h) => h.to),
      ['running', 'verifying'],
    );
    // What the control plane recorded stays as it was: the executor may not touch approvals.
    assert.deepEqual(r.approvals, approvedRequest('n1').approvals);
    assert.equal(r.requestedBy, 'detector');
    // The request lives in its object: the executor writes nothing on the node but the cordon
    // (the kubemaint.io/state mirror label is the control plane's to keep).
    assert.deepEqual(c.nodes.get('n1')!.labels, {});
    assert.deepEqual(c.nodes.get('n1')!.annotations, {});
    assert.equal(c.podsOn('n1').length, 0);
  });

  it('runs a request as dispatch leaves it (running, its Job recorded) and keeps its Job', async () => {
    const at = '2026-11-22T01:05:00.000Z';
    const base = approvedRequest('n1');
    const c = setup({
      state: 'running',
      job: 'kubemaint-r-abc123-n1',
      history: [...base.history, { from: 'approved', to: 'running', at, by: 'kubemaint' }],
    });
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.ok, result.message);
    const r = requestOn(c);
    assert.equal(r.state, 'verifying');
    assert.equal(r.job, 'kubemaint-r-abc123-n1');
    assert.deepEqual(r.approvals, base.approvals);
    assert.deepEqual(
      r.history.slice(-2).map((h) => [h.from, h.to, h.by]),
      [
        ['approved', 'running', 'kubemaint'],
        ['running', 'verifying', 'executor'],
      ],
    );
    // Every write moved a running request, as admission allows the executor (ADR 0012).
    assert.deepEqual(
      c.statusWrites.filter(
        (w) => w.from !== 'running' || !['running', 'verifying'].includes(w.to),
      ),
      [],
    );
  });

  it('retries a status write that lost its race on the re-read request, keeping the other write', async () => {
    const c = setup();
    const port = c.requestsPort();
    let raced = false;
    const conflicts: string[] = [];
    const racing = {
      get: (id: string) => port.get(id),
      writeStatus: async (request: MaintenanceRequest, version: string) => {
        if (!raced) {
          raced = true;
          // The control plane writes first (a Slack thread recorded): the executor's write is stale.
          controlPlaneWrites(c, (r) => ({ ...r, slack: { channel: 'C1', ts: '1.2' } }));
        }
        try {
          return await port.writeStatus(request, version);
        } catch (error) {
          conflicts.push((error as KubemaintError).code);
          throw error;
        }
      },
    };
    const result = await runExecutor({ ...ports(c), requests: racing }, input());
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.deepEqual(conflicts, ['conflict']);
    assert.equal(requestOn(c).state, 'verifying');
    assert.deepEqual(requestOn(c).slack, { channel: 'C1', ts: '1.2' });
  });

  it('never issues the host command twice when run again', async () => {
    const c = setup();
    await runExecutor(ports(c), input());
    const again = await runExecutor(ports(c), input());
    assert.equal(again.exitCode, EXIT.ok);
    assert.match(again.message, /already issued/);
    assert.equal(c.host.length, 1);
  });

  it('resumes a run that died after cordoning, and still uncordons later as its own', async () => {
    const c = setup(
      { state: 'running', wasCordoned: false, cordonedByUs: true, slot: 'kubemaint-slot-0' },
      {},
      { unschedulable: true },
    );
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.ok);
    assert.equal(requestOn(c).cordonedByUs, true);
    assert.equal(c.host.length, 1);
  });

  const invalid = [
    { why: 'no request at all', request: null },
    { why: 'only another request id', request: { id: 'r-other' } },
    { why: 'a request for another node', request: { node: 'n2' } },
    { why: 'a cancelled request', request: { state: 'cancelled' as const } },
    { why: 'a request not yet approved', request: { state: 'proposed' as const } },
    {
      why: 'an upgrade to a version that is not plain',
      request: { action: 'upgrade' as const, targetVersion: 'v1.32.1;reboot' },
    },
  ];
  for (const c of invalid) {
    it(`exits requestInvalid without touching anything for ${c.why}`, async () => {
      const cluster = setup(c.request);
      const before = structuredClone(cluster.nodes.get('n1'));
      const requestsBefore = structuredClone(cluster.requests);
      const result = await runExecutor(ports(cluster), input());
      assert.equal(result.exitCode, EXIT.requestInvalid);
      assert.deepEqual(cluster.nodes.get('n1'), before);
      assert.deepEqual(cluster.requests, requestsBefore);
      assert.deepEqual(cluster.log, []);
    });
  }

  it('exits noSlot and changes nothing when every slot is held', async () => {
    const c = setup();
    const now = new Date();
    c.addNode('n9');
    c.addRequest(approvedRequest('n9', { id: 'r-9', state: 'running' }));
    await c.leasesPort().createLease('kubemaint', 'kubemaint-slot-0', {
      holder: 'n9/r-9',
      durationSeconds: 600,
      acquiredAt: now,
      renewedAt: now,
      transitions: 0,
    });
    c.log.length = 0;
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.noSlot);
    assert.deepEqual(c.log, []);
  });

  it('takes the slot of a holder whose request ended', async () => {
    const c = setup();
    const now = new Date();
    c.addNode('n9');
    c.addRequest(approvedRequest('n9', { id: 'r-9', state: 'done' }));
    await c.leasesPort().createLease('kubemaint', 'kubemaint-slot-0', {
      holder: 'n9/r-9',
      durationSeconds: 600,
      acquiredAt: now,
      renewedAt: now,
      transitions: 0,
    });
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.ok);
  });

  it('gives the node back when the drain is blocked: uncordoned, slot released, request failed', async () => {
    const c = setup(
      {},
      {
        refuse: (pod) =>
          pod.name === 'web-2'
            ? 'The disruption budget web needs 4 healthy pods and has 4 currently'
            : undefined,
      },
    );
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.drainBlocked);
    const r = requestOn(c);
    assert.equal(r.state, 'failed');
    assert.match(r.failure ?? '', /blocking pods: default\/web-2 — PDB web allows 0 disruptions/);
    assert.match(r.failure ?? '', /node uncordoned/);
    assert.equal(c.nodes.get('n1')!.unschedulable, false);
    assert.equal(c.leases.get('kubemaint/kubemaint-slot-0')!.holder, '');
    assert.equal(c.host.length, 0);
    assert.ok(
      c.events.some(
        (e) => e.event.reason === 'KubemaintDrainBlocked' && e.event.type === 'Warning',
      ),
    );
  });

  it('drain.onTimeout uncordon: gives the node back and ends the request skipped, naming the pods that refused', async () => {
    const c = setup(
      {},
      {
        refuse: (pod) =>
          pod.name === 'web-2'
            ? 'The disruption budget web needs 4 healthy pods and has 4 currently'
            : undefined,
      },
    );
    const settings = { ...SETTINGS, drain: { ...SETTINGS.drain, onTimeout: 'uncordon' as const } };
    const result = await runExecutor(ports(c), input({ settings }));
    assert.equal(result.exitCode, EXIT.drainBlocked);
    const r = requestOn(c);
    assert.equal(r.state, 'skipped');
    assert.match(
      r.failure ?? '',
      /pods that refused: default\/web-2 — PDB web allows 0 disruptions/,
    );
    assert.match(r.failure ?? '', /node uncordoned/);
    assert.equal(c.nodes.get('n1')!.unschedulable, false);
    assert.equal(c.leases.get('kubemaint/kubemaint-slot-0')!.holder, '');
    assert.equal(c.host.length, 0);
    assert.ok(c.events.some((e) => e.event.reason === 'KubemaintSkipped'));
    // admission-requests.yaml lets the executor end a running request skipped.
    assert.deepEqual(
      c.statusWrites.filter((w) => w.to === 'skipped').map((w) => w.from),
      ['running'],
    );
  });

  it('drain.onTimeout force: says why the node stays cordoned, deletes the rest, then reboots', async () => {
    const c = setup(
      {},
      {
        refuse: (pod) =>
          pod.name === 'web-2'
            ? 'The disruption budget web needs 4 healthy pods and has 4 currently'
            : undefined,
      },
    );
    const settings = {
      ...SETTINGS,
      drain: { ...SETTINGS.drain, onTimeout: 'force' as const, forceAfterMs: 100 },
    };
    const result = await runExecutor(ports(c), input({ settings }));
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.equal(requestOn(c).state, 'verifying');
    assert.ok(c.log.includes('delete default/web-2'));
    const reasons = c.events.map((e) => e.event.reason);
    assert.ok(reasons.includes('KubemaintDrainTimedOut'));
    assert.ok(reasons.includes('KubemaintDrainForced'));
    assert.ok(reasons.indexOf('KubemaintDrainForced') < reasons.indexOf('KubemaintRebooting'));
  });

  it('leaves a node cordoned that was cordoned before kubemaint came', async () => {
    const c = setup(
      {},
      { refuse: (pod) => (pod.name === 'web-2' ? 'nope' : undefined) },
      { unschedulable: true },
    );
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.drainBlocked);
    assert.equal(c.nodes.get('n1')!.unschedulable, true);
    assert.equal(requestOn(c).wasCordoned, true);
    assert.match(requestOn(c).failure ?? '', /left cordoned/);
    assert.ok(!c.log.includes('cordon n1') && !c.log.includes('uncordon n1'));
  });

  it('ends cancelled on an operator skip', async () => {
    const c = setup({}, { refuse: (pod) => (pod.name === 'web-1' ? 'nope' : undefined) });
    const settings = {
      ...SETTINGS,
      drain: { ...SETTINGS.drain, timeoutMs: 5_000, stallAfterMs: 50 },
    };
    const running = runExecutor(ports(c), input({ settings }));
    // The operator's answer arrives on the request while the drain is stalled.
    await testClock.sleep(100);
    controlPlaneWrites(c, (r) => ({
      ...r,
      drainDecision: { decision: 'skip', by: 'U1', at: new Date().toISOString() },
    }));
    const result = await running;
    assert.equal(result.exitCode, EXIT.drainBlocked);
    assert.equal(requestOn(c).state, 'cancelled');
    assert.equal(c.nodes.get('n1')!.unschedulable, false);
  });

  it('an operator skip ends the request with a status write admission lets the executor make', async () => {
    const c = setup(
      { state: 'running', job: 'kubemaint-r-abc123-n1' },
      { refuse: (pod) => (pod.name === 'web-1' ? 'nope' : undefined) },
    );
    const settings = {
      ...SETTINGS,
      drain: { ...SETTINGS.drain, timeoutMs: 5_000, stallAfterMs: 50 },
    };
    const running = runExecutor(ports(c), input({ settings }));
    await testClock.sleep(100);
    controlPlaneWrites(c, (r) => ({
      ...r,
      drainDecision: { decision: 'skip', by: 'U1', at: new Date().toISOString() },
    }));
    assert.equal((await running).exitCode, EXIT.drainBlocked);
    // admission-requests.yaml: running → running | verifying | failed, or cancelled after a skip
    // the control plane recorded (drainDecision) — exactly the writes the executor made here.
    assert.deepEqual(
      c.statusWrites.filter(
        (w) =>
          w.from !== 'running' || !['running', 'verifying', 'failed', 'cancelled'].includes(w.to),
      ),
      [],
    );
    assert.ok(c.statusWrites.some((w) => w.to === 'cancelled'));
  });

  it('upgrades: records the kubelet version and arranges the restart after the install', async () => {
    const c = setup({ action: 'upgrade', targetVersion: 'v1.32.0' });
    const result = await runExecutor(ports(c), input());
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.deepEqual(c.host, [
      'nsenter -m/proc/1/ns/mnt -- /usr/local/bin/kubemaint-upgrade-kubelet v1.32.0',
      'nsenter -m/proc/1/ns/mnt -- systemd-run --on-active=15 systemctl restart kubelet',
    ]);
    assert.equal(requestOn(c).kubeletVersionBefore, 'v1.31.4');
    assert.ok(c.log.includes('event KubemaintUpgrading'));
  });

  it('refuses a kubeadm upgrade on a node whose OS the scripts do not cover: nothing changes', async () => {
    const c = setup({ action: 'upgrade', targetVersion: 'v1.32.0' });
    const kubeadm = { ...SETTINGS, upgrade: { ...DEFAULT_SETTINGS.upgrade, script: '#!/bin/sh' } };
    const result = await runExecutor(ports(c), input({ settings: kubeadm }));
    assert.equal(result.exitCode, EXIT.requestInvalid);
    assert.match(result.message, /node n1 runs an unknown OS \(no osImage\)/);
    assert.deepEqual(c.host, []);
    assert.equal(c.nodes.get('n1')!.unschedulable, false, 'not cordoned');
  });

  it('reports a failed host command and gives the node back', async () => {
    const c = setup();
    const result = await runExecutor(ports(c, 1), input());
    assert.equal(result.exitCode, EXIT.unexpected);
    assert.equal(requestOn(c).state, 'failed');
    assert.match(
      requestOn(c).failure ?? '',
      /host command failed \(exit 1\).*boom.*node uncordoned/,
    );
    assert.equal(c.nodes.get('n1')!.unschedulable, false);
  });
});

describe("runExecutor with kured's drain and reboot delays", () => {
  const delayed = { ...SETTINGS, delays: { beforeDrainMs: 40, beforeRebootMs: 40 } };

  it('waits after the cordon and before the reboot, and says so on the node', async () => {
    const c = setup();
    const result = await runExecutor(ports(c), input({ settings: delayed }));
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.deepEqual(steps(c), [
      'lease kubemaint-slot-0 → n1/r-abc123',
      'event KubemaintStarted',
      'cordon n1',
      'event KubemaintCordoned',
      'event KubemaintWaiting',
      'event KubemaintDraining',
      'event KubemaintDrained',
      'event KubemaintWaiting',
      'event KubemaintRebooting',
      'host nsenter -m/proc/1/ns/mnt -- systemctl reboot',
    ]);
    assert.deepEqual(
      c.events.filter((e) => e.event.reason === 'KubemaintWaiting').map((e) => e.event.message),
      [
        'waiting 40ms before draining (drain.delay)',
        'waiting 40ms before the reboot (reboot.delay)',
      ],
    );
  });

  it('an upgrade does not wait for reboot.delay', async () => {
    const c = setup({ action: 'upgrade', targetVersion: 'v1.31.4' });
    const result = await runExecutor(ports(c), input({ settings: delayed }));
    assert.equal(result.exitCode, EXIT.ok, result.message);
    assert.equal(c.events.filter((e) => e.event.reason === 'KubemaintWaiting').length, 1);
  });

  it('a cancel during the wait gives the node back before any eviction', async () => {
    const c = setup();
    const slow = { ...SETTINGS, delays: { beforeDrainMs: 300, beforeRebootMs: 0 } };
    const running = runExecutor(ports(c), input({ settings: slow }));
    await testClock.sleep(100);
    controlPlaneWrites(c, (r) => ({ ...r, state: 'cancelled' }));
    const result = await running;
    assert.equal(result.exitCode, EXIT.requestInvalid);
    assert.equal(c.nodes.get('n1')!.unschedulable, false);
    assert.ok(!c.log.some((l) => l.startsWith('evict')), 'nothing was evicted');
    assert.equal(c.host.length, 0);
  });
});

describe('runExecutor when the request ends under it', () => {
  it('gives the node back when the request is cancelled during the drain', async () => {
    const c = setup({}, { refuse: (pod) => (pod.name === 'web-1' ? 'nope' : undefined) });
    const settings = {
      ...SETTINGS,
      drain: { ...SETTINGS.drain, timeoutMs: 5_000, stallAfterMs: 50 },
    };
    const running = runExecutor(ports(c), input({ settings }));
    await testClock.sleep(100);
    controlPlaneWrites(c, (r) => ({ ...r, state: 'cancelled' }));
    const result = await running;
    assert.equal(result.exitCode, EXIT.requestInvalid);
    assert.match(result.message, /has ended \(cancelled\); node uncordoned/);
    assert.equal(c.nodes.get('n1')!.unschedulable, false);
    assert.equal(c.leases.get('kubemaint/kubemaint-slot-0')!.holder, '');
    assert.equal(c.host.length, 0);
  });
});
