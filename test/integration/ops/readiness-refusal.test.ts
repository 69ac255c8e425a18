/**
 * `serve`'s `/readyz` says whether it can talk to its apiserver (issue 17): a sim re-created with a
 * new CA on the same port refuses every call serve makes (its kubeconfig trusts the old CA), and
 * readiness fails at once with that reason instead of saying 200 until a timeout; `/livez` stays up
 * (the process is well, its link to the cluster is not). The sim brought back from its saved state
 * (the old CA, the same port) makes serve ready again without a restart of serve.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createSim, type Sim } from '@kubemaint/kubesim';
import { installKubemaintKinds } from '../../../src/compose/sim-kinds.js';
import { kubemaintAccessObjects } from '../../../src/compose/sim-access.js';
import { startCli, type LongRunning } from '../../support/cli-process.js';
import { waitFor } from '../../support/sim.js';

describe('serve readiness when its apiserver refuses it', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-readiness-'));
  const kubeconfig = join(dir, 'sim.kubeconfig');
  let sim: Sim | undefined;
  let serve: LongRunning | undefined;
  after(async () => {
    await serve?.stop();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The demo cluster kept in `dir/<state>` (its own CA), serving on `port` (0: its saved one). */
  async function startSim(state: string, port = 0): Promise<Sim> {
    const started = await createSim({
      objects: kubemaintAccessObjects(),
      scale: 100,
      kubeconfigPath: kubeconfig,
      state: join(dir, state),
      port,
    });
    const kc = new KubeConfig();
    kc.loadFromFile(started.kubeconfigPath);
    await installKubemaintKinds(kc);
    return started;
  }

  const readyz = async (ops: string): Promise<{ code: number; body: string }> => {
    const answer = await fetch(`${ops}/readyz`, { signal: AbortSignal.timeout(10_000) });
    return { code: answer.status, body: await answer.text() };
  };

  it('fails /readyz with the TLS reason against a new CA, keeps /livez, and recovers with the old CA', async () => {
    sim = await startSim('first');
    const port = Number(new URL(sim.url).port);
    serve = startCli(
      ['serve', '--kubeconfig', kubeconfig, '--ops-port', '0', '--ops-host', '127.0.0.1'],
      { cwd: dir },
    );
    const ops = (await serve.waitFor(/serve ready: .* ops=(\S+)/, 90_000))[1]!;
    await waitFor('serve ready', async () => (await readyz(ops)).code === 200, 90_000);

    await sim.stop();
    sim = await startSim('other', port);
    const refused = await waitFor(
      '/readyz to fail',
      async () => {
        const answer = await readyz(ops);
        return answer.code === 503 ? answer : undefined;
      },
      90_000,
    );
    assert.match(
      refused.body,
      /^not ready: the apiserver refuses serve: the TLS handshake fails: the apiserver's certificate is not trusted \(\w+: .*\); was the cluster re-created with a new CA\?/,
    );
    assert.equal((await fetch(`${ops}/livez`)).status, 200);
    assert.equal((await fetch(`${ops}/healthz`)).status, 200);

    await sim.stop();
    sim = await startSim('first');
    assert.equal(Number(new URL(sim.url).port), port, 'the saved cluster serves on its port again');
    await waitFor('serve ready again', async () => (await readyz(ops)).code === 200, 120_000);
  });
});
