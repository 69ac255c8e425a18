/**
 * Helpers for the executor's integration tests on the sim: a fleet with kubemaint's kinds, a request
 * stored as the tick leaves it (a MaintenanceRequest with the decision objects behind its approvals),
 * the executor run as the real CLI in a child process (as the Job's container would), and waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { build } from 'esbuild';
import { cliBundleOptions } from '../../scripts/cli-bundle.mjs';
import { CLI_NODE_OPTIONS } from '../../scripts/images/spec.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { ExecutorSettings } from '../../src/app/executor/settings.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../src/compose/executor-settings.js';
import { installKubemaintKinds } from '../../src/compose/sim-kinds.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { createSim, type Sim, type SimOptions } from '@kubemaint/kubesim';
import { SIM_BIN_DIR } from '@kubemaint/kubesim';
import { R, type KObject } from '@kubemaint/kubesim';
import {
  buildExecutorJob,
  SETTINGS_ENV,
  type ExecutorJobParams,
} from '../../templates/executor-job.js';
import { approvedRequest } from '../fakes/requests.js';
import { requestReader } from './requests.js';
import { requestOn } from './in-process-executor.js';
import { kubemaintAccessObjects } from '../../src/compose/sim-access.js';

export const ROOT = resolve(import.meta.dirname, '../..');
const DIR = mkdtempSync(join(tmpdir(), 'kubemaint-exec-'));

let bundled: Promise<string[]> | undefined;
/**
 * The CLI as the image runs it: one esbuild bundle (built once per test file). Starting it takes a
 * fraction of what transpiling the sources with tsx takes, which matters for tests that start the
 * executor dozens of times.
 */
export function cli(): Promise<string[]> {
  bundled ??= build(cliBundleOptions({ root: ROOT, outdir: DIR, target: 'node24' })).then(() => [
    process.execPath,
    ...CLI_NODE_OPTIONS,
    join(DIR, 'cli.mjs'),
  ]);
  return bundled;
}

export async function fleet(options: SimOptions = {}): Promise<Sim> {
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: 'fleet',
    scale: 50,
    kubeconfigPath: join(mkdtempSync(join(DIR, 'sim-')), 'sim.kubeconfig'),
    images: { 'ghcr.io/kubemaint/kubemaint:*': { command: await cli(), cwd: ROOT } },
    // A minute of sim time between `reboot` and the machine going down (1.2 s at scale 50): the
    // executor exits first, as `systemctl reboot` lets it on a real host.
    delays: { rebootIssueDelayMs: 60_000 },
    ...options,
  });
  // kubemaint's own kinds, as `kubectl apply -k infra/k8s` installs them on a real cluster.
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  await installKubemaintKinds(kc);
  return sim;
}

/** Settings for the sim: its host endpoint stands for the machine, so no nsenter prefix. */
export function simSettings(patch: Partial<ExecutorSettings> = {}): ExecutorSettings {
  return {
    ...DEFAULT_SETTINGS,
    hostPrefix: [],
    reboot: { method: 'command', command: ['kubemaint-sim-host', 'reboot'] },
    // The sim's host restarts the kubelet itself a moment after the upgrade command returns.
    upgrade: { command: ['kubemaint-sim-host', 'upgrade', '{{version}}'], restartCommand: [] },
    lock: { concurrency: 10, ttlMs: 120_000 },
    progressIntervalMs: 200,
    ...patch,
    drain: {
      ...DEFAULT_SETTINGS.drain,
      timeoutMs: 60_000,
      deleteEmptyDirData: true,
      evictionRetryMs: 200,
      ...patch.drain,
    },
  };
}

export const nodeNames = (sim: Sim): string[] =>
  sim.store
    .list(R.nodes)
    .map((n) => n.metadata.name ?? '')
    .sort();

export const getNode = (sim: Sim, name: string): KObject =>
  sim.store.get(R.nodes, undefined, name)!;

/** The node's request as the control plane reads it (its MaintenanceRequest). */
export const requestOf = (sim: Sim, node: string): MaintenanceRequest | undefined =>
  requestOn(sim, node);

/** Store an approved request for `node`, as the tick leaves it for the executor. */
export async function putRequest(
  sim: Sim,
  node: string,
  extra: Partial<MaintenanceRequest> = {},
): Promise<MaintenanceRequest> {
  return requestReader(sim.kubeconfigPath).seed(approvedRequest(node, extra));
}

export const bootId = (sim: Sim, node: string): string =>
  (getNode(sim, node).status?.['nodeInfo'] as { bootID?: string } | undefined)?.bootID ?? '';
export const kubeletVersion = (sim: Sim, node: string): string =>
  (getNode(sim, node).status?.['nodeInfo'] as { kubeletVersion?: string } | undefined)
    ?.kubeletVersion ?? '';
export const isReady = (sim: Sim, node: string): boolean =>
  (
    (getNode(sim, node).status?.['conditions'] as { type: string; status: string }[] | undefined) ??
    []
  ).some((c) => c.type === 'Ready' && c.status === 'True');
export const podsOn = (sim: Sim, node: string): KObject[] =>
  sim.store.list(R.pods, { fieldSelector: `spec.nodeName=${node}` });

export async function until<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RunningExecutor {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** The real CLI in a child process, with the env the sim's Job runner gives an executor pod. */
export async function startExecutor(
  sim: Sim,
  node: string,
  requestId: string,
  settings: ExecutorSettings,
): Promise<RunningExecutor> {
  const [file, ...args] = await cli();
  const child = spawn(file!, [...args, 'executor', '--node', node, '--request', requestId], {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: [SIM_BIN_DIR, process.env['PATH'] ?? ''].join(':'),
      KUBECONFIG: sim.kubeconfigPath,
      KUBEMAINT_SIM_HOST_URL: sim.hostUrl,
      NODE_NAME: node,
      [SETTINGS_ENV]: JSON.stringify(settings),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, output })),
  );
  return { child, done };
}

/**
 * The executor Job as the control plane would make it for `node` (templates/executor-job.ts), with
 * the sim's settings and the image the fleet maps to the real CLI; `extra` adds priority class,
 * resources and the like.
 */
export function simExecutorJob(
  node: string,
  requestId: string,
  extra: Partial<ExecutorJobParams> = {},
): ReturnType<typeof buildExecutorJob> {
  return buildExecutorJob({
    node,
    requestId,
    namespace: 'kube-system',
    image: 'ghcr.io/kubemaint/kubemaint:test',
    serviceAccountName: 'kubemaint-executor',
    rebootMethod: 'command',
    activeDeadlineSeconds: 3_600,
    ttlSecondsAfterFinished: 3_600,
    settingsJson: JSON.stringify(simSettings()),
    ...extra,
  });
}

/** `Complete` or `Failed` once the Job in kube-system has that condition, else undefined. */
export function jobOutcome(sim: Sim, name: string): 'Complete' | 'Failed' | undefined {
  const job = sim.store.get(R.jobs, 'kube-system', name);
  const conditions =
    (job?.status?.['conditions'] as { type: string; status: string }[] | undefined) ?? [];
  const done = conditions.find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  return done?.type as 'Complete' | 'Failed' | undefined;
}

/** Reboots the sim's host performed (or scheduled) for `node`. */
export const reboots = (sim: Sim, node: string) =>
  sim.admin.hostLog().filter((a) => a.node === node && a.action === 'reboot');

/** Run the bundled CLI against the sim; stdout and stderr kept apart. */
export async function runCli(
  sim: Sim,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; output: string }> {
  const [file, ...base] = await cli();
  const child = spawn(file!, [...base, ...args], {
    cwd: ROOT,
    env: { ...process.env, KUBECONFIG: sim.kubeconfigPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, output: stdout + stderr };
}
