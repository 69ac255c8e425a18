/**
 * A pod the sim runs as a process calls host commands by name, as kured and a production executor
 * do: they reach the simulated host, never this machine (DESIGN invariant 11). Fakes of every such
 * command come first on the PATH of this process (which runs the sim) and record any call; the
 * sim's shims must come before them on the pod's PATH, whatever the pod's env says.
 *
 * The "image" is `env`, which runs its argv through PATH: never a shell, whose builtin `kill` no
 * PATH reaches (a `kill -9 -1` there once ended every process of this machine's user). What the
 * shims refuse without running anything is unit-tested (test/unit/host-shim.test.ts).
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { startTestSim, waitFor, type TestSim } from '../support.js';
import { HOST_SHIMS } from '../../src/host-shim.mjs';
import { R } from '../../src/types.js';

const NS = 'kubemaint';

/** Fakes of the host commands, first on this process's PATH: each records its call and succeeds. */
function plantFakes(): { dir: string; calls: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-fake-host-'));
  // A fake must be what a name finds before any real binary: else a broken shim would reach it.
  for (const name of HOST_SHIMS) {
    assert.ok(!existsSync(join(dirname(process.execPath), name)), `no ${name} beside node`);
  }
  const record = join(dir, 'calls');
  for (const name of HOST_SHIMS) {
    writeFileSync(join(dir, name), `#!/bin/sh\necho "${name} $*" >> '${record}'\nexit 0\n`);
    chmodSync(join(dir, name), 0o755);
  }
  process.env['PATH'] = `${dir}:${process.env['PATH'] ?? ''}`;
  return { dir, calls: () => (existsSync(record) ? readFileSync(record, 'utf8') : '') };
}

function job(name: string, node: string, argv: string[], env: V1EnvVar[] = []): V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          nodeName: node,
          restartPolicy: 'Never',
          containers: [{ name: 'host', image: 'sim.test/host:1', args: argv, env }],
        },
      },
    },
  };
}

describe('host commands of a pod process on a simulated node', () => {
  let sim: TestSim;
  let fakes: ReturnType<typeof plantFakes>;
  before(async () => {
    fakes = plantFakes();
    sim = await startTestSim({
      scenario: 'demo',
      nodes: 12,
      images: { 'sim.test/host:*': { command: ['env'] } },
    });
  });
  after(async () => {
    await sim?.close();
    rmSync(fakes.dir, { recursive: true, force: true });
  });

  const nodes = () => sim.store.list(R.nodes).map((n) => n.metadata.name ?? '');
  const run = async (name: string, node: string, command: string, env: V1EnvVar[] = []) => {
    const argv = command.split(' ');
    await sim.batch.createNamespacedJob({ namespace: NS, body: job(name, node, argv, env) });
    const done = await waitFor(`${name} finished`, async () => {
      const j = await sim.batch.readNamespacedJob({ name, namespace: NS });
      return j.status?.succeeded || j.status?.failed ? j : undefined;
    });
    const pods = await sim.core.listNamespacedPod({
      namespace: NS,
      labelSelector: `job-name=${name}`,
    });
    const pod = pods.items[0]?.metadata?.name ?? '';
    return { ok: done.status?.succeeded === 1, log: sim.admin.logs(NS, pod) };
  };
  const rebootsOf = (node: string) =>
    sim.admin.hostLog().filter((a) => a.node === node && a.action === 'reboot').length;

  const reboots: [string, string][] = [
    ['the production host prefix', 'nsenter -m/proc/1/ns/mnt -- systemctl reboot'],
    [
      'nsenter with a target and an absolute path',
      'nsenter --target 1 --mount -- /bin/systemctl reboot',
    ],
    ['reboot', 'reboot'],
    ['shutdown -r', 'shutdown -r now'],
    ["systemd's reboot signal to PID 1", 'kill -s RTMIN+5 1'],
  ];
  for (const [index, [what, command]] of reboots.entries()) {
    it(`${what} reboots the simulated node: ${command}`, async () => {
      const node = nodes()[index]!;
      // The pod may not outlive the reboot it asked for (its Job may fail): the host's log is the proof.
      await run(`reboot-${index}`, node, command);
      assert.equal(rebootsOf(node), 1, 'the simulated host rebooted once');
      assert.equal(fakes.calls(), '', 'no host command reached this machine');
    });
  }

  it("keeps the sim's PATH and host endpoint whatever the pod's env says", async () => {
    const node = nodes()[6]!;
    await run('env-override', node, 'reboot', [
      { name: 'PATH', value: `${fakes.dir}:/usr/bin:/bin` },
      { name: 'KUBEMAINT_SIM_HOST_URL', value: 'http://127.0.0.1:9' },
      { name: 'NODE_NAME', value: nodes()[7]! },
    ]);
    assert.equal(rebootsOf(node), 1);
    assert.equal(rebootsOf(nodes()[7]!), 0);
    assert.equal(fakes.calls(), '');
  });

  const refused: [string, string, RegExp][] = [
    [
      'a host prefix leading off the node',
      'nsenter -m/proc/1/ns/mnt -- sh -c true',
      /would run "sh" on the machine that runs the simulator, not on the simulated node/,
    ],
    ['nsenter without a command', 'nsenter -t 1 -m', /nsenter without a command/],
    ['a power-off', 'systemctl poweroff', /systemctl poweroff is not a reboot/],
    ['halt', 'halt', /halt would power the node off/],
    ['shutdown without -r', 'shutdown -h now', /powers the node off/],
  ];
  for (const [index, [what, command, says]] of refused.entries()) {
    it(`refuses ${what}, saying why: ${command}`, async () => {
      const node = nodes()[8 + (index % 4)]!;
      const result = await run(`refused-${index}`, node, command);
      assert.equal(result.ok, false, result.log);
      assert.match(result.log, /refused: /);
      assert.match(result.log, says);
      assert.equal(rebootsOf(node), 0);
      assert.equal(fakes.calls(), '', 'no host command reached this machine');
    });
  }
});
