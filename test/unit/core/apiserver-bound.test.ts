/**
 * The oldest *emulated* kube-apiserver bounds the kubelets (ADR 0050): the bound names the apiserver
 * and source that gave it, an emulated bound allows every patch of its minor, and a kubelet above the
 * bound is a skew violation, never an upgrade.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  apiserverBound,
  type ApiserverFact,
  type ApiserverFacts,
} from '../../../src/core/apiserver-bound.js';
import { detectNeeds } from '../../../src/core/detect.js';
import { parseSelector } from '@kubemaint/label-selector';
import { kubeletTargetRefusal } from '../../../src/core/kubelet-target.js';
import { classifyKubelet, nextKubeletStep } from '../../../src/core/skew.js';

const fact = (over: Partial<ApiserverFact>): ApiserverFact => ({
  name: 'https://127.0.0.1:6443',
  source: 'version',
  binary: 'v1.34.4',
  emulated: '1.34',
  ...over,
});
const everyNode = () => {
  const parsed = parseSelector('');
  assert.ok(parsed.ok);
  return parsed.selector;
};
const read = (facts: ApiserverFact[], extra: Partial<ApiserverFacts> = {}): ApiserverFacts => ({
  facts,
  said: [],
  ...extra,
});

describe('apiserverBound', () => {
  it('one /version at its own minor: the binary bounds, patch and all', () => {
    const { bound, summary } = apiserverBound(read([fact({})]));
    assert.equal(bound.label, 'v1.34.4');
    assert.equal(bound.minorOnly, false);
    assert.match(summary, /apiserver bound v1\.34\.4, from version https:\/\/127\.0\.0\.1:6443/);
  });

  it('an apiserver emulating the minor below bounds by its emulated minor, and is named', () => {
    const { bound, summary } = apiserverBound(
      read([fact({}), fact({ name: '127.0.0.1:7443', source: 'peer-address', emulated: '1.33' })], {
        identities: 2,
      }),
    );
    assert.equal(bound.label, 'v1.33 (emulated by v1.34.4)');
    assert.equal(bound.minorOnly, true);
    assert.equal(bound.source, 'peer-address 127.0.0.1:7443');
    assert.match(summary, /2 kube-apiservers by identity leases/);
  });

  it('at one minor, an exact binary bounds before an emulated one (its patch is known)', () => {
    const { bound } = apiserverBound(
      read([
        fact({ source: 'static-pod', name: 'kube-system/kube-apiserver-a', emulated: '1.33' }),
        fact({
          source: 'static-pod',
          name: 'kube-system/kube-apiserver-b',
          binary: 'v1.33.7',
          emulated: undefined,
        }),
      ]),
    );
    assert.equal(bound.label, 'v1.33.7');
    assert.equal(bound.source, 'static-pod kube-system/kube-apiserver-b');
  });

  it('the oldest binary of two minors bounds; a specific source names it before /version', () => {
    const { bound } = apiserverBound(
      read([
        fact({ binary: 'v1.33.2', emulated: '1.33' }),
        fact({
          source: 'endpointslice',
          name: '10.0.0.5:6443',
          binary: 'v1.33.2',
          emulated: '1.33',
        }),
        fact({ source: 'endpointslice', name: '10.0.0.6:6443' }),
      ]),
    );
    assert.equal(bound.label, 'v1.33.2');
    assert.equal(bound.source, 'endpointslice 10.0.0.5:6443');
  });

  it('warns when the identity leases count more apiservers than were read', () => {
    const { warnings } = apiserverBound(read([fact({})], { identities: 3 }));
    assert.match(warnings.join('\n'), /count 3 kube-apiservers but the versions of 1 were read/);
  });

  it('no readable version: an error saying what each source gave', () => {
    assert.throws(
      () => apiserverBound(read([fact({ binary: 'devel' })], { said: ['identity leases: 1'] })),
      (e: Error & { hint?: string }) =>
        /no kube-apiserver version/.test(e.message) && /identity leases: 1/.test(e.hint ?? ''),
    );
  });
});

describe('an emulated bound in the skew policy', () => {
  const { bound } = apiserverBound(read([fact({ emulated: '1.33' })]));

  it('a kubelet newer than the emulated minor is newer than the apiserver, named so', () => {
    const verdict = classifyKubelet('v1.34.1', bound);
    assert.equal(verdict.status, 'newer-than-apiserver');
    assert.match(verdict.reason, /newer than apiserver v1\.33 \(emulated by v1\.34\.4\)/);
  });

  it('any patch of the emulated minor matches it', () => {
    assert.equal(classifyKubelet('v1.33.9', bound).status, 'ok');
  });

  it('a person may ask for any patch of the emulated minor; the refusal names the bound, not v1.33.0', () => {
    assert.equal(
      kubeletTargetRefusal({ kubelet: 'v1.32.5', apiservers: bound, version: 'v1.33.6' }),
      undefined,
    );
    const refusal = kubeletTargetRefusal({
      kubelet: 'v1.32.5',
      apiservers: bound,
      version: 'v1.34.0',
    });
    assert.match(
      refusal?.problem ?? '',
      /up to v1\.33\.x \(the apiserver is v1\.33 \(emulated by v1\.34\.4\)\)/,
    );
    assert.doesNotMatch(refusal?.problem ?? '', /v1\.33\.0/);
  });

  it('a kubelet at the emulated minor: a later patch is allowed, and no .0 is offered as an example', () => {
    assert.equal(
      kubeletTargetRefusal({ kubelet: 'v1.33.5', apiservers: bound, version: 'v1.33.7' }),
      undefined,
    );
    const refusal = kubeletTargetRefusal({
      kubelet: 'v1.33.5',
      apiservers: bound,
      version: 'v1.34.0',
    });
    assert.match(refusal?.problem ?? '', /is newer than the apiserver/);
    assert.equal(refusal?.example, undefined);
  });

  it('the next step is the highest known patch of the emulated minor', () => {
    const step = nextKubeletStep({ kubelet: 'v1.32.5', apiservers: bound, known: ['v1.33.4'] });
    assert.equal(step?.version, 'v1.33.4');
  });

  it('detection reports a kubelet above the bound as a violation and proposes nothing for it', () => {
    const node = (name: string, kubeletVersion: string) => ({
      name,
      labels: {},
      annotations: {},
      conditions: {},
      kubeletVersion,
    });
    const result = detectNeeds(
      [node('new', 'v1.34.4'), node('old', 'v1.32.5')],
      {
        rebootLabel: 'kubemaint.io/reboot-required',
        conditionTypes: [],
        nodeSelector: everyNode(),
        kubelet: { apiservers: bound },
        reproposeAfterMs: 0,
        sinceAnnotation: 's',
        packagesAnnotation: 'p',
      },
      new Date(),
    );
    assert.deepEqual(
      result.violations.map((v) => v.node),
      ['new'],
    );
    assert.match(result.violations[0]?.why ?? '', /v1\.33 \(emulated by v1\.34\.4\)/);
    assert.deepEqual(
      result.needs.map((n) => `${n.node} ${n.targetVersion}`),
      ['old v1.33.0'],
    );
  });
});
