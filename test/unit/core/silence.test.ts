/** Silence matchers (core/silence.ts): amtool's syntax, the node named, `<node>` escaped where it is a regex. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatMatchers,
  matchersFor,
  nodeSilenceProblem,
  parseMatchers,
  silencesEndedBy,
} from '../../../src/core/silence.js';

const parsed = (text: string) => {
  const result = parseMatchers(text);
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.matchers;
};

describe('parseMatchers', () => {
  it('reads the four operators, braces and escapes', () => {
    assert.deepEqual(
      parsed('{node="<node>", severity!="info", instance=~"<node>:.*", job!~"x\\"y"}'),
      [
        { name: 'node', value: '<node>', isRegex: false, isEqual: true },
        { name: 'severity', value: 'info', isRegex: false, isEqual: false },
        { name: 'instance', value: '<node>:.*', isRegex: true, isEqual: true },
        { name: 'job', value: 'x"y', isRegex: true, isEqual: false },
      ],
    );
  });
  for (const bad of [
    'node=<node>',
    'node="a",',
    '9node="a"',
    '',
    'node=="a"',
    'node="a" job="b"',
  ]) {
    it(`refuses ${JSON.stringify(bad)}`, () => assert.equal(parseMatchers(bad).ok, false));
  }
});

describe('nodeSilenceProblem', () => {
  it('needs an equality matcher naming the node', () => {
    assert.equal(nodeSilenceProblem(parsed('node="<node>"')), undefined);
    assert.equal(nodeSilenceProblem(parsed('instance=~"<node>:.*", severity!="info"')), undefined);
    assert.match(
      nodeSilenceProblem(parsed('severity="critical"')) ?? '',
      /no matcher names the node/,
    );
    assert.match(nodeSilenceProblem(parsed('node!="<node>"')) ?? '', /every node's alerts/);
  });
});

describe('matchersFor', () => {
  it('substitutes the name, escaped inside regex matchers only', () => {
    const out = matchersFor(
      parsed('node="<node>", instance=~"<node>:.*"'),
      'ip-10-0-0-1.ec2.internal',
    );
    assert.equal(
      formatMatchers(out),
      'node="ip-10-0-0-1.ec2.internal", instance=~"ip-10-0-0-1\\\\.ec2\\\\.internal:.*"',
    );
    assert.equal(new RegExp(`^${out[1]!.value}$`).test('ip-10-0-0-1.ec2.internal:9100'), true);
    assert.equal(new RegExp(`^${out[1]!.value}$`).test('ip-10-0-0-1xec2xinternal:9100'), false);
  });
});

describe('silencesEndedBy', () => {
  const silences = { ids: ['a', 'b'], startsAt: 'x', endsAt: 'y' };
  it('the write that ends the request or proves the node back, once', () => {
    assert.deepEqual(silencesEndedBy({ state: 'verifying' }, { state: 'done', silences }), [
      'a',
      'b',
    ]);
    assert.deepEqual(silencesEndedBy({ state: 'running' }, { state: 'failed', silences }), [
      'a',
      'b',
    ]);
    assert.deepEqual(
      silencesEndedBy(
        { state: 'verifying' },
        { state: 'verifying', proven: { at: 'x', proof: 'p' }, silences },
      ),
      ['a', 'b'],
    );
    assert.deepEqual(
      silencesEndedBy(
        { state: 'verifying', proven: { at: 'x', proof: 'p' } },
        { state: 'done', silences },
      ),
      [],
      'already ended at proof',
    );
    assert.deepEqual(silencesEndedBy({ state: 'running' }, { state: 'verifying', silences }), []);
    assert.deepEqual(silencesEndedBy({ state: 'running' }, { state: 'failed' }), []);
  });
});
