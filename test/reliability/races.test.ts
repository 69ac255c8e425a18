/**
 * Issue 9, races: two real `kubemaint serve` processes on the same cluster, both ticking (cron and
 * watches) and both serving Slack; every request gets a burst of signed Approve clicks split across
 * the two (two approvers, at once) plus concurrent `kubemaint approve` commands. The cluster is the
 * only store, every transition a conditional write: each request must be approved once, get
 * exactly one Job and reach done, with never more than `concurrency` nodes disrupted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest, requestMaintenance } from '../../src/app/control/commands.js';
import { runTick } from '../../src/app/control/tick.js';
import { LABEL_STATE } from '../../src/core/names.js';
import { R } from '@kubemaint/kubesim';
import { startTestSim, waitFor, type TestSim } from '../support/sim.js';
import { testControlDeps, testControlSettings } from '../support/control.js';
import { checkSim, R_REQUESTS } from '../support/invariants.js';
import {
  APPROVERS,
  CLI_APPROVER_IDS,
  clickApprove,
  jobsByRequest,
  markForReboot,
  runCliCommand,
  startServe,
  startServeCluster,
  statesOf,
  unexpectedErrors,
  type ServeCluster,
  type ServeProcess,
} from './serve-support.js';
import { alice, clearMarks, FULL, report, requestOf } from './support.js';

const CONCURRENCY = 2;
/** The store key of MaintenanceApproval objects in the sim. */
const R_DECISIONS = 'maintenanceapprovals.kubemaint.io';
/** What a command that lost a conditional write says (commands.ts): documented, not an error. */
const LOST_RACE = /the request changed while we wrote it; look at it again and retry/;
const DISPATCH_ROUNDS = FULL ? 100 : 30;
/** Requests per round, clicks per request (split across both serves), CLI approvals per request. */
const SIZE = FULL
  ? // One CLI process per request: each costs a second of CPU to start, and a dozen at once on
    // two cores kept serve from acking clicks within Bolt's 3 s (it then answers 404).
    { rounds: 5, nodes: 6, clicks: 10, cliApprovals: 1 }
  : { rounds: 1, nodes: 4, clicks: 10, cliApprovals: 1 };

describe('races: two ticks dispatching at once', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: 3, podsPerNode: 1, scale: 1 });
  });
  after(() => sim?.close());

  it(`${DISPATCH_ROUNDS} rounds of two ticks racing over three approved requests never start more than the slots`, async () => {
    const names = clearMarks(sim);
    const settings = testControlSettings({ lock: { concurrency: 1, pools: {} } });
    const ticks = [testControlDeps(sim, { settings }), testControlDeps(sim, { settings })];
    const started: number[] = [];
    for (let round = 0; round < DISPATCH_ROUNDS; round++) {
      for (const node of names) {
        const { request } = await requestMaintenance(ticks[0]!, {
          node,
          action: 'reboot',
          by: alice,
        });
        await approveRequest(ticks[0]!, request!.id, alice);
      }
      await Promise.all(ticks.map((deps) => runTick(deps)));
      const running = names.filter((n) => requestOf(sim, n)?.state === 'running');
      started.push(running.length);
      // Back to a clean slate: no request (nor its decisions), no Job.
      for (const resource of [R_REQUESTS, R_DECISIONS])
        for (const object of sim.store.list(resource, { namespace: 'kubemaint' }))
          sim.store.delete(resource, 'kubemaint', object.metadata.name ?? '');
      for (const node of names)
        sim.store.mutate(R.nodes, undefined, node, (n) => {
          delete n.metadata.labels?.[LABEL_STATE];
        });
      for (const job of sim.store.list(R.jobs, { namespace: 'kubemaint' }))
        sim.store.delete(R.jobs, 'kubemaint', job.metadata.name ?? '');
    }
    report('two ticks dispatching', {
      rounds: DISPATCH_ROUNDS,
      startedPerRound: [...new Set(started)].sort(),
    });
    assert.deepEqual(
      started.filter((n) => n !== 1),
      [],
      'each round started exactly one request (one slot)',
    );
  });

  it('a tick that looks between another tick’s running write and its Job creation leaves the request running', async () => {
    const names = clearMarks(sim);
    const settings = testControlSettings({ lock: { concurrency: 1, pools: {} } });
    const a = testControlDeps(sim, { settings });
    const b = testControlDeps(sim, { settings });
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inGap = () => {};
    const gap = new Promise<void>((resolve) => (inGap = resolve));
    // Tick A stops between writing `running` and creating the Job, as a slow API call would.
    const slowCreate = new Proxy(a.cluster, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (key !== 'createJob' || typeof value !== 'function') return value;
        return async (manifest: Record<string, unknown>) => {
          inGap();
          await gate;
          return (value as typeof target.createJob).call(target, manifest);
        };
      },
    });
    const node = names[0]!;
    const { request } = await requestMaintenance(a, { node, action: 'reboot', by: alice });
    await approveRequest(a, request!.id, alice);
    const tickA = runTick({ ...a, cluster: slowCreate });
    await gap;
    await runTick(b);
    const during = requestOf(sim, node);
    release();
    await tickA;
    assert.equal(during?.state, 'running', `tick B judged ${node}: ${during?.failure ?? ''}`);
    assert.equal(requestOf(sim, node)?.state, 'running');
    const job = requestOf(sim, node)?.job ?? '';
    assert.ok(sim.store.get(R.jobs, 'kubemaint', job), `Job ${job} exists`);
  });
});

describe(
  'races: two serves and concurrent clicks on the same requests',
  { timeout: 900_000 },
  () => {
    let cluster: ServeCluster;
    const serves: ServeProcess[] = [];
    after(async () => {
      await Promise.all(serves.map((s) => s.stop('SIGKILL')));
      await cluster?.close();
    });

    it(`${SIZE.rounds} round(s) of ${SIZE.nodes} requests, ${SIZE.clicks} clicks each across two serves: one approval, one Job, done`, async () => {
      const started = Date.now();
      cluster = await startServeCluster({
        nodes: SIZE.nodes * SIZE.rounds,
        concurrency: CONCURRENCY,
      });
      const { sim, api } = cluster;
      const names = clearMarks(sim);
      const fromRv = Math.max(0, ...sim.admin.audit().map((e) => e.rv));
      serves.push(...(await Promise.all([startServe(cluster, 'A'), startServe(cluster, 'B')])));
      let clicks = 0;
      const statuses: number[] = [];
      const cliResults: { code: number | null; stderr: string }[] = [];
      const ids: string[] = [];
      const slotRaceRetries: string[] = [];
      const people = testControlDeps(sim, {
        settings: testControlSettings({ lock: { concurrency: CONCURRENCY, pools: {} } }),
      });
      for (let round = 0; round < SIZE.rounds; round++) {
        const nodes = names.slice(round * SIZE.nodes, (round + 1) * SIZE.nodes);
        markForReboot(sim, nodes);
        const proposed = await waitFor(
          `round ${round}: ${nodes.length} proposals`,
          () => {
            const requests = nodes.map((n) => requestOf(sim, n));
            return requests.every((r) => r?.state === 'proposed')
              ? requests.map((r) => r!.id)
              : undefined;
          },
          60_000,
        );
        ids.push(...proposed);
        // Every click and command at once: clicks alternate between the serves and the approvers.
        const work: Promise<void>[] = [];
        for (const id of proposed) {
          for (let i = 0; i < SIZE.clicks; i++) {
            const serve = serves[i % 2]!;
            const user = APPROVERS[Math.floor(i / 2) % 2]!;
            const seq = ++clicks;
            work.push(
              clickApprove(cluster, serve, id, user, seq).then((s) => void statuses.push(s)),
            );
          }
          for (let i = 0; i < SIZE.cliApprovals; i++)
            work.push(
              runCliCommand(cluster, ['approve', id, '--as', i % 2 ? 'bob' : 'alice']).then(
                (r) => void cliResults.push(r),
              ),
            );
        }
        await Promise.all(work);
        await waitFor(
          `round ${round}: every request done`,
          async () => {
            // Two serves that list the fleet at different moments can still both start a request
            // for the last slot; the executor's Lease lets one through and the other ends "no free
            // slot", reported (RELIABILITY.md, known limits). Propose it again, as people would.
            for (const node of nodes) {
              const request = requestOf(sim, node);
              if (request?.state !== 'failed' || !/no free slot/.test(request.failure ?? ''))
                continue;
              slotRaceRetries.push(`${node}: ${request.id}`);
              const again = await requestMaintenance(people, { node, action: 'reboot', by: alice });
              if (!again.request) continue;
              ids.push(again.request.id);
              await approveRequest(people, again.request.id, alice);
            }
            return nodes.every((n) => requestOf(sim, n)?.state === 'done');
          },
          FULL ? 300_000 : 120_000,
        ).catch((error: unknown) => {
          throw new Error(
            `${String(error)}\n${statesOf(sim, nodes).join(', ')}\n` +
              serves.map((s) => `${s.name} stderr:\n${s.stderr().slice(-3000)}`).join('\n'),
          );
        });
      }

      const jobs = jobsByRequest(sim);
      const requests = names
        .slice(0, SIZE.rounds * SIZE.nodes)
        .map((n) => requestOf(sim, n)!)
        .filter((r) => ids.includes(r.id));
      // The clickers, the CLI approvers and the retries' alice: nobody else may have approved.
      const approvers = new Set<string>([...APPROVERS, ...CLI_APPROVER_IDS, alice.id]);
      const invariants = checkSim(sim, { concurrency: CONCURRENCY, approvers, fromRv });
      const reboots = sim.admin.hostLog().filter((a) => a.action === 'reboot');
      const errors = serves.flatMap((s) =>
        unexpectedErrors(s.stderr()).map((l) => `${s.name}: ${l}`),
      );
      // What the clickers were told (ephemeral replies through response_url).
      const said = api.callsOf('response_url').map((c) => String(c.args['text']));
      report('two serves, concurrent clicks', {
        serves: serves.length,
        requests: ids.length,
        clicks,
        cliApprovals: cliResults.length,
        cliLostRaces: cliResults.filter((r) => r.code !== 0).length,
        clicksToldToRetry: said.filter((t) => LOST_RACE.test(t)).length,
        slotRaceRetries,
        jobs: invariants.jobs,
        reboots: reboots.length,
        maxDisrupted: invariants.maxDisrupted,
        violations: invariants.violations.length,
        staleSlots: invariants.staleSlots.length,
        serveErrors: errors.length,
        serveErrorSample: errors.slice(0, 3),
        wallMs: Date.now() - started,
      });

      assert.equal(
        requests.length,
        SIZE.rounds * SIZE.nodes,
        'every node carries one of the requests (the last, when one was proposed again)',
      );
      // A request that ended "no free slot" started no executor work: its Job found no slot.
      for (const retried of slotRaceRetries) {
        const id = retried.split(': ')[1]!;
        assert.ok((jobs.get(id)?.length ?? 0) <= 1, `${id} had at most one Job`);
      }
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
        'every click was acknowledged',
      );
      assert.deepEqual(
        cliResults.filter((r) => r.code !== 0 && !LOST_RACE.test(r.stderr)).map((r) => r.stderr),
        [],
        'every CLI approval approved, found it approved, or lost the race and said to look again',
      );
      for (const request of requests) {
        assert.equal(request.state, 'done', request.id);
        assert.equal(
          request.approvals.length,
          1,
          `${request.id} approved once: ${JSON.stringify(request.approvals)}`,
        );
        assert.ok(
          approvers.has(request.approvals[0]!.by),
          `${request.id} approved by one of its approvers, not ${request.approvals[0]!.by}`,
        );
        assert.equal(jobs.get(request.id)?.length, 1, `${request.id} has exactly one Job`);
        assert.equal(
          reboots.filter((a) => a.node === request.node).length,
          1,
          `${request.node} rebooted once`,
        );
      }
      assert.ok(invariants.maxDisrupted <= CONCURRENCY);
      assert.deepEqual(invariants.violations, []);
      assert.deepEqual(invariants.staleSlots, []);
      assert.deepEqual(errors, []);
    });
  },
);
