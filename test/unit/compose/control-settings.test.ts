/**
 * The config as the control plane sees it: approvers (CLI users and the "*" group), auto-approval,
 * unhealthy limits, alert filters, stall time, the executor Job bound to the config, and the sim's
 * host commands.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig, CLI_ANYONE } from '../../../src/compose/control-settings.js';
import { forSimHost } from '../../../src/compose/sim-host.js';
import { parseConfig } from '../../../src/config/parse.js';
import type { Config } from '../../../src/config/schema.js';
import { authorisationProblem } from '../../../src/core/approvers.js';

function config(yaml: string): Config {
  const parsed = parseConfig(yaml, 'test.yaml', {});
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.config;
}

describe('controlSettingsFromConfig', () => {
  it('lists CLI approvers as cli:<user>, and "*" as a group every CLI user is in', () => {
    const named = controlSettingsFromConfig(
      config('approval: {approvers: {users: [U0123ABC], cli: [alice]}}'),
    );
    assert.deepEqual(named.approval.users, ['U0123ABC', 'cli:alice']);
    assert.equal(
      authorisationProblem({ kind: 'person', id: 'cli:alice' }, named.approval),
      undefined,
    );
    assert.match(
      authorisationProblem(
        { kind: 'person', id: 'cli:bob', groups: [CLI_ANYONE] },
        named.approval,
      ) ?? '',
      /not an approver/,
    );
    const anyone = controlSettingsFromConfig(config('approval: {approvers: {cli: ["*"]}}'));
    assert.deepEqual(anyone.approval.groups, [CLI_ANYONE]);
    assert.equal(
      authorisationProblem(
        { kind: 'person', id: 'cli:bob', groups: [CLI_ANYONE] },
        anyone.approval,
      ),
      undefined,
    );
  });

  it('maps auto-approval, two-person rule, limits and stall time; alerts are filtered by the adapter', () => {
    const settings = controlSettingsFromConfig(
      config(`
approval: {twoPerson: true, autoApprove: {nodeSelector: "env=dev"}}
blockers:
  maxUnhealthyNodes: "10%"
  prometheus: {url: "http://prom:9090", alertFilter: "^Watchdog$", firingOnly: true}
drain: {stallAfter: 3m}
lock: {concurrency: 4, poolLabel: pool, pools: {gpu: 1}, releaseDelay: 15m}
`),
    );
    assert.equal(settings.approval.twoPersonRule, true);
    assert.deepEqual(settings.approval.autoApproveRules, ['autoApprove']);
    assert.ok(settings.autoApprove && settings.autoApprove.length === 1);
    assert.deepEqual(settings.blockers.maxUnhealthyNodes, { percent: 10 });
    // The Prometheus adapter applies kured's filter, match-only and firing-only itself (it alone sees
    // alertstate); a second filter here once let every alert through with firingOnly.
    assert.equal('alertFilter' in settings.blockers, false);
    assert.equal(settings.drainStallAfterMs, 180_000);
    assert.deepEqual(settings.lock, {
      concurrency: 4,
      poolLabel: 'pool',
      pools: { gpu: 1 },
      releaseDelayMs: 900_000,
    });
  });

  it('builds each Job with the executor settings of this config', () => {
    const settings = controlSettingsFromConfig(
      config('reboot: {command: ["/sbin/reboot"]}\nexecutor: {image: "registry.local/km:1.2.3"}'),
    );
    const job = settings.jobFor('node-1', 'r-abcdef', 'reboot') as {
      metadata: { name: string };
      spec: {
        template: {
          spec: { containers: { image: string; env: { name: string; value?: string }[] }[] };
        };
      };
    };
    assert.equal(job.metadata.name, 'kubemaint-r-abcdef-node-1');
    const container = job.spec.template.spec.containers[0]!;
    assert.equal(container.image, 'registry.local/km:1.2.3');
    const json = container.env.find((e) => e.name === 'KUBEMAINT_EXECUTOR_SETTINGS')?.value ?? '';
    const executor = JSON.parse(json) as { reboot: { command: string[] }; hostPrefix: string[] };
    assert.deepEqual(executor.reboot.command, ['/sbin/reboot']);
    assert.deepEqual(executor.hostPrefix, ['nsenter', '-m/proc/1/ns/mnt', '--']);
  });

  it('on the sim, host commands go to the simulated host without nsenter', () => {
    const sim = forSimHost(config('reboot: {method: signal}'));
    const executor = JSON.parse(
      (
        controlSettingsFromConfig(sim).jobFor('node-1', 'r-abcdef', 'reboot') as {
          spec: {
            template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
          };
        }
      ).spec.template.spec.containers[0]!.env.find((e) => e.name === 'KUBEMAINT_EXECUTOR_SETTINGS')!
        .value!,
    ) as {
      reboot: { method: string; command: string[] };
      hostPrefix: string[];
      upgrade: { command: string[] };
    };
    assert.deepEqual(executor.reboot, {
      method: 'command',
      command: ['kubemaint-sim-host', 'reboot'],
    });
    assert.deepEqual(executor.hostPrefix, []);
    assert.deepEqual(executor.upgrade.command, ['kubemaint-sim-host', 'upgrade', '{{version}}']);
  });
});
