import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubemaintError } from '../../../src/errors.js';
import {
  STRICT_VERSION_PATTERN,
  compareKubeVersions,
  formatKubeVersion,
  isStrictVersion,
  parseKubeVersion,
  parseVersionInfo,
  tryParseKubeVersion,
} from '../../../src/core/version.js';
import {
  MINOR_STEP_NOTE,
  PATCH_STEP_NOTE,
  apiserverSpreadProblem,
  classifyKubelet,
  nextKubeletStep,
  oldestApiserver,
} from '../../../src/core/skew.js';

describe('parseKubeVersion', () => {
  const cases = [
    { text: 'v1.31.4', major: 1, minor: 31, patch: 4, suffix: '' },
    { text: 'v1.30.2-eks-a1b2c3', major: 1, minor: 30, patch: 2, suffix: '-eks-a1b2c3' },
    { text: 'v1.29.8+k3s1', major: 1, minor: 29, patch: 8, suffix: '+k3s1' },
    { text: 'v1.28.15-gke.1020000', major: 1, minor: 28, patch: 15, suffix: '-gke.1020000' },
    { text: '1.27.3', major: 1, minor: 27, patch: 3, suffix: '' },
    { text: ' v1.33.0-rc.1+build.7 ', major: 1, minor: 33, patch: 0, suffix: '-rc.1+build.7' },
  ];
  for (const c of cases) {
    it(`parses ${JSON.stringify(c.text)}`, () => {
      const v = parseKubeVersion(c.text);
      assert.deepEqual(
        { major: v.major, minor: v.minor, patch: v.patch, suffix: v.suffix, raw: v.raw },
        { major: c.major, minor: c.minor, patch: c.patch, suffix: c.suffix, raw: c.text.trim() },
      );
    });
  }

  const garbage = [
    '',
    'latest',
    'v1.31',
    'v1.x.3',
    '1.31.4 ; rm -rf /',
    'v1.31.4-',
    'vv1.2.3',
    '1.2.3.4',
  ];
  for (const text of garbage) {
    it(`rejects ${JSON.stringify(text)} with a usage error that names it`, () => {
      assert.equal(tryParseKubeVersion(text), undefined);
      assert.throws(
        () => parseKubeVersion(text),
        (e) =>
          e instanceof KubemaintError &&
          e.code === 'usage' &&
          e.message.includes(JSON.stringify(text)) &&
          (e.hint ?? '').includes('v1.31.4'),
      );
    });
  }
});

describe('parseVersionInfo (GET /version)', () => {
  const cases = [
    {
      why: 'gitVersion wins and carries the patch',
      info: { major: '1', minor: '32+', gitVersion: 'v1.32.1-eks-5e0fdde' },
      want: 'v1.32.1',
    },
    { why: 'minor "32+" without gitVersion', info: { major: '1', minor: '32+' }, want: 'v1.32.0' },
    {
      why: 'unparsable gitVersion falls back to major/minor',
      info: { major: '1', minor: '30', gitVersion: 'dev' },
      want: 'v1.30.0',
    },
  ];
  for (const c of cases) {
    it(c.why, () => assert.equal(formatKubeVersion(parseVersionInfo(c.info)), c.want));
  }
  it('rejects a document with nothing usable', () => {
    assert.throws(
      () => parseVersionInfo({ major: '', minor: 'x', gitVersion: 'dev' }),
      (e) => e instanceof KubemaintError && e.message.includes('"dev"'),
    );
  });
});

describe('comparing and the strict pattern', () => {
  it('orders by major, minor, patch and ignores vendor suffixes', () => {
    const sorted = ['v1.30.10', 'v1.30.2-eks-x', '1.29.8+k3s1', 'v1.31.0', 'v1.30.2']
      .map(parseKubeVersion)
      .sort(compareKubeVersions)
      .map((v) => v.raw);
    assert.deepEqual(sorted, ['1.29.8+k3s1', 'v1.30.2-eks-x', 'v1.30.2', 'v1.30.10', 'v1.31.0']);
    assert.equal(
      compareKubeVersions(parseKubeVersion('v1.30.2-eks-x'), parseKubeVersion('1.30.2')),
      0,
    );
  });
  const strict = [
    { text: 'v1.31.4', ok: true },
    { text: '1.31.4', ok: true },
    { text: 'v1.31.4-eks-abc', ok: false },
    { text: 'v1.31.4; reboot', ok: false },
    { text: 'v1.31.4\n', ok: false },
    { text: '$(id)', ok: false },
  ];
  for (const c of strict) {
    it(`strict pattern ${c.ok ? 'accepts' : 'rejects'} ${JSON.stringify(c.text)}`, () => {
      assert.equal(isStrictVersion(c.text), c.ok);
      assert.equal(STRICT_VERSION_PATTERN.test(c.text), c.ok);
    });
  }
  it('formatKubeVersion always produces a strict version', () => {
    for (const text of ['v1.30.2-eks-a1b2c3', 'v1.29.8+k3s1', '1.27.3']) {
      assert.ok(isStrictVersion(formatKubeVersion(parseKubeVersion(text))));
    }
  });
});

describe('classifyKubelet', () => {
  const cases = [
    { kubelet: 'v1.31.4', api: ['v1.31.4'], status: 'ok', blocks: false, behind: 0 },
    { kubelet: 'v1.31.2', api: ['v1.31.4'], status: 'behind', blocks: false, behind: 0 },
    { kubelet: 'v1.31.5', api: ['v1.31.4'], status: 'ok', blocks: false, behind: 0 },
    { kubelet: 'v1.30.2-eks-a1b2c3', api: ['v1.31.4'], status: 'behind', blocks: false, behind: 1 },
    { kubelet: 'v1.29.8+k3s1', api: ['v1.31.4'], status: 'behind', blocks: false, behind: 2 },
    {
      kubelet: 'v1.28.15-gke.1020000',
      api: ['v1.31.4'],
      status: 'behind',
      blocks: true,
      behind: 3,
    },
    { kubelet: 'v1.27.3', api: ['v1.31.4'], status: 'too-old', blocks: true, behind: 4 },
    {
      kubelet: 'v1.32.0',
      api: ['v1.31.4'],
      status: 'newer-than-apiserver',
      blocks: false,
      behind: -1,
    },
    // Older than 1.25: only two minors allowed.
    { kubelet: 'v1.24.17', api: ['v1.26.1'], status: 'behind', blocks: true, behind: 2 },
    { kubelet: 'v1.24.17', api: ['v1.27.1'], status: 'too-old', blocks: true, behind: 3 },
    { kubelet: 'v1.25.0', api: ['v1.28.0'], status: 'behind', blocks: true, behind: 3 },
    // HA mid-upgrade: measured against the OLDEST apiserver.
    { kubelet: 'v1.31.1', api: ['v1.32.0', 'v1.31.1'], status: 'ok', blocks: false, behind: 0 },
    {
      kubelet: 'v1.32.0',
      api: ['v1.32.0', 'v1.31.1'],
      status: 'newer-than-apiserver',
      blocks: false,
      behind: -1,
    },
    { kubelet: 'v1.28.3', api: ['v1.32.0', 'v1.31.1'], status: 'behind', blocks: true, behind: 3 },
  ] as const;
  for (const c of cases) {
    it(`${c.kubelet} vs ${c.api.join(',')} is ${c.status}${c.blocks ? ' and blocks' : ''}`, () => {
      const v = classifyKubelet(c.kubelet, c.api);
      assert.equal(v.status, c.status, v.reason);
      assert.equal(v.blocksNextControlPlaneUpgrade, c.blocks);
      assert.equal(v.minorsBehind, c.behind);
      assert.ok(v.reason.includes(formatKubeVersion(v.kubelet)), v.reason);
    });
  }

  it('says why, in words people can act on', () => {
    assert.match(
      classifyKubelet('v1.27.3', ['v1.31.4']).reason,
      /beyond the skew policy \(at most 3\)/,
    );
    assert.match(classifyKubelet('v1.24.1', ['v1.27.1']).reason, /2 for kubelets older than 1\.25/);
    assert.match(classifyKubelet('v1.32.0', ['v1.31.4']).reason, /newer than apiserver v1\.31\.4/);
    assert.match(
      classifyKubelet('v1.28.1', ['v1.31.4']).reason,
      /blocks the next control-plane upgrade .*cannot move to v1\.32/,
    );
  });

  it('uses a configured target below the apiserver', () => {
    assert.equal(classifyKubelet('v1.29.8', ['v1.31.4'], { target: 'v1.29.8' }).status, 'ok');
    assert.equal(classifyKubelet('v1.29.2', ['v1.31.4'], { target: 'v1.29.8' }).status, 'behind');
  });

  it('caps a configured target at the apiserver', () => {
    const v = classifyKubelet('v1.31.4', ['v1.31.4'], { target: 'v1.33.0' });
    assert.equal(v.status, 'ok');
    assert.equal(formatKubeVersion(v.target), 'v1.31.4');
  });

  it('needs at least one apiserver', () => {
    assert.throws(
      () => oldestApiserver([]),
      (e) => e instanceof KubemaintError,
    );
  });
});

describe('apiserverSpreadProblem', () => {
  it('accepts apiservers one minor apart', () => {
    assert.equal(apiserverSpreadProblem(['v1.31.2', 'v1.32.0']), undefined);
  });
  it('reports apiservers two minors apart', () => {
    assert.match(apiserverSpreadProblem(['v1.30.2', 'v1.32.0']) ?? '', /within one minor/);
  });
});

describe('nextKubeletStep', () => {
  const cases = [
    {
      why: 'patch behind: straight to the apiserver patch',
      kubelet: 'v1.31.2',
      api: ['v1.31.4'],
      want: { version: 'v1.31.4', kind: 'patch', final: true, note: PATCH_STEP_NOTE },
    },
    {
      why: 'one minor behind: to the apiserver exactly',
      kubelet: 'v1.30.2-eks-a1b2c3',
      api: ['v1.31.4-eks-ffff'],
      want: { version: 'v1.31.4', kind: 'minor', final: true, note: MINOR_STEP_NOTE },
    },
    {
      why: 'several minors behind: one minor up, highest known patch',
      kubelet: 'v1.28.15',
      api: ['v1.31.4'],
      known: ['v1.29.3', 'v1.29.10-eks-1', 'v1.30.9', 'v1.29.7'],
      want: { version: 'v1.29.10', kind: 'minor', final: false, note: MINOR_STEP_NOTE },
    },
    {
      why: 'several minors behind, no known patch: .0',
      kubelet: 'v1.28.15',
      api: ['v1.31.4'],
      want: { version: 'v1.29.0', kind: 'minor', final: false, note: MINOR_STEP_NOTE },
    },
    {
      why: 'HA mid-upgrade: never past the oldest apiserver',
      kubelet: 'v1.30.1',
      api: ['v1.32.0', 'v1.31.6'],
      want: { version: 'v1.31.6', kind: 'minor', final: true, note: MINOR_STEP_NOTE },
    },
    {
      why: 'configured target past the apiserver is capped',
      kubelet: 'v1.30.1',
      api: ['v1.31.2'],
      target: 'v1.33.0',
      want: { version: 'v1.31.2', kind: 'minor', final: true, note: MINOR_STEP_NOTE },
    },
    {
      why: 'configured target below the apiserver',
      kubelet: 'v1.28.1',
      api: ['v1.31.2'],
      target: 'v1.29.5',
      want: { version: 'v1.29.5', kind: 'minor', final: true, note: MINOR_STEP_NOTE },
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const step = nextKubeletStep({
        kubelet: c.kubelet,
        apiservers: c.api,
        ...(c.target === undefined ? {} : { target: c.target }),
        ...(c.known === undefined ? {} : { known: c.known }),
      });
      assert.ok(step);
      assert.deepEqual(
        { version: step.version, kind: step.kind, final: step.final, note: step.note },
        c.want,
      );
      assert.equal(step.drainRequired, true);
      assert.ok(isStrictVersion(step.version));
      assert.ok(step.to.minor - step.from.minor <= 1, 'at most one minor per step');
    });
  }

  it('the minor note says containers will be recreated', () => {
    assert.match(MINOR_STEP_NOTE, /containers will be recreated \(container spec hash changes\)/);
    assert.match(PATCH_STEP_NOTE, /may survive/);
  });

  const nothing = [
    { why: 'at target', kubelet: 'v1.31.4', api: ['v1.31.4'] },
    { why: 'ahead of target patch', kubelet: 'v1.31.5', api: ['v1.31.4'] },
    { why: 'newer than the apiserver (no downgrades)', kubelet: 'v1.32.0', api: ['v1.31.4'] },
  ];
  for (const c of nothing) {
    it(`no step when ${c.why}`, () => {
      assert.equal(nextKubeletStep({ kubelet: c.kubelet, apiservers: c.api }), undefined);
    });
  }

  it('walks a too-old kubelet to the apiserver one minor at a time', () => {
    let current = 'v1.27.3';
    const path: string[] = [];
    for (let i = 0; i < 10; i++) {
      const step = nextKubeletStep({ kubelet: current, apiservers: ['v1.31.4'] });
      if (!step) break;
      path.push(step.version);
      current = step.version;
    }
    assert.deepEqual(path, ['v1.28.0', 'v1.29.0', 'v1.30.0', 'v1.31.4']);
  });

  it('refuses to cross a major version', () => {
    assert.throws(
      () => nextKubeletStep({ kubelet: 'v1.31.0', apiservers: ['v2.0.0'] }),
      (e) => e instanceof KubemaintError && /majors differ/.test(e.message),
    );
  });
});
