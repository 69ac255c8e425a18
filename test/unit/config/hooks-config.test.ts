/** `hooks:` in the config (ADR 0021): parsed, checked against what admission admits, mapped to Jobs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig } from '../../../src/compose/control-settings.js';
import { configOf, problemsOf } from '../../support/config.js';

describe('hooks', () => {
  it('are none by default', () => {
    assert.equal(controlSettingsFromConfig(configOf({})).hooks, undefined);
  });

  it('a container becomes a hook Job: its account, its deadline, the request in its env', () => {
    const settings = controlSettingsFromConfig(
      configOf({
        hooks: {
          beforeDrain: {
            container: { image: 'registry.example.com/ops/backup:1.2', args: ['--all'] },
            timeout: '5m',
            onFailure: 'continue',
          },
        },
      }),
    );
    const hook = settings.hooks?.beforeDrain;
    assert.equal(hook?.timeoutMs, 300_000);
    assert.equal(hook?.onFailure, 'continue');
    const job = hook.jobFor('node-1', 'r-abc123', 'reboot') as {
      metadata: { name: string; labels: Record<string, string> };
      spec: {
        activeDeadlineSeconds: number;
        template: {
          spec: { serviceAccountName: string; containers: { env: { name: string }[] }[] };
        };
      };
    };
    assert.equal(job.metadata.name, 'kubemaint-hook-b-r-abc123-node-1');
    assert.equal(job.metadata.labels['kubemaint.io/hook'], 'before-drain');
    assert.equal(job.spec.activeDeadlineSeconds, 300);
    assert.equal(job.spec.template.spec.serviceAccountName, 'kubemaint-hook');
    assert.deepEqual(
      job.spec.template.spec.containers[0]!.env.map((e) => e.name),
      ['KUBEMAINT_NODE', 'KUBEMAINT_REQUEST', 'KUBEMAINT_ACTION', 'KUBEMAINT_HOOK'],
    );
  });

  const refusals: { what: string; hook: unknown; path: string; message: RegExp }[] = [
    {
      what: 'neither container nor template',
      hook: { timeout: '5m' },
      path: 'hooks.afterReady',
      message: /needs exactly one of container and template/,
    },
    {
      what: 'both',
      hook: { container: { image: 'a/b:1' }, template: { spec: { containers: [] } } },
      path: 'hooks.afterReady',
      message: /exactly one/,
    },
    {
      what: 'a privileged container',
      hook: {
        template: {
          spec: {
            containers: [{ name: 'x', image: 'a/b:1', securityContext: { privileged: true } }],
          },
        },
      },
      path: 'hooks.afterReady.template.spec.containers[0].securityContext.privileged',
      message: /a privileged container: admission \(kubemaint-hook-jobs\) refuses it/,
    },
    {
      what: 'the host PID namespace',
      hook: { template: { spec: { hostPID: true, containers: [{ name: 'x', image: 'a/b:1' }] } } },
      path: 'hooks.afterReady.template.spec.hostPID',
      message: /hostPID shares the host's namespace: admission/,
    },
    {
      what: 'a host path',
      hook: {
        template: {
          spec: {
            containers: [{ name: 'x', image: 'a/b:1' }],
            volumes: [{ name: 'root', hostPath: { path: '/' } }],
          },
        },
      },
      path: 'hooks.afterReady.template.spec.volumes[0].hostPath',
      message: /a hostPath volume: admission/,
    },
    {
      what: 'a node by name',
      hook: {
        template: { spec: { nodeName: 'n1', containers: [{ name: 'x', image: 'a/b:1' }] } },
      },
      path: 'hooks.afterReady.template.spec.nodeName',
      message: /nodeName is kubemaint's to set/,
    },
    {
      what: 'another account',
      hook: {
        template: {
          spec: {
            serviceAccountName: 'kubemaint-executor',
            containers: [{ name: 'x', image: 'a/b:1' }],
          },
        },
      },
      path: 'hooks.afterReady.template.spec.serviceAccountName',
      message: /serviceAccountName is kubemaint's to set/,
    },
    {
      what: 'a bad image',
      hook: { container: { image: 'Not An Image' } },
      path: 'hooks.afterReady.container.image',
      message: /"Not An Image" is not an image reference/,
    },
    {
      what: 'a timeout over a day',
      hook: { container: { image: 'a/b:1' }, timeout: '2d' },
      path: 'hooks.afterReady.timeout',
      message: /at most 24h/,
    },
    {
      what: 'an unknown failure policy',
      hook: { container: { image: 'a/b:1' }, onFailure: 'retry' },
      path: 'hooks.afterReady.onFailure',
      message: /abort|continue/,
    },
  ];
  for (const r of refusals) {
    it(`refuses ${r.what}, saying where and why`, () => {
      const problems = problemsOf({ hooks: { afterReady: r.hook } });
      const found = problems.find((p) => p.path === r.path);
      assert.ok(found, `${r.path} not in ${JSON.stringify(problems)}`);
      assert.match(`${found.message} ${found.hint ?? ''}`, r.message);
    });
  }
});
