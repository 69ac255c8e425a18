/**
 * A Slack request that reaches the standby (issue 32, ADR 0054): two `kubemaint serve` replicas on
 * one sim, each as its own Kubernetes user (serve-a, serve-b: the audit log says who wrote what),
 * each giving its pod IP (127.0.0.1 here) as the Downward API does. Long election timings (retry
 * 120 s) keep the standby from reading the Lease again during the test, so "nobody holds it" lasts
 * as long as the test needs. Signed requests, as Slack signs them, go to the standby's receiver:
 * - a forged signature is refused there, and the leader sees no request;
 * - a click is relayed to the leader, which records it: one decision, by the clicking person,
 *   written by serve-a;
 * - with the leader stopped (its Lease released, held by nobody), a click and a command are answered
 *   "try again" and nothing is written.
 * The standby writes nothing at all, from start to end.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { R } from '@kubemaint/kubesim';
import { SLACK_URL_ANNOTATION } from '../../src/core/leader-address.js';
import { DECISIONS, GROUP } from '../../src/adapters/kube/request-codec.js';
import { simIdentities } from '../support/sim-identities.js';
import { waitFor } from '../support/sim.js';
import { approveClickBody, slackHeaders, slashCommandBody } from '../support/slack-sign.js';
import {
  CHANNEL,
  clickApprove,
  markForReboot,
  NAMESPACE,
  SECRET,
  spawnServe,
  startServeCluster,
  type ServeCluster,
  type SpawnedServe,
} from './serve-support.js';
import { clearMarks, requestOf } from './support.js';

const LEASE = 'kubemaint-serve-leader';
const R_DECISIONS = `${DECISIONS}.${GROUP}`;

describe(
  'serve with two replicas: a Slack request that reaches the standby',
  { timeout: 600_000 },
  () => {
    let cluster: ServeCluster;
    const serves: SpawnedServe[] = [];
    after(async () => {
      await Promise.all(serves.map((s) => s.stop('SIGKILL')));
      await cluster?.close();
    });

    const lease = () =>
      cluster.sim.store.get(R.leases, NAMESPACE, LEASE) as
        | { metadata: { annotations?: Record<string, string> }; spec?: { holderIdentity?: string } }
        | undefined;
    const holder = () => lease()?.spec?.holderIdentity ?? '';
    /** Writes by a replica (its actor ends `as serve-a`), other than its election Lease. */
    const writesBy = (who: string) =>
      cluster.sim.store
        .audit()
        .filter(
          (e) => e.actor.endsWith(` as ${who}`) && !(e.resource === R.leases && e.name === LEASE),
        );
    const decisions = () =>
      cluster.sim.store.audit().filter((e) => e.resource === R_DECISIONS && e.verb === 'create');
    const relayedLines = (serve: SpawnedServe) =>
      serve
        .stderr()
        .split('\n')
        .filter((l) => l.includes('Slack request relayed by a standby'));

    it('relays a signed click to the leader, refuses a forged one, and answers "try again" while nobody leads', async () => {
      cluster = await startServeCluster({
        nodes: 2,
        concurrency: 1,
        tickSeconds: 2,
        leaderElection: true,
        electionTimings: { leaseDuration: '180s', renewDeadline: '150s', retryPeriod: '120s' },
      });
      const { sim, api } = cluster;
      const [node] = clearMarks(sim);
      const ids = simIdentities(sim.credentials);
      const replica = (name: string) =>
        spawnServe(cluster, name, {
          kubeconfig: ids.userKubeconfig(name, ['system:masters', 'kubemaint:control-plane']),
          env: { POD_NAME: name, POD_IP: '127.0.0.1', KUBEMAINT_LOG_LEVEL: 'info' },
        });
      const a = replica('serve-a');
      serves.push(a);
      await a.ready();
      await waitFor('serve-a leads', () => holder().startsWith('serve-a_'), 30_000);
      const b = replica('serve-b');
      serves.push(b);
      await b.ready();
      // The leader says where its receiver is, on the Lease it renews.
      assert.equal(lease()?.metadata.annotations?.[SLACK_URL_ANNOTATION], a.slackUrl);

      markForReboot(sim, [node!]);
      await waitFor(
        'a request proposed',
        () => requestOf(sim, node!)?.state === 'proposed',
        60_000,
      );
      const id = requestOf(sim, node!)!.id;

      // Forged: signed with another secret. The standby refuses it; the leader sees nothing.
      const forged = approveClickBody({
        requestId: id,
        userId: 'U0ALICE',
        channelId: CHANNEL,
        responseUrl: api.responseUrl(),
        ts: '1700000000.000001',
      });
      const refused = await fetch(b.slackUrl, {
        method: 'POST',
        headers: slackHeaders('not-the-signing-secret', forged),
        body: forged,
      });
      assert.equal(refused.status, 401);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(relayedLines(a), [], 'the leader saw no relayed request');
      assert.equal(decisions().length, 0);

      // Signed, to the standby: relayed, and recorded once, by the leader, in the clicker's name.
      const relayedAt = performance.now();
      assert.equal(await clickApprove(cluster, b, id, 'U0ALICE', 2), 200);
      const answeredIn = performance.now() - relayedAt;
      await waitFor('the approval recorded', () => decisions().length > 0, 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const recorded = decisions();
      assert.equal(recorded.length, 1, 'exactly one decision');
      assert.match(recorded[0]!.actor, / as serve-a$/, 'written by the leader');
      assert.deepEqual(
        requestOf(sim, node!)!.approvals.map((x) => x.by),
        ['U0ALICE'],
        'by the person who clicked',
      );
      assert.equal(relayedLines(a).length, 1, 'the leader got it from the standby');
      assert.match(relayedLines(a)[0]!, /serve-b_/);

      // The leader stops and releases its Lease: nobody holds it, the standby has not read it since.
      assert.equal((await a.stop('SIGTERM')).code, 0);
      assert.equal(holder(), '', 'the Lease is held by nobody');
      const before = sim.store.audit().length;
      const responseUrl = api.responseUrl();
      const click = approveClickBody({
        requestId: id,
        userId: 'U0BOB',
        channelId: CHANNEL,
        responseUrl,
        ts: '1700000000.000003',
      });
      const clicked = await fetch(b.slackUrl, {
        method: 'POST',
        headers: slackHeaders(SECRET, click),
        body: click,
      });
      assert.equal(clicked.status, 200);
      await waitFor(
        'the click answered through its response_url',
        () => api.calls.some((c) => c.path === new URL(responseUrl).pathname),
        10_000,
      );
      const told = api.calls.find((c) => c.path === new URL(responseUrl).pathname)!.args;
      assert.equal(told['replace_original'], false, 'the prompt stays as it was');
      assert.equal(told['response_type'], 'ephemeral');
      assert.match(
        String(told['text']),
        /another kubemaint replica is acting for .*; try again in a few seconds/,
      );

      const command = slashCommandBody({
        command: '/maint',
        text: `approve ${id}`,
        userId: 'U0BOB',
        channelId: CHANNEL,
        responseUrl: api.responseUrl(),
      });
      const commanded = await fetch(b.slackUrl, {
        method: 'POST',
        headers: slackHeaders(SECRET, command),
        body: command,
      });
      assert.equal(commanded.status, 200);
      const answer = (await commanded.json()) as { response_type?: string; text?: string };
      assert.equal(answer.response_type, 'ephemeral');
      assert.match(answer.text ?? '', /try again in a few seconds/);

      await new Promise((r) => setTimeout(r, 1_000));
      // Nothing written by either replica, and no decision from anyone (the kubelets and the executor
      // Job dispatched after the first approval go on writing).
      assert.deepEqual(
        sim.store
          .audit()
          .slice(before)
          .filter((e) => / as serve-[ab]$/.test(e.actor) || e.resource === R_DECISIONS)
          .map((e) => `${e.actor} ${e.verb} ${e.resource}`),
        [],
        'nothing written',
      );
      assert.equal(holder(), '', 'still held by nobody (the standby answered, it did not lead)');
      assert.deepEqual(
        writesBy('serve-b').map((e) => `${e.verb} ${e.resource}/${e.name}`),
        [],
        'the standby wrote nothing',
      );
      assert.equal(decisions().length, 1);
      process.stdout.write(
        `# a click sent to the standby was relayed and answered in ${Math.round(answeredIn)} ms\n`,
      );
    });
  },
);
