/**
 * Real `kubemaint serve` processes on one shared sim, for the races and process-crash scenarios of
 * issue 9. The sim runs in the test's process (so its audit and host logs are there for checkSim);
 * each serve is the CLI bundle (test/integration/executor/support.ts: seconds faster to start than
 * tsx) pointed at it with `--kubeconfig`, under a `cluster.type: sim` config, so it rewrites the host
 * commands for the sim's hosts exactly as `npm start` does, without starting a sim of its own. The
 * sim maps the executor image to the same bundle, so every Job really runs `kubemaint executor`.
 * Slack is on (signing secret, the local Web API recorder), with U0ALICE and U0BOB as approvers; on
 * the CLI, the Kubernetes users alice and bob approve (`--as alice`, bound to kubemaint:person as an
 * installer binds its people).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { approveRequest, requestMaintenance } from '../../src/app/control/commands.js';
import { LABEL_REQUEST } from '../../src/core/names.js';
import { isActive } from '../../src/core/request.js';
import { R, type KObject } from '@kubemaint/kubesim';
import { cli, ROOT } from '../support/executor-fleet.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { testControlDeps, testControlSettings } from '../support/control.js';
import { approveClickBody, slackHeaders } from '../support/slack-sign.js';
import { startSlackWebApi, type SlackWebApi } from '../support/slack-web-api.js';
import { requestOf } from './support.js';

export const SECRET = 'reliability-signing-secret';
export const CHANNEL = 'C0MAINT';
export const APPROVERS = ['U0ALICE', 'U0BOB'] as const;
/** The Kubernetes users who approve on the CLI (`--as`), and their core identities. */
export const CLI_APPROVERS = ['alice', 'bob'] as const;
export const CLI_APPROVER_IDS = CLI_APPROVERS.map((user) => `k8s:${user}`);
export const NAMESPACE = 'kubemaint';

export interface ServeCluster {
  sim: TestSim;
  api: SlackWebApi;
  /** The config every serve (and CLI command) reads. */
  config: string;
  concurrency: number;
  /** The CLI bundle's argv (node + bundle). */
  argv: string[];
  close(): Promise<void>;
}

/**
 * A fleet sim with the executor image mapped to the real CLI and a config for serve: `concurrency`
 * slots, as many unhealthy nodes allowed as slots (the slots are what is under test, not the
 * blocker), no kubelet upgrades (reboots only: one host action per request to count), a tick every
 * `tickSeconds` on top of the watches.
 */
export async function startServeCluster(options: {
  nodes: number;
  concurrency: number;
  tickSeconds?: number;
  scale?: number;
  /**
   * serve.leaderElection (ADR 0046); off unless asked: the races and crash scenarios here are of
   * serves that all act (a restarted one at once), the conditional writes under test.
   */
  leaderElection?: boolean;
  /** serve.leaderElection's timings, when not the defaults (15 s, 10 s, 2 s). */
  electionTimings?: { leaseDuration: string; renewDeadline: string; retryPeriod: string };
}): Promise<ServeCluster> {
  const timings = options.electionTimings;
  const argv = await cli();
  const sim = await startTestSim({
    scenario: 'fleet',
    nodes: options.nodes,
    podsPerNode: 3,
    scale: options.scale ?? 20,
    images: { 'ghcr.io/kubemaint/kubemaint:*': { command: argv, cwd: ROOT } },
    // The machine goes down a little after `reboot` returns, as `systemctl reboot` lets the
    // executor exit first; it is back after 20 s of sim time (1 s at scale 20).
    delays: { rebootIssueDelayMs: 10_000, rebootDowntimeMs: 20_000 },
  });
  const api = await startSlackWebApi();
  const config = join(sim.dir, 'kubemaint.yaml');
  // reboot.nodeTimeout: a sim node is back within seconds; an executor killed after it recorded
  // the host command as issued but before it ran it leaves the node un-rebooted (the host command
  // runs at most once, executor-finish.ts), and the request fails after this timeout and is proposed
  // again, inside one wave rather than after the default 15 minutes.
  writeFileSync(
    config,
    `cluster:
  type: sim
kubelet:
  enabled: false
slot:
  concurrency: ${options.concurrency}
blockers:
  maxUnhealthyNodes: ${options.concurrency}
drain:
  timeout: 10m
reboot:
  nodeTimeout: 90s
  expectedDuration: 60s
approval:
  approvers:
    users: [${APPROVERS.join(', ')}]
    kubernetes:
      users: [${CLI_APPROVERS.join(', ')}]
slack:
  channel: ${CHANNEL}
  allowedChannels: [${CHANNEL}]
schedules:
  tick: "*/${options.tickSeconds ?? 2} * * * * *"
  skewScan: "0 0 1 1 *"
serve:
  leaderElection:
    enabled: ${options.leaderElection === true}
${timings ? `    leaseDuration: ${timings.leaseDuration}\n    renewDeadline: ${timings.renewDeadline}\n    retryPeriod: ${timings.retryPeriod}\n` : ''}`,
  );
  await bindPeople(sim, CLI_APPROVERS);
  return {
    sim,
    api,
    config,
    concurrency: options.concurrency,
    argv,
    async close() {
      await api.close();
      await sim.close();
    },
  };
}

export interface ServeProcess {
  name: string;
  child: ChildProcess;
  slackUrl: string;
  stdout(): string;
  stderr(): string;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (graceful) or SIGKILL, then the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * What an installer grants its people (infra/k8s/rbac-people.yaml: kubemaint:person in kubemaint's
 * namespace) plus the read access to nodes a person's own view access gives on a real cluster, so
 * `kubemaint approve --as <user>` may record decisions in their name.
 */
export async function bindPeople(sim: TestSim, users: readonly string[]): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  const group = 'rbac.authorization.k8s.io';
  const subjects = users.map((name) => ({ apiGroup: group, kind: 'User', name }));
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'test:node-reader' },
      rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'test:node-reader' },
      roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'test:node-reader' },
      subjects,
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: NAMESPACE,
    body: {
      metadata: { name: 'test-people', namespace: NAMESPACE },
      roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'kubemaint:person' },
      subjects,
    },
  });
}

/** Starts one `kubemaint serve` on the cluster and waits for its ready line. */
export async function startServe(cluster: ServeCluster, name: string): Promise<ServeProcess> {
  const serve = spawnServe(cluster, name);
  await serve.ready();
  return serve;
}

export interface SpawnedServe extends ServeProcess {
  /** Resolves once serve printed its ready line; rejects if it exits first or takes over a minute. */
  ready(): Promise<void>;
}

/** Starts one `kubemaint serve` on the cluster without waiting (a kill may come before it is ready). */
export function spawnServe(
  cluster: ServeCluster,
  name: string,
  /** Another identity (a kubeconfig of its own) and environment, e.g. two replicas' POD_NAMEs. */
  as: { kubeconfig?: string; env?: Record<string, string> } = {},
): SpawnedServe {
  const [node = process.execPath, ...bundle] = cluster.argv;
  const child = spawn(
    node,
    [
      ...bundle,
      'serve',
      '--config',
      cluster.config,
      '--kubeconfig',
      as.kubeconfig ?? cluster.sim.kubeconfigPath,
      '--ops-port',
      '0',
      '--ops-host',
      '127.0.0.1',
    ],
    {
      cwd: cluster.sim.dir,
      env: {
        ...process.env,
        KUBEMAINT_LOG_LEVEL: 'warn',
        SLACK_BOT_TOKEN: 'xoxb-reliability',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: cluster.api.apiUrl,
        PORT: '0',
        ...as.env,
      },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exit.then(() => (gone = true));
  const readyLine = /serve ready: .* slack=http:\/\/[^:]+:(\d+)(\S+)/;
  const serve: SpawnedServe = {
    name,
    child,
    slackUrl: '',
    stdout: () => out,
    stderr: () => err,
    exited: () => exit,
    async stop(signal = 'SIGTERM') {
      if (!gone) child.kill(signal);
      return exit;
    },
    async ready() {
      // Minutes, not seconds: on a machine loaded by other suites a start has taken over 200 s.
      const deadline = Date.now() + 300_000;
      let match: RegExpExecArray | null;
      while (!(match = readyLine.exec(out))) {
        if (gone || Date.now() > deadline)
          throw new Error(`${name} did not get ready:\n${out}\n${err.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      serve.slackUrl = `http://127.0.0.1:${match[1]!}${match[2]!}`;
    },
  };
  return serve;
}

/** Problems a serve reported on stderr that no scenario expects: crashes and unhandled errors. */
export function unexpectedErrors(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) =>
      /unhandled|uncaught|TypeError|ReferenceError|RangeError|SyntaxError|"level":\s*(50|60)\b|"level":"(error|fatal)"/i.test(
        line,
      ),
    );
}

/** A signed block_actions click on a request's Approve button, as Slack posts it. */
export async function clickApprove(
  cluster: ServeCluster,
  serve: ServeProcess,
  requestId: string,
  user: string,
  seq: number,
): Promise<number> {
  const body = approveClickBody({
    requestId,
    userId: user,
    channelId: CHANNEL,
    responseUrl: cluster.api.responseUrl(),
    ts: `1700000000.${String(seq).padStart(6, '0')}`,
  });
  const response = await fetch(serve.slackUrl, {
    method: 'POST',
    headers: slackHeaders(SECRET, body),
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** Runs one CLI command against the cluster (the bundle, as `npx kubemaint …`). */
export function runCliCommand(
  cluster: ServeCluster,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [node = process.execPath, ...bundle] = cluster.argv;
  return new Promise((resolve, reject) => {
    const child = spawn(
      node,
      [...bundle, ...args, '--config', cluster.config, '--kubeconfig', cluster.sim.kubeconfigPath],
      { cwd: cluster.sim.dir, env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Marks nodes as needing a reboot, as the agent does. */
export function markForReboot(sim: TestSim, nodes: readonly string[]): void {
  for (const name of nodes)
    sim.store.mutate(R.nodes, undefined, name, (n) => {
      n.metadata.labels = { ...n.metadata.labels, 'kubemaint.io/reboot-required': 'true' };
    });
}

/** The executor Jobs of each request, by the kubemaint.io/request label. */
export function jobsByRequest(sim: TestSim): Map<string, KObject[]> {
  const byRequest = new Map<string, KObject[]>();
  for (const job of sim.store.list(R.jobs, { namespace: NAMESPACE })) {
    const id = job.metadata.labels?.[LABEL_REQUEST] ?? '';
    byRequest.set(id, [...(byRequest.get(id) ?? []), job]);
  }
  return byRequest;
}

/** Lease slots held now, with their holders (`node/request`). */
export function heldSlots(sim: TestSim): { slot: string; holder: string }[] {
  return sim.store
    .list(R.leases, { namespace: NAMESPACE })
    .filter((l) => l.metadata.name?.startsWith('kubemaint-slot-'))
    .map((l) => ({
      slot: l.metadata.name ?? '',
      holder: (l.spec?.['holderIdentity'] as string | undefined) ?? '',
    }))
    .filter((s) => s.holder !== '');
}

/** Each node's request, `node id state (failure)` (or `node none`), for messages. */
export const statesOf = (sim: TestSim, nodes: readonly string[]): string[] =>
  nodes.map((n) => {
    const r = requestOf(sim, n);
    if (!r) return `${n} none`;
    const why =
      r.failure ??
      r.blockedReasons?.join('; ') ??
      r.history
        .filter((h) => h.note)
        .map((h) => `${h.to} by ${h.by}: ${h.note}`)
        .at(-1);
    return `${n} ${r.id} ${r.state}${why ? ` (${why})` : ''}`;
  });

export interface Answers {
  approvals: number;
  /** Requests that ended failed and were proposed again: `node id: failure` (the reported reason). */
  failures: string[];
  /** The failed requests, by id, for checking that each one was reported. */
  failedIds: string[];
  /**
   * Requests whose failure an Event reported, as seen while the roll went on: the sim runs its clock
   * 20 times faster and expires Events after an hour of it (kube-apiserver's --event-ttl), so after
   * three minutes an early failure's Event is gone from the store.
   */
  reportedIds: Set<string>;
  commandErrors: number;
}

/**
 * Answers like people while serve processes do the rest: approves each proposal (as U0ALICE, an
 * approver in the config) and proposes again what failed, until every node's request is done or
 * `stop()` says to give up. Runs in the test's process against the sim's API.
 */
export async function answerUntilDone(
  sim: TestSim,
  nodes: readonly string[],
  options: { timeoutMs: number; stop?: () => boolean; earlier?: ReadonlySet<string> },
): Promise<Answers> {
  const deps = testControlDeps(sim, {
    settings: testControlSettings({
      approval: { users: [...APPROVERS], groups: [], expiresAfterMs: 72 * 3_600_000 },
    }),
  });
  const person = { kind: 'person', id: APPROVERS[0] } as const;
  const answers: Answers = {
    approvals: 0,
    failures: [],
    failedIds: [],
    reportedIds: new Set(),
    commandErrors: 0,
  };
  const seenFailed = new Set<string>();
  const deadline = Date.now() + options.timeoutMs;
  // A request done in an earlier wave does not count: the node's new mark is to be proposed.
  const isDone = (node: string) => {
    const request = requestOf(sim, node);
    return request?.state === 'done' && !options.earlier?.has(request.id);
  };
  while (!nodes.every(isDone)) {
    if (Date.now() > deadline || options.stop?.()) break;
    for (const node of nodes) {
      const request = requestOf(sim, node);
      try {
        if (request?.state === 'proposed') {
          if ((await approveRequest(deps, request.id, person)).ok) answers.approvals++;
        } else if (request?.state === 'failed' && !seenFailed.has(request.id)) {
          seenFailed.add(request.id);
          answers.failedIds.push(request.id);
          answers.failures.push(`${node} ${request.id}: ${request.failure ?? '(no reason)'}`);
          await requestMaintenance(deps, { node, action: 'reboot', by: person });
        } else if (request && !isActive(request.state) && request.state !== 'done') {
          await requestMaintenance(deps, { node, action: 'reboot', by: person });
        }
      } catch {
        // A command that lost a race with serve is what a person would retry.
        answers.commandErrors++;
      }
    }
    for (const id of reportedFailureIds(sim)) answers.reportedIds.add(id);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const id of reportedFailureIds(sim)) answers.reportedIds.add(id);
  return answers;
}

/** Requests a `KubemaintFailed` Event on a node reports now (its message starts with the id). */
function reportedFailureIds(sim: TestSim): string[] {
  return sim.store
    .list(R.events)
    .filter((e) => e['reason'] === 'KubemaintFailed')
    .map((e) => String(e['message']).split(':')[0] ?? '');
}

/** Failed requests no `KubemaintFailed` Event reported (seen during the roll, or in the store now). */
export function unreportedFailures(sim: TestSim, answers: Answers): string[] {
  const reported = new Set([...answers.reportedIds, ...reportedFailureIds(sim)]);
  return answers.failedIds.filter((id) => !reported.has(id));
}
