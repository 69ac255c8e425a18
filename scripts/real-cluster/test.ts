/**
 * `npm run test:real`: starts a fresh control plane of its own (state in .kubemaint/real-cluster-test,
 * so a developer's cluster is left alone), runs every test in test/real/ against it one file at a time
 * (they share cluster-scoped objects such as Nodes), and stops it whatever the outcome. Arguments are
 * passed on to node --test (e.g. a file list). A second run started meanwhile waits for the first.
 */
import { spawn } from 'node:child_process';
import { APISERVER, build } from './build.js';
import { down, up } from './control-plane.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RealClusterError } from './errors.js';
import { withLock } from './lock.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
  PREVIOUS_MINOR_RELEASE,
} from './versions.js';

const dir = '.kubemaint/real-cluster-test';
const say = (line: string) => process.stderr.write(`${line}\n`);
const files = process.argv.slice(2);

let code = 1;
// Ctrl-C reaches the test run too (same process group); the control plane must not outlive it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void down(dir).finally(() => process.exit(130));
  });
}
mkdirSync('.kubemaint', { recursive: true });
await withLock(join('.kubemaint', 'real-cluster-test.lock'), say, async () => {
  try {
    const version = parseKubernetesVersion(
      process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
    );
    const started = Date.now();
    // apiservers.test.ts starts it beside the control plane: built here, not inside a test's timeout.
    await build(parseKubernetesVersion(PREVIOUS_MINOR_RELEASE), say, APISERVER);
    const state = await up({ version, dir, fresh: true, say });
    say(
      `real control plane ${state.version} up in ${((Date.now() - started) / 1000).toFixed(1)} s (including any build)`,
    );
    code = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--test',
          '--test-reporter=spec',
          '--test-concurrency=1',
          ...(files.length > 0 ? files : ['test/real/**/*.test.ts']),
        ],
        { stdio: 'inherit', env: { ...process.env, KUBEMAINT_REAL_KUBECONFIG: state.kubeconfig } },
      );
      child.on('close', (exit) => resolve(exit ?? 1));
    });
  } catch (error) {
    if (!(error instanceof RealClusterError)) throw error;
    say(`test:real: ${error.message}`);
  } finally {
    await down(dir);
  }
});
process.exit(code);
