/**
 * The executor under stress on the sim, through the real HTTP API: SIGKILLed at each step boundary
 * and run again (exactly one reboot, no node left cordoned without an active request), 20 executors
 * racing for 2 slots, and a PDB that never allows a disruption.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKubeClient, loadKubeConfig } from '../../../src/adapters/kube/client.js';
import { decodeRequest } from '../../../src/adapters/kube/request-codec.js';
import { kubeLeasesPort } from '../../../src/adapters/kube/leases.js';
import { acquireSlot, releaseSlot } from '../../../src/app/executor/slots.js';
import { systemClock } from '../../../src/app/executor/system-clock.js';
import { EXIT } from '../../../src/core/exit-codes.js';
import { isActive } from '../../../src/core/request.js';
import type { Sim } from '@kubemaint/kubesim';
import { R, type KObject, type WatchEvent } from '@kubemaint/kubesim';
import { R_REQUESTS } from '../../support/in-process-executor.js';
import {
  bootId,
  fleet,
  getNode,
  isReady,
  nodeNames,
  podsOn,
  putRequest,
  reboots,
  requestOf,
  simSettings,
  runCli,
  startExecutor,
  until,
} from '../../support/executor-fleet.js';

let sim: Sim;
before(async () => {
  sim = await fleet({ nodes: 8, podsPerNode: 6 });
});
after(() => sim.stop());

type Boundary = {
  name: string;
  resource: string;
  /** True once the step this boundary follows is done for `node`. */
  reached: (event: WatchEvent, node: string) => boolean;
};

/** A MaintenanceRequest object's request, as the executor and the control plane read it. */
const requestIn = (o: KObject) => {
  const decoded = decodeRequest(o);
  return decoded.ok ? decoded.stored.request : undefined;
};

const BOUNDARIES: Boundary[] = [
  {
    name: 'slot taken',
    resource: R.leases,
    reached: (e, node) =>
      (e.object.spec?.['holderIdentity'] as string | undefined)?.startsWith(`${node}/`) ?? false,
  },
  {
    name: 'request running',
    resource: R_REQUESTS,
    reached: (e, node) =>
      requestIn(e.object)?.node === node && requestIn(e.object)?.state === 'running',
  },
  {
    name: 'node cordoned',
    resource: R.nodes,
    reached: (e, node) =>
      e.object.metadata.name === node && e.object.spec?.['unschedulable'] === true,
  },
  {
    name: 'first eviction',
    resource: R.pods,
    reached: (e, node) =>
      e.object.spec?.['nodeName'] === node &&
      e.object.metadata.deletionTimestamp !== undefined &&
      !e.object.metadata.name?.startsWith('node-agent'),
  },
  {
    name: 'drain done',
    resource: R.events,
    reached: (e, node) =>
      e.object['reason'] === 'KubemaintDrained' &&
      (e.object['involvedObject'] as { name?: string }).name === node,
  },
  {
    name: 'host command issued',
    resource: R.nodes,
    reached: (e, node) => e.object.metadata.name === node && reboots(sim, node).length > 0,
  },
];

describe('executor resilience on the sim', () => {
  it('SIGKILLed at each step boundary and run again: exactly one reboot each', async () => {
    const nodes = nodeNames(sim);
    for (const [i, boundary] of BOUNDARIES.entries()) {
      const node = nodes[i]!;
      const before = bootId(sim, node);
      const request = await putRequest(sim, node, { id: `r-kill${i}` });
      const settings = simSettings();
      const first = await startExecutor(sim, node, request.id, settings);
      let killed = false;
      const stop = sim.store.watch(boundary.resource, (event) => {
        if (!killed && boundary.reached(event, node)) {
          killed = first.child.kill('SIGKILL');
        }
      });
      // The host log is not a store resource: poll it for the last boundary.
      const poll = setInterval(() => {
        if (!killed && boundary.name === 'host command issued' && reboots(sim, node).length > 0) {
          killed = first.child.kill('SIGKILL');
        }
      }, 5);
      const ended = await first.done;
      stop();
      clearInterval(poll);
      assert.equal(
        ended.signal,
        'SIGKILL',
        `${boundary.name}: the first run was killed (${ended.output.slice(-500)})`,
      );

      const second = await (await startExecutor(sim, node, request.id, settings)).done;
      assert.equal(second.code, EXIT.ok, `${boundary.name}: ${second.output.slice(-800)}`);
      assert.equal(reboots(sim, node).length, 1, `${boundary.name}: exactly one reboot`);
      assert.equal(requestOf(sim, node)?.state, 'verifying');
      await until(
        `${node} back with a new bootID`,
        () => bootId(sim, node) !== before && isReady(sim, node),
        30_000,
      );
    }
    for (const node of nodeNames(sim)) {
      const cordoned = getNode(sim, node).spec?.['unschedulable'] === true;
      const request = requestOf(sim, node);
      assert.ok(
        !cordoned || (request && isActive(request.state)),
        `${node} is cordoned without an active request`,
      );
    }
  });

  it('lets 20 executors racing for 2 slots never hold more than 2, over 50 rounds', async () => {
    const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
    const deps = {
      leases: kubeLeasesPort(client),
      clock: systemClock,
      isHolderLive: async () => true,
    };
    const config = { namespace: 'kube-system', concurrency: 2, ttlMs: 60_000 };
    const fromRv = Math.max(...sim.admin.audit().map((e) => e.rv));
    for (let round = 0; round < 50; round++) {
      const won = (
        await Promise.all(
          Array.from({ length: 20 }, (_, i) => acquireSlot(deps, config, `node-${i}/r-${round}`)),
        )
      ).filter((slot) => slot !== undefined);
      assert.equal(won.length, 2, `round ${round}: two winners`);
      assert.notEqual(won[0]!.name, won[1]!.name);
      await Promise.all(won.map((slot) => releaseSlot(deps, config, slot.name, slot.holder)));
    }
    // Replay every Lease write: a slot passes only from free to a holder and back, never from one
    // live holder to another, and no more than two are held at any instant.
    const holders = new Map<string, string>();
    for (const entry of sim.admin.audit()) {
      if (entry.resource !== R.leases || entry.rv <= fromRv || entry.namespace !== 'kube-system')
        continue;
      const name = entry.object.metadata.name ?? '';
      const next = (entry.object.spec?.['holderIdentity'] as string | undefined) ?? '';
      const previous = holders.get(name) ?? '';
      assert.ok(
        previous === '' || next === '' || previous === next,
        `rv ${entry.rv}: ${name} passed from ${previous} to ${next}`,
      );
      holders.set(name, next);
      assert.ok([...holders.values()].filter(Boolean).length <= 2);
    }
    assert.equal(holders.size, 2);
  });

  it('drains for operators with `kubemaint drain`: a dry run changes nothing, then a real one', async () => {
    const node = nodeNames(sim)[6]!;
    // Replacements of pods drained earlier in this file may have landed here: count what is there.
    const evictable = () =>
      podsOn(sim, node).filter((p) => !p.metadata.name?.startsWith('node-agent')).length;
    const pods = podsOn(sim, node).length;
    const dry = await runCli(sim, ['drain', node, '--dry-run', '--kubeconfig', sim.kubeconfigPath]);
    assert.equal(dry.code, EXIT.ok, dry.output);
    assert.match(dry.stdout, new RegExp(`dry run: would evict ${evictable()} pods`));
    assert.equal(podsOn(sim, node).length, pods);
    assert.notEqual(getNode(sim, node).spec?.['unschedulable'], true);

    const real = await runCli(sim, [
      'drain',
      node,
      '--timeout',
      '1m',
      '--json',
      '--kubeconfig',
      sim.kubeconfigPath,
    ]);
    assert.equal(real.code, EXIT.ok, real.output);
    const report = JSON.parse(real.stdout) as { outcome: string; evict: string[] };
    assert.equal(report.outcome, 'drained');
    assert.ok(report.evict.length >= 5);
    assert.match(real.stderr, new RegExp(`node/${node} cordoned`));
    assert.match(
      real.stderr,
      new RegExp(`${report.evict.length} of ${report.evict.length} pods evicted`),
    );
    assert.equal(evictable(), 0);
    assert.equal(getNode(sim, node).spec?.['unschedulable'], true);
  });

  it('ends "drain blocked" at the timeout when a PDB never allows a disruption, and says why', async () => {
    const node = nodeNames(sim)[7]!;
    const guarded = podsOn(sim, node).find((p) => p.metadata.labels?.['app']?.startsWith('app-'))!;
    const app = guarded.metadata.labels!['app']!;
    sim.store.mutate(R.pdbs, guarded.metadata.namespace, app, (pdb) => {
      pdb.spec = { selector: { matchLabels: { app } }, minAvailable: 100 };
    });
    const request = await putRequest(sim, node, { id: 'r-blocked' });
    const settings = simSettings({ drain: { ...simSettings().drain, timeoutMs: 3_000 } });
    const ended = await (await startExecutor(sim, node, request.id, settings)).done;
    assert.equal(ended.code, EXIT.drainBlocked, ended.output.slice(-800));
    const r = requestOf(sim, node)!;
    assert.equal(r.state, 'failed');
    assert.match(r.failure ?? '', /drain of .* blocked \(the drain timeout \(3s\) passed\)/);
    assert.match(
      r.failure ?? '',
      new RegExp(
        `blocking pods: ${guarded.metadata.namespace}/[^;]+ — PDB ${app} allows 0 disruptions`,
      ),
    );
    assert.match(r.failure ?? '', /node uncordoned \(kubemaint had cordoned it\)/);
    assert.equal(getNode(sim, node).spec?.['unschedulable'] ?? false, false);
    assert.equal(reboots(sim, node).length, 0);
    const events = sim.store.list(R.events, { namespace: 'default' });
    assert.ok(
      events.some(
        (e) =>
          e['reason'] === 'KubemaintDrainBlocked' &&
          (e['involvedObject'] as { name?: string }).name === node,
      ),
    );
  });
});
