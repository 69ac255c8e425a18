/**
 * Golden files for the executor Job manifest. Regenerate with `UPDATE_GOLDEN=1` and review the diff.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { labelValue } from '../../../templates/label-value.js';
import { buildExecutorJob, type ExecutorJobParams } from '../../../templates/executor-job.js';

const golden = (name: string) => new URL(`../../fixtures/golden/${name}`, import.meta.url);

const base: ExecutorJobParams = {
  node: 'ip-10-0-1-17.eu-west-1.compute.internal',
  requestId: 'r-7f3a9c',
  namespace: 'kubemaint',
  image: 'ghcr.io/kubemaint/kubemaint:0.1.0',
  serviceAccountName: 'kubemaint-executor',
  rebootMethod: 'command',
  activeDeadlineSeconds: 7200,
  ttlSecondsAfterFinished: 3600,
  settingsJson: '{"namespace":"kubemaint"}',
  resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
  priorityClassName: 'system-node-critical',
};

const cases = [
  { file: 'executor-job-command.golden.json', params: base },
  { file: 'executor-job-signal.golden.json', params: { ...base, rebootMethod: 'signal' as const } },
];

describe('executor Job manifest', () => {
  for (const c of cases) {
    it(`matches ${c.file}`, () => {
      const text = `${JSON.stringify(buildExecutorJob(c.params), null, 2)}\n`;
      if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(golden(c.file), text);
      assert.equal(text, readFileSync(golden(c.file), 'utf8'));
    });
  }

  it('keeps the invariants that make one request one reboot', () => {
    const job = buildExecutorJob(base);
    const pod = job.spec!.template.spec!;
    assert.equal(job.spec?.backoffLimit, 0);
    assert.equal(pod.restartPolicy, 'Never');
    assert.equal(pod.nodeName, base.node);
    assert.equal(pod.hostPID, true);
    assert.deepEqual(pod.tolerations, [{ operator: 'Exists' }]);
    assert.equal(job.metadata?.name, 'kubemaint-r-7f3a9c-ip-10-0-1-17-eu-west-1-compute-internal');
    assert.ok((job.metadata?.name ?? '').length <= 63);
  });

  it('labels the pod so its own drain recognises it', () => {
    const labels = buildExecutorJob(base).spec!.template.metadata!.labels!;
    assert.equal(labels['app.kubernetes.io/managed-by'], 'kubemaint');
    assert.equal(labels['kubemaint.io/node'], base.node);
    assert.equal(labels['kubemaint.io/request'], base.requestId);
  });

  it('gives a 253-character node a valid hashed label, the name in an annotation and nodeName', () => {
    const node = `${'n'.repeat(62)}.${'o'.repeat(62)}.${'d'.repeat(62)}.${'e'.repeat(64)}`;
    const job = buildExecutorJob({ ...base, node });
    for (const meta of [job.metadata!, job.spec!.template.metadata!]) {
      assert.equal(meta.labels!['kubemaint.io/node'], labelValue(node));
      assert.ok(meta.labels!['kubemaint.io/node'].length <= 63);
      assert.equal(meta.annotations!['kubemaint.io/node'], node);
    }
    assert.equal(job.spec!.template.spec!.nodeName, node);
    assert.ok((job.metadata?.name ?? '').length <= 63);
    assert.deepEqual(job.spec!.template.spec!.containers[0]!.args, [
      'executor',
      '--node',
      node,
      '--request',
      base.requestId,
    ]);
  });

  it('sets the pull policy and text logs only when asked, and no class or resources when unset', () => {
    const plain = buildExecutorJob({
      ...base,
      resources: undefined,
      priorityClassName: undefined,
    });
    const pod = plain.spec!.template.spec!;
    assert.equal(pod.priorityClassName, undefined);
    assert.equal(pod.containers[0]!.resources, undefined);
    assert.equal(pod.containers[0]!.imagePullPolicy, undefined);
    assert.ok(!pod.containers[0]!.env!.some((e) => e.name === 'KUBEMAINT_LOG_FORMAT'));
    const asked = buildExecutorJob({ ...base, imagePullPolicy: 'Always', logFormat: 'text' });
    const container = asked.spec!.template.spec!.containers[0]!;
    assert.equal(container.imagePullPolicy, 'Always');
    assert.deepEqual(
      container.env!.find((e) => e.name === 'KUBEMAINT_LOG_FORMAT'),
      { name: 'KUBEMAINT_LOG_FORMAT', value: 'text' },
    );
  });

  it('grants only CAP_KILL for the signal method, and privileged for nsenter', () => {
    const sc = (method: 'command' | 'signal') =>
      buildExecutorJob({ ...base, rebootMethod: method }).spec!.template.spec!.containers[0]!
        .securityContext!;
    assert.equal(sc('signal').privileged, undefined);
    assert.deepEqual(sc('signal').capabilities, { drop: ['ALL'], add: ['KILL'] });
    assert.equal(sc('command').privileged, true);
  });
});
