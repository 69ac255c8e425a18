/**
 * `executor.imagePullPolicy`, `.resources` and `.priorityClassName`: defaults that keep a reboot
 * admitted on a full node, quantities written as the apiserver writes them back (what admission
 * compares), bounds the admission policy also holds, and each mistake named with a fix.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig } from '../../../src/compose/control-settings.js';
import { parseConfig } from '../../../src/config/parse.js';
import { cpuMillis, memoryMiB } from '../../../src/config/schema-executor.js';

const parse = (text: string) => parseConfig(text, 'k.yaml');

describe('executor Job settings', () => {
  it('default to system-node-critical and the measured resources', () => {
    const result = parse('');
    assert.ok(result.ok);
    assert.equal(result.config.executor.priorityClassName, 'system-node-critical');
    assert.equal(result.config.executor.imagePullPolicy, undefined);
    assert.deepEqual(result.config.executor.resources, {
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { memory: '256Mi' },
    });
  });

  it('reach the Job', () => {
    const result = parse(
      'executor:\n  imagePullPolicy: Always\n  priorityClassName: maintenance\n' +
        '  resources:\n    requests: {cpu: 0.5, memory: 1024Mi}\n    limits: {cpu: 1500m, memory: 2Gi}\n' +
        'log:\n  format: text\n',
    );
    assert.ok(result.ok, JSON.stringify(result));
    const job = controlSettingsFromConfig(result.config).jobFor('node-1', 'r-abcdef', 'reboot') as {
      spec: {
        template: {
          spec: {
            priorityClassName?: string;
            containers: {
              imagePullPolicy?: string;
              resources?: unknown;
              env: { name: string; value?: string }[];
            }[];
          };
        };
      };
    };
    const pod = job.spec.template.spec;
    assert.equal(pod.priorityClassName, 'maintenance');
    assert.equal(pod.containers[0]!.imagePullPolicy, 'Always');
    // As the apiserver writes them back: 1024Mi is 1Gi, 0.5 is 500m.
    assert.deepEqual(pod.containers[0]!.resources, {
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '1500m', memory: '2Gi' },
    });
    assert.ok(pod.containers[0]!.env.some((e) => e.name === 'KUBEMAINT_LOG_FORMAT'));
  });

  it('"" runs the Job without a priority class', () => {
    const result = parse('executor:\n  priorityClassName: ""\n');
    assert.ok(result.ok);
    const job = controlSettingsFromConfig(result.config).jobFor('n', 'r-abcdef', 'reboot') as {
      spec: { template: { spec: { priorityClassName?: string } } };
    };
    assert.equal(job.spec.template.spec.priorityClassName, undefined);
  });

  const refused: [string, string, string, RegExp][] = [
    [
      'a pull policy of another spelling',
      'imagePullPolicy: always',
      'executor.imagePullPolicy',
      /./,
    ],
    [
      'a priority class that is no name',
      'priorityClassName: System_Critical',
      'executor.priorityClassName',
      /is not a PriorityClass name/,
    ],
    [
      'CPU that is no quantity',
      'resources: {requests: {cpu: lots}}',
      'executor.resources.requests.cpu',
      /"lots" is not a CPU quantity/,
    ],
    [
      'more than 4 cores',
      'resources: {limits: {cpu: 8}}',
      'executor.resources.limits.cpu',
      /outside 1m … 4/,
    ],
    [
      'memory in decimal units',
      'resources: {limits: {memory: 512M}}',
      'executor.resources.limits.memory',
      /not a memory quantity in Mi or Gi/,
    ],
    [
      'a memory limit the executor cannot start under',
      'resources: {limits: {memory: 64Mi}}',
      'executor.resources.limits.memory',
      /outside 128Mi … 4Gi/,
    ],
    [
      'a request above its limit',
      'resources: {requests: {memory: 512Mi}, limits: {memory: 256Mi}}',
      'executor.resources.requests.memory',
      /512Mi is more than limits\.memory \(256Mi\)/,
    ],
    [
      'GPUs or other resources',
      'resources: {limits: {nvidia.com/gpu: 1}}',
      'executor.resources.limits["nvidia.com/gpu"]',
      /unknown key/,
    ],
  ];
  for (const [name, yaml, path, message] of refused) {
    it(`refuses ${name}`, () => {
      const result = parse(`executor:\n  ${yaml}\n`);
      assert.ok(!result.ok);
      const problem = result.problems.find((p) => p.path === path);
      assert.ok(problem, JSON.stringify(result.problems));
      assert.match(problem.message, message);
      if (path !== 'executor.imagePullPolicy' && !/unknown/.test(problem.message))
        assert.ok(problem.hint, 'says how to write it');
    });
  }

  it('reads quantities as Kubernetes does', () => {
    assert.equal(cpuMillis('250m'), 250);
    assert.equal(cpuMillis(2), 2000);
    assert.equal(cpuMillis('0.25'), 250);
    assert.equal(cpuMillis('1.2345'), undefined);
    assert.equal(memoryMiB('3Gi'), 3072);
    assert.equal(memoryMiB('100MB'), undefined);
  });
});
