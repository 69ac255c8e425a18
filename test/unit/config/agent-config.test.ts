import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentSettingsData } from '../../../src/compose/agent-settings.js';
import { parseConfig } from '../../../src/config/parse.js';

describe('agent: in kubemaint.yaml', () => {
  it("defaults to kured's sentinel and a 5 minute period", () => {
    const result = parseConfig('', 'k.yaml');
    assert.ok(result.ok);
    assert.deepEqual(agentSettingsData(result.config.agent), {
      'sentinel-file': '/var/run/reboot-required',
      'period-seconds': '300',
      'jitter-seconds': '60',
    });
  });
  const refused: [string, string, string, RegExp][] = [
    [
      'a relative path',
      'sentinelFile: var/run/x',
      'agent.sentinelFile',
      /not an absolute host path/,
    ],
    [
      'a path that climbs',
      'sentinelFile: /var/run/../../etc/shadow',
      'agent.sentinelFile',
      /not an absolute host path/,
    ],
    [
      'a path a shell would split',
      'sentinelFile: "/var/run/reboot required"',
      'agent.sentinelFile',
      /not an absolute host path/,
    ],
    ['a period too short', 'period: 1s', 'agent.period', /1s is outside 10s … 24h/],
    [
      'a jitter longer than the period',
      'period: 1m\n  jitter: 2m',
      'agent.jitter',
      /2m is longer than period \(1m\)/,
    ],
    [
      "a sentinel command (the DaemonSet's alone)",
      'sentinelCommand: "test -f /x"',
      'agent.sentinelCommand',
      /unknown key/,
    ],
  ];
  for (const [name, yaml, path, message] of refused) {
    it(`refuses ${name}`, () => {
      const result = parseConfig(`agent:\n  ${yaml}\n`, 'k.yaml');
      assert.ok(!result.ok);
      const problem = result.problems.find((p) => p.path === path);
      assert.ok(problem, JSON.stringify(result.problems));
      assert.match(problem.message, message);
    });
  }
});
