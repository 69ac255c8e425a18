/**
 * The client matrix: the kubectl script (kubectl-script.ts) run with every installed kubectl, one
 * version after another on one sim, and the official Python client's list, watch and patch calls
 * (python-client.py). Each step passes or fails on its own; the pass rate per client is printed and
 * written to a JSON report (CLIENT_MATRIX_REPORT, default in the temp folder), which is where the
 * table in docs/simulator-differences.md comes from. A step failing that is not a known failure
 * below fails the test, and so does a known failure that now passes (remove it from the list).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it, type TestContext } from 'node:test';
import { startTestSim, type TestSim } from '../support.js';
import { installedKubectls, pythonClient, type Kubectl } from './clients.js';
import { KUBECTL_STEPS, MANIFESTS, type KubectlStep, type StepContext } from './kubectl-script.js';

/** Steps that fail today, by step id, with the kubectl minors they fail on (all when absent) and why. */
const KNOWN_FAILURES: Readonly<Record<string, { minors?: readonly number[]; reason: string }>> = {
  'auth whoami': {
    minors: [27],
    reason:
      'kubectl 1.27 knows SelfSubjectReview only as v1alpha1/v1beta1, which kube-apiserver 1.28+ does not serve by default (real clusters answer the same)',
  },
};

interface StepResult {
  id: string;
  ok: boolean;
  detail: string;
  /** Wall time, to find what makes the matrix slow. */
  ms?: number;
}

interface ClientReport {
  client: string;
  passed: number;
  total: number;
  failures: StepResult[];
  /** Every step with its time. */
  steps: StepResult[];
}

const kubectls = installedKubectls();
const reports: ClientReport[] = [];

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function runKubectl(k: Kubectl, args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(k.path, args, { env, timeout: 90_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function judge(step: KubectlStep, c: StepContext, out: Outcome): string | undefined {
  const exit = step.exit ?? 0;
  const want = typeof step.stdout === 'function' ? step.stdout(c) : step.stdout;
  if (out.code !== exit)
    return `exit ${out.code} (want ${exit}): ${out.stderr.trim() || out.stdout.trim()}`;
  if (want && !want.test(out.stdout))
    return `stdout does not match ${want}:\n${out.stdout}${out.stderr}`;
  return undefined;
}

async function runStep(k: Kubectl, step: KubectlStep, c: StepContext, env: NodeJS.ProcessEnv) {
  const deadline = Date.now() + (step.eventually ? 30_000 : 0);
  for (;;) {
    const problem = judge(step, c, await runKubectl(k, step.args(c), env));
    if (problem === undefined || Date.now() >= deadline) return problem;
    await sleep(500);
  }
}

function record(t: TestContext, client: string, results: StepResult[]): ClientReport {
  const failures = results.filter((r) => !r.ok);
  const report = {
    client,
    passed: results.length - failures.length,
    total: results.length,
    failures,
    steps: results,
  };
  reports.push(report);
  t.diagnostic(`${client}: ${report.passed}/${report.total} steps pass`);
  const slow = results.filter((r) => (r.ms ?? 0) > 5_000);
  if (slow.length > 0) t.diagnostic(`  slow: ${slow.map((r) => `${r.id} ${r.ms} ms`).join(', ')}`);
  for (const f of failures)
    t.diagnostic(`  ✗ ${f.id}: ${f.detail.split('\n').slice(0, 3).join(' | ')}`);
  return report;
}

function assertOnlyKnownFailures(report: ClientReport, minor: number | undefined) {
  const known = Object.entries(KNOWN_FAILURES)
    .filter(([, f]) => minor !== undefined && (!f.minors || f.minors.includes(minor)))
    .map(([id]) => id);
  const failed = report.failures.map((f) => f.id);
  assert.deepEqual(
    {
      unexpected: failed.filter((id) => !known.includes(id)),
      nowPassing: known.filter((id) => !failed.includes(id)),
    },
    { unexpected: [], nowPassing: [] },
    report.failures.map((f) => `${f.id}: ${f.detail}`).join('\n\n'),
  );
}

describe(
  'real clients against the sim',
  { skip: kubectls.length === 0 && 'no kubectl on PATH' },
  () => {
    let sim: TestSim;
    let nodes: string[];

    before(async () => {
      sim = await startTestSim({ scenario: 'fleet', nodes: kubectls.length + 1, podsPerNode: 1 });
      mkdirSync(join(sim.dir, 'manifests'));
      for (const [file, text] of Object.entries(MANIFESTS))
        writeFileSync(join(sim.dir, 'manifests', file), text);
      nodes = (await sim.core.listNode()).items.map((n) => n.metadata!.name!).sort();
    });

    after(async () => {
      const file =
        process.env['CLIENT_MATRIX_REPORT'] ?? join(tmpdir(), 'kubesim-client-matrix.json');
      writeFileSync(file, `${JSON.stringify(reports, null, 2)}\n`);
      console.log(`client matrix (${file}):`);
      for (const r of reports)
        console.log(
          `  ${r.client.padEnd(22)} ${r.passed}/${r.total} (${((100 * r.passed) / r.total).toFixed(1)} %)`,
        );
      await sim?.close();
    });

    kubectls.forEach((k, i) => {
      it(`kubectl 1.${k.minor}`, { timeout: 600_000 }, async (t) => {
        const c: StepContext = {
          minor: k.minor,
          namespace: `kubectl-1-${k.minor}`,
          node: nodes[i] ?? '',
          dir: join(sim.dir, 'manifests'),
        };
        // Its own discovery cache and HOME: nothing from another version or the machine leaks in.
        const env = {
          ...process.env,
          KUBECONFIG: sim.kubeconfigPath,
          KUBECACHEDIR: join(sim.dir, `cache-${k.minor}`),
          HOME: join(sim.dir, `home-${k.minor}`),
        };
        const results: StepResult[] = [];
        for (const step of KUBECTL_STEPS) {
          const problem = await runStep(k, step, c, env);
          results.push({ id: step.id, ok: problem === undefined, detail: problem ?? '' });
        }
        assertOnlyKnownFailures(record(t, `kubectl 1.${k.minor}`, results), k.minor);
      });
    });

    it('the Python client (kubernetes on PyPI)', { timeout: 600_000 }, async (t) => {
      const found = await pythonClient();
      if (typeof found === 'string') return t.skip(found);
      const script = new URL('./python-client.py', import.meta.url).pathname;
      const out = await new Promise<string>((resolve) =>
        execFile(
          found.python,
          [script, sim.kubeconfigPath, 'python-client'],
          { timeout: 300_000 },
          (error, stdout, stderr) => resolve(error && stdout === '' ? `${stderr}` : stdout),
        ),
      );
      const results = out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as StepResult);
      assert.ok(results.length > 0, `the Python script printed no steps:\n${out}`);
      const report = record(t, `python kubernetes ${found.version}`, results);
      assert.deepEqual(report.failures, []);
    });
  },
);
