/**
 * Every command's exit codes, as the README's table says (README.md, "Exit codes"): each command run
 * as a person runs it (a separate process, in the folder of a running demo `serve`) into each code it
 * can end with. The table itself is read from the README, so the two cannot drift: every code the
 * README lists is one of EXIT's, and every case below expects a code the README explains.
 * Exit 3 (no free slot) is the executor's alone and needs slots held mid-run: test/unit/executor/
 * run-executor.test.ts and test/integration/executor/resilience.test.ts end in it. A Node too old
 * (exit 1) is test/e2e/install.test.ts; a demo not running (exit 2) test/unit/cli/control-commands.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, PolicyV1Api, CoreV1Api } from '@kubernetes/client-node';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { EXIT } from '../../../src/core/exit-codes.js';
import { spawn } from 'node:child_process';
import { startCli, type LongRunning, type RunResult } from '../../support/cli-process.js';
import { cli } from '../../support/executor-fleet.js';

// alice and the demo's administrator (the kubeconfig's own user) approve; a tick schedule that never
// fires, so serve acts only on what it watches.
const CONFIG = `cluster:
  type: sim
  sim:
    scenario: demo
approval:
  approvers:
    kubernetes:
      users: [alice, kubemaint-sim-admin]
schedules:
  tick: "0 0 1 1 *"
`;

/** The README's exit-code table: code → meaning. */
function readmeTable(): Map<number, string> {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Exit codes'));
  const rows = [...section.matchAll(/^\| (\d) \| ([^|]+) \|/gm)];
  return new Map(rows.map((m) => [Number(m[1]), m[2]!.trim()]));
}

interface Case {
  args: string[];
  code: number;
  /** What stdout + stderr must say. */
  says: RegExp;
}

describe('exit codes of every command, as the README says', { timeout: 600_000 }, () => {
  let dir: string;
  let serve: LongRunning;
  let kubeconfig: string;
  let proposed: string;
  let bundle: string[];
  /** One command as its own process: the CLI bundle (the same code, seconds faster to start than tsx). */
  const run = (args: string[]): Promise<RunResult> =>
    new Promise((resolve, reject) => {
      const [node, ...rest] = bundle;
      const child = spawn(node!, [...rest, ...args], {
        cwd: dir,
        env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-exit-codes-'));
    writeFileSync(join(dir, 'kubemaint.yaml'), CONFIG);
    serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], { cwd: dir });
    bundle = await cli();
    kubeconfig = (await serve.waitFor(/serve ready: .*kubeconfig=(\S+)/, 90_000))[1]!;
    proposed = (await serve.waitFor(/proposed\s+node-2 reboot \[(r-[0-9a-f]{6})\]/, 90_000))[1]!;
  });
  after(async () => {
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the README lists exactly the codes kubemaint has', () => {
    assert.deepEqual(
      [...readmeTable().keys()].sort(),
      Object.values(EXIT).sort((a, b) => a - b),
    );
  });

  const cases = (): Case[] => [
    // status
    { args: ['status'], code: EXIT.ok, says: /node-2\s+reboot\s+proposed/ },
    { args: ['status', 'node-2', '--json'], code: EXIT.ok, says: /"node": "node-2"/ },
    { args: ['status', 'node-99'], code: EXIT.config, says: /no node `node-99`/ },
    // decisions on requests
    { args: ['approve', 'r-zz;rm'], code: EXIT.config, says: /is not a request id/ },
    { args: ['approve', 'r-000000'], code: EXIT.requestInvalid, says: /no request r-000000/ },
    {
      args: ['approve', proposed, '--as', 'mallory'],
      code: EXIT.requestInvalid,
      says: /k8s:mallory is not an approver/,
    },
    { args: ['reject', 'r-000000', 'no'], code: EXIT.requestInvalid, says: /no request/ },
    { args: ['cancel', 'r-000000'], code: EXIT.requestInvalid, says: /no request/ },
    { args: ['decide', 'r-000000', 'wait'], code: EXIT.requestInvalid, says: /no request/ },
    { args: ['decide', 'r-000000', 'maybe'], code: EXIT.config, says: /not a drain decision/ },
    // asking by hand
    { args: ['reboot', 'node-99'], code: EXIT.config, says: /no node `node-99`/ },
    {
      args: ['upgrade', 'node-4', 'v9.99.0'],
      code: EXIT.config,
      says: /v9\.99\.0 is newer than the apiserver[^\n]*allowed: [^\n]*v1\.31\.4/,
    },
    { args: ['upgrade', 'node-1', '1.x'], code: EXIT.config, says: /is not a kubelet version/ },
    { args: ['upgrade', 'node-1'], code: EXIT.requestInvalid, says: /nothing to upgrade/ },
    { args: ['upgrade', 'node-99'], code: EXIT.config, says: /no node `node-99`/ },
    // switches
    { args: ['pause', '--as', 'mallory'], code: EXIT.requestInvalid, says: /not an approver/ },
    // An approver whose RBAC may not create the switch: the apiserver refuses, and that is a refusal.
    { args: ['pause', '--as', 'alice'], code: EXIT.requestInvalid, says: /forbidden/ },
    { args: ['slots'], code: EXIT.ok, says: /kubemaint-slot-0/ },
    { args: ['history', 'node-1'], code: EXIT.ok, says: /node-1: no maintenance recorded|r-/ },
    { args: ['history', 'Node_1;x'], code: EXIT.config, says: /"Node_1;x" is not a node name/ },
    { args: ['locks', '--json'], code: EXIT.ok, says: /"name": "kubemaint-slot-0"/ },
    {
      args: ['release', 'kubemaint-slot-9', '--as', 'alice'],
      code: EXIT.requestInvalid,
      says: /no slot/,
    },
    {
      args: ['release', 'kubemaint-slot-0', '--as', 'mallory'],
      code: EXIT.requestInvalid,
      says: /not an approver/,
    },
    // reading
    { args: ['scan'], code: EXIT.ok, says: /node-2/ },
    { args: ['windows'], code: EXIT.ok, says: /open/ },
    { args: ['windows', '--at', 'soon'], code: EXIT.config, says: /soon/ },
    {
      args: ['rehearse', '--at', 'tonight'],
      code: EXIT.config,
      says: /--at "tonight" is not a time/,
    },
    { args: ['rehearse', '--scale', '0'], code: EXIT.config, says: /--scale 0 is not a number/ },
    { args: ['config', 'check'], code: EXIT.ok, says: /ok: kubemaint\.yaml is valid/ },
    { args: ['config', 'check', 'missing.yaml'], code: EXIT.config, says: /missing\.yaml/ },
    { args: ['config', 'print-defaults'], code: EXIT.ok, says: /schedules:/ },
    // the executor, the drain, the rest
    {
      args: ['executor', '--node', 'node-3', '--request', 'r-000000', '--kubeconfig', kubeconfig],
      code: EXIT.requestInvalid,
      says: /r-000000/,
    },
    { args: ['executor', '--node', 'node-3'], code: EXIT.config, says: /--request/ },
    { args: ['drain', 'node-99'], code: EXIT.config, says: /node node-99 does not exist/ },
    { args: ['drain', 'node-3', '--dry-run'], code: EXIT.ok, says: /would evict/ },
    { args: ['drain', 'node-3', '--timeout', 'soon'], code: EXIT.config, says: /not a duration/ },
    { args: ['notify', '--url', 'nope://x', 'hi'], code: EXIT.config, says: /nope/ },
    { args: ['serve', '--ops-port', 'http'], code: EXIT.config, says: /is not a port/ },
    { args: ['sim', '--scenario', 'nope'], code: EXIT.config, says: /nope/ },
    { args: ['completion', 'bash'], code: EXIT.ok, says: /complete -F _kubemaint kubemaint/ },
    { args: ['completion', 'fish'], code: EXIT.config, says: /not a shell kubemaint completes/ },
    { args: ['--version'], code: EXIT.ok, says: /^\d+\.\d+\.\d+/ },
    { args: ['frobnicate'], code: EXIT.config, says: /unknown command 'frobnicate'/ },
  ];

  it('each command ends in the code the table gives it, saying why', async () => {
    const table = readmeTable();
    const failures: string[] = [];
    const list = cases();
    // Four at a time: each is a process of its own, and they only read (or are refused).
    for (let i = 0; i < list.length; i += 4) {
      await Promise.all(
        list.slice(i, i + 4).map(async ({ args, code, says }) => {
          assert.ok(table.has(code), `exit ${code} is in the README's table`);
          const result = await run(args);
          const output = result.stdout + result.stderr;
          if (result.code !== code || !says.test(output)) {
            failures.push(
              `${args.join(' ')}: exit ${String(result.code)} (want ${code}: ${table.get(code)})\n${output.slice(0, 600)}`,
            );
          }
        }),
      );
    }
    assert.deepEqual(failures, []);
  });

  it('the commands that change something: 0 when they did, each said on serve’s console', async () => {
    for (const args of [
      ['pause', 'exit code test'],
      ['resume'],
      ['reboot', 'node-6', 'exit code test', '--as', 'alice', '--wait', '20'],
      ['tick'],
    ]) {
      const result = await run(args);
      assert.equal(result.code, EXIT.ok, `${args.join(' ')}: ${result.stderr}`);
    }
    const approved = await run(['approve', proposed, '--as', 'alice', '--wait', '20']);
    assert.equal(approved.code, EXIT.ok, approved.stderr);
    assert.match(approved.stdout, /is approved/);
    const cancelled = await run(['cancel', proposed, 'exit code test', '--as', 'alice']);
    assert.equal(cancelled.code, EXIT.ok, cancelled.stderr);
    const again = await run(['approve', proposed, '--as', 'alice']);
    assert.equal(again.code, EXIT.requestInvalid, 'nothing left to decide');
    assert.match(again.stderr, /nothing to approve/);
    // Each change made from another terminal is said on serve's console, as it happens.
    for (const line of [
      /\| paused {3}no new maintenance starts[^\n]*: exit code test/,
      /\| resumed {2}new maintenance may start/,
      /proposed\s+node-6 reboot \[r-[0-9a-f]{6}\]: exit code test/,
      new RegExp(`approved\\s+node-2 reboot \\[${proposed}\\] by k8s:alice`),
      new RegExp(`failed\\s+node-2 reboot \\[${proposed}\\]: cancelled by k8s:alice`),
    ]) {
      await serve.waitFor(line, 30_000);
    }
  });

  it('a drain a PDB holds past its timeout: exit 4, node left cordoned', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const policy = kc.makeApiClient(PolicyV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await policy.createNamespacedPodDisruptionBudget({
      namespace: 'data',
      body: {
        metadata: { name: 'hold-cache' },
        spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'cache' } } },
      },
    });
    try {
      const cache = (await core.listNamespacedPod({ namespace: 'data' })).items[0]!;
      const node = cache.spec!.nodeName!;
      const blocked = await run(['drain', node, '--timeout', '3s']);
      assert.equal(blocked.code, EXIT.drainBlocked, blocked.stdout + blocked.stderr);
      assert.match(blocked.stdout, /pending data\/cache/);
      const after = await core.readNode({ name: node });
      assert.equal(after.spec?.unschedulable, true, 'left cordoned, as kubectl drain does');
      await core.patchNode({ name: node, body: { spec: { unschedulable: false } } }, MERGE_PATCH);
    } finally {
      await policy.deleteNamespacedPodDisruptionBudget({ name: 'hold-cache', namespace: 'data' });
    }
  });
});
