/**
 * The reporter agent's settings from kubemaint.yaml (ADR 0022): the files of the mounted ConfigMap
 * kubemaint-agent (sentinel-file, period-seconds, jitter-seconds) set what the DaemonSet's env
 * leaves open, are read again before each check, and a value that is not valid is logged and
 * ignored. Every case runs under each available shell (dash, busybox sh), against the sim.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { availableShells, eventually, runAgent, sandbox, startAgent } from './agent-harness.js';
import { startSimCluster, type AgentCluster } from './sim-cluster.js';

const NODE = 'node-3';
const LABEL = 'kubemaint.io/reboot-required';

/** A settings directory as the kubelet mounts the ConfigMap: one file per key. */
function settings(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-agent-settings-'));
  for (const [key, value] of Object.entries(files)) writeFileSync(join(dir, key), `${value}\n`);
  return dir;
}

/** The env without the variables kubemaint.yaml may set (the harness sets some for speed). */
function withoutSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { PERIOD_SECONDS: _p, JITTER_SECONDS: _j, SENTINEL_FILE: _s, ...rest } = env;
  return rest;
}

for (const shell of availableShells()) {
  describe(`kubemaint-agent.sh settings from kubemaint.yaml under ${shell.name}`, () => {
    let cluster: AgentCluster;
    before(async () => (cluster = await startSimCluster()));
    after(() => cluster.stop());
    const fresh = () => {
      cluster.sim.admin.setFaults([]);
      cluster.setKubemaint(NODE, { labels: {}, annotations: {} });
      cluster.clearWrites();
      return sandbox(shell, cluster, cluster.token, NODE);
    };

    it('checks the sentinel file kubemaint.yaml names, under HOST_ROOT', async () => {
      const box = fresh();
      writeFileSync(join(box.hostRoot, 'var/run/custom-reboot'), '');
      const dir = settings({ 'sentinel-file': '/var/run/custom-reboot' });
      const run = await runAgent(shell, box.env({ AGENT_CONFIG_DIR: dir, AGENT_ITERATIONS: '1' }));
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /check=file:\S+\/host\/var\/run\/custom-reboot/);
      assert.equal(cluster.node(NODE).labels[LABEL], 'true');
    });

    it("takes period and jitter from it, and the DaemonSet's env over it", async () => {
      const box = fresh();
      const dir = settings({ 'period-seconds': '600', 'jitter-seconds': '30' });
      const env = withoutSettings(box.env({ AGENT_CONFIG_DIR: dir, AGENT_ITERATIONS: '1' }));
      const fromFile = await runAgent(shell, env);
      assert.match(fromFile.output, /"starting" node=node-3 period=600s jitter=30s/);
      const fromEnv = await runAgent(shell, { ...env, PERIOD_SECONDS: '0', JITTER_SECONDS: '0' });
      assert.match(fromEnv.output, /"starting" node=node-3 period=0s jitter=0s/);
      const sentinel = await runAgent(shell, {
        ...env,
        SENTINEL_FILE: box.sentinel,
        AGENT_CONFIG_DIR: settings({ 'sentinel-file': '/var/run/custom-reboot' }),
      });
      assert.match(sentinel.output, new RegExp(`check=file:${box.sentinel}`));
    });

    it('defaults without the ConfigMap: the file Debian writes, every 5 minutes', async () => {
      const box = fresh();
      const env = withoutSettings(
        box.env({ AGENT_CONFIG_DIR: '/nonexistent', AGENT_ITERATIONS: '1' }),
      );
      const run = await runAgent(shell, env);
      assert.match(
        run.output,
        /period=300s jitter=60s check=file:\S+\/host\/var\/run\/reboot-required/,
      );
    });

    it('ignores values that are not valid, says so, and keeps the defaults', async () => {
      const box = fresh();
      const dir = settings({
        'sentinel-file': '/var/run/../../etc/shadow',
        'period-seconds': '1',
        'jitter-seconds': 'soon',
      });
      const env = withoutSettings(box.env({ AGENT_CONFIG_DIR: dir, AGENT_ITERATIONS: '1' }));
      const run = await runAgent(shell, env);
      assert.equal(run.code, 0, run.output);
      assert.match(
        run.output,
        /ignoring sentinel-file from kubemaint\.yaml: not an absolute plain path/,
      );
      assert.match(
        run.output,
        /ignoring period-seconds from kubemaint\.yaml: not 10 to 86400" value="1"/,
      );
      assert.match(run.output, /ignoring jitter-seconds from kubemaint\.yaml: not 0 to the period/);
      assert.match(
        run.output,
        /period=300s jitter=60s check=file:\S+\/host\/var\/run\/reboot-required/,
      );
    });

    it('follows a new config while it runs', async () => {
      const box = fresh();
      writeFileSync(join(box.hostRoot, 'var/run/custom-reboot'), '');
      const dir = settings({});
      const agent = startAgent(shell, box.env({ AGENT_CONFIG_DIR: dir, PERIOD_SECONDS: '1' }));
      try {
        await eventually('the agent has started', () => agent.output().includes('starting'));
        assert.equal(cluster.node(NODE).labels[LABEL], undefined);
        writeFileSync(join(dir, 'sentinel-file'), '/var/run/custom-reboot\n');
        await eventually('the node is marked', () => cluster.node(NODE).labels[LABEL] === 'true');
        assert.match(agent.output(), /"settings changed" sentinel=\S+\/var\/run\/custom-reboot/);
      } finally {
        assert.equal(await agent.stop(), 0, agent.output());
      }
    });
  });
}
