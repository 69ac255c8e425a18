/**
 * kubemaint.yaml's `agent:` reaches the reporter agents (ADR 0022): a skew scan writes it into the
 * ConfigMap kubemaint-agent as one key per setting, writes nothing while it says the same, and
 * rewrites it after the config changed. On the sim, through the real kube adapter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { configMapAgentSettings } from '../../../src/adapters/kube/agent-settings.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { runTick } from '../../../src/app/control/tick.js';
import { agentSettingsData } from '../../../src/compose/agent-settings.js';
import { parseConfig } from '../../../src/config/parse.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe("the agents' settings from kubemaint.yaml", () => {
  let sim: TestSim;
  before(async () => (sim = await startTestSim({ scenario: 'demo' })));
  after(async () => sim.close());

  const depsFor = (agentYaml: string) => {
    const parsed = parseConfig(`agent:\n${agentYaml}`, 'kubemaint.yaml');
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    return {
      ...testControlDeps(sim, {
        settings: testControlSettings({ agentSettings: agentSettingsData(parsed.config.agent) }),
      }),
      agentSettings: configMapAgentSettings(createKubeClient(kc), 'kubemaint'),
    };
  };
  const configMap = async () =>
    (await sim.core.readNamespacedConfigMap({ name: 'kubemaint-agent', namespace: 'kubemaint' }))
      .data;

  it('are written on a skew scan, one key per setting, jitter a fifth of the period by default', async () => {
    const report = await runTick(depsFor('  period: 10m\n'), { skewScan: true });
    assert.deepEqual(report.agent, [
      'agent settings written: sentinel-file=/var/run/reboot-required period-seconds=600 jitter-seconds=120',
    ]);
    assert.deepEqual(await configMap(), {
      'sentinel-file': '/var/run/reboot-required',
      'period-seconds': '600',
      'jitter-seconds': '120',
    });
  });

  it('are not written again while they say the same, nor on an ordinary tick', async () => {
    const deps = depsFor('  period: 10m\n');
    assert.deepEqual((await runTick(deps, { skewScan: true })).agent, []);
    assert.equal((await runTick(deps)).agent, undefined);
  });

  it('are rewritten when the config changed', async () => {
    const report = await runTick(
      depsFor('  sentinelFile: /run/reboot-needed\n  period: 1m\n  jitter: 0s\n'),
      { skewScan: true },
    );
    assert.equal(report.agent?.length, 1);
    assert.deepEqual(await configMap(), {
      'sentinel-file': '/run/reboot-needed',
      'period-seconds': '60',
      'jitter-seconds': '0',
    });
  });
});
