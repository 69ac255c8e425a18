import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/config/parse.js';

describe('serve.leaderElection: in kubemaint.yaml', () => {
  it("is on by default, with client-go's timings", () => {
    const result = parseConfig('', 'k.yaml');
    assert.ok(result.ok);
    assert.deepEqual(result.config.serve.leaderElection, {
      enabled: true,
      leaseName: 'kubemaint-serve-leader',
      leaseDuration: 15_000,
      renewDeadline: 10_000,
      retryPeriod: 2_000,
    });
  });

  it('takes its own timings and Lease name', () => {
    const yaml =
      'serve:\n  leaderElection:\n    leaseName: kubemaint-a\n    leaseDuration: 60s\n' +
      '    renewDeadline: 40s\n    retryPeriod: 5s\n';
    const result = parseConfig(yaml, 'k.yaml');
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    assert.equal(result.config.serve.leaderElection.leaseDuration, 60_000);
    assert.equal(result.config.serve.leaderElection.leaseName, 'kubemaint-a');
  });

  const refused: [string, string, string, RegExp][] = [
    [
      'a renew deadline as long as the lease',
      'leaseDuration: 10s\n    renewDeadline: 10s',
      'serve.leaderElection.renewDeadline',
      /renewDeadline must be shorter than leaseDuration/,
    ],
    [
      'a retry period too close to the renew deadline',
      'retryPeriod: 9s',
      'serve.leaderElection.renewDeadline',
      /retryPeriod × 1.2 must be shorter than renewDeadline/,
    ],
    [
      'a retry period under a second',
      'retryPeriod: 0s',
      'serve.leaderElection.retryPeriod',
      /at least 1s/,
    ],
    [
      'a timing that is no duration',
      'leaseDuration: soon',
      'serve.leaderElection.leaseDuration',
      /"soon" is not a duration/,
    ],
    [
      'a Lease name that is no Kubernetes name',
      'leaseName: Serve_Leader',
      'serve.leaderElection.leaseName',
      /not a valid name/,
    ],
    ['a misspelt key', 'renewdeadline: 5s', 'serve.leaderElection.renewdeadline', /unknown key/],
  ];
  for (const [name, yaml, path, message] of refused) {
    it(`refuses ${name}, naming the key`, () => {
      const result = parseConfig(`serve:\n  leaderElection:\n    ${yaml}\n`, 'k.yaml');
      assert.ok(!result.ok);
      const problem = result.problems.find((p) => p.path === path);
      assert.ok(problem, JSON.stringify(result.problems));
      assert.match(problem.message, message);
    });
  }
});
