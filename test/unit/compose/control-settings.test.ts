/**
 * The config as the control plane sees it: approvers, proposers and persons (Slack IDs, k8s:<name>),
 * auto-approval (detection only unless manual),
 * unhealthy limits, alert filters, stall time, the executor Job bound to the config, and the sim's
 * host commands.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig, CLI_ANYONE } from '../../../src/compose/control-settings.js';
import { forSimHost } from '../../../src/compose/sim-host.js';
import { parseConfig } from '../../../src/config/parse.js';
import type { Config } from '../../../src/config/schema.js';
import { DEMO_CONFIG_TEXT } from '../../../src/config/defaults.js';
import { authorisationProblem, personOf, proposeProblem } from '../../../src/core/approvers.js';

function config(yaml: string): Config {
  const parsed = parseConfig(yaml, 'test.yaml', {});
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.config;
}

describe('controlSettingsFromConfig', () => {
  it('lists Slack identities as they are, Kubernetes ones as k8s:<name>, persons by all their identities', () => {
    const settings = controlSettingsFromConfig(
      config(`
people:
  - {name: alice, slack: [U0ALICE], kubernetes: [alice@example.com]}
  - {name: bob, kubernetes: [bob]}
approval:
  approvers:
    users: [U0123ABC]
    groups: [S0SRE]
    kubernetes: {users: [carol], groups: [sre]}
    people: [alice]
  proposers:
    kubernetes: {groups: [developers]}
    people: [bob]
`),
    );
    const { users, groups, proposers, people } = settings.approval;
    assert.deepEqual(users, ['U0123ABC', 'k8s:carol', 'U0ALICE', 'k8s:alice@example.com']);
    assert.deepEqual(groups, ['S0SRE', 'k8s:sre']);
    assert.deepEqual(proposers, { users: ['k8s:bob'], groups: ['k8s:developers'] });
    assert.deepEqual(people, {
      U0ALICE: 'alice',
      'k8s:alice@example.com': 'alice',
      'k8s:bob': 'bob',
    });
    const person = (id: string, groups: string[] = []) => ({ kind: 'person' as const, id, groups });
    assert.equal(
      authorisationProblem(person('k8s:alice@example.com'), settings.approval),
      undefined,
    );
    assert.equal(
      authorisationProblem(person('k8s:zed', ['k8s:sre']), settings.approval),
      undefined,
    );
    assert.match(
      authorisationProblem(person('k8s:bob'), settings.approval) ?? '',
      /not an approver/,
    );
    assert.equal(proposeProblem(person('k8s:bob'), settings.approval), undefined);
    // The turn-1 CLI identity admits nobody any more.
    assert.ok(authorisationProblem(person('cli:alice', [CLI_ANYONE]), settings.approval));
  });

  it('the embedded demo lets the sim administrator and any impersonated user approve, each a person', () => {
    const demo = controlSettingsFromConfig(config(DEMO_CONFIG_TEXT));
    assert.deepEqual(demo.approval.groups, ['k8s:system:authenticated']);
    for (const who of [
      { id: 'k8s:kubernetes-admin', groups: ['k8s:system:masters', 'k8s:system:authenticated'] },
      { id: 'k8s:alice', groups: ['k8s:system:authenticated'] },
    ]) {
      assert.equal(authorisationProblem({ kind: 'person', ...who }, demo.approval), undefined);
    }
    assert.notEqual(personOf('k8s:alice', demo.approval), personOf('k8s:bob', demo.approval));
  });

  it('auto-approves detection only, unless autoApprove.manual says hand-typed requests too', () => {
    const only = controlSettingsFromConfig(
      config('approval: {autoApprove: {nodeSelector: "env=dev"}}'),
    );
    assert.equal(only.autoApproveManual, false);
    const manual = controlSettingsFromConfig(
      config('approval: {autoApprove: {nodeSelector: "env=dev", manual: true}}'),
    );
    assert.equal(manual.autoApproveManual, true);
    const none = controlSettingsFromConfig(config('slot: {concurrency: 1}'));
    assert.equal(none.autoApprove, undefined);
    assert.equal(none.autoApproveManual, undefined);
  });

  it('maps auto-approval, two-person rule, limits and stall time; alerts are filtered by the adapter', () => {
    const settings = controlSettingsFromConfig(
      config(`
approval: {twoPerson: true, autoApprove: {nodeSelector: "env=dev"}}
blockers:
  maxUnhealthyNodes: "10%"
  prometheus: {url: "http://prom:9090", alertFilter: "^Watchdog$", firingOnly: true}
drain: {stallAfter: 3m}
slot: {concurrency: 4, poolLabel: pool, pools: {gpu: 1}, releaseDelay: 15m}
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
