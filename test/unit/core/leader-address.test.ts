import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  relayTarget,
  SLACK_URL_ANNOTATION,
  slackUrlOf,
  tryAgainText,
} from '../../../src/core/leader-address.js';

describe('leader address: where a standby relays a Slack request (ADR 0054)', () => {
  it('gives the pod IP, else a host that names one interface, never a wildcard', () => {
    assert.equal(
      slackUrlOf({ podIp: '10.0.3.7', host: '0.0.0.0', port: 3000 }),
      'http://10.0.3.7:3000/slack/events',
    );
    assert.equal(
      slackUrlOf({ podIp: 'fd00::7', host: '::', port: 3000 }),
      'http://[fd00::7]:3000/slack/events',
    );
    assert.equal(
      slackUrlOf({ podIp: undefined, host: '127.0.0.1', port: 41234 }),
      'http://127.0.0.1:41234/slack/events',
    );
    assert.equal(slackUrlOf({ podIp: '', host: '0.0.0.0', port: 3000 }), undefined);
    assert.equal(slackUrlOf({ podIp: undefined, host: '::', port: 3000 }), undefined);
  });

  it('relays only to a holder that is not this replica and says where it listens', () => {
    const url = 'http://10.0.3.7:3000/slack/events';
    const annotations = { [SLACK_URL_ANNOTATION]: url };
    assert.deepEqual(relayTarget({ holder: 'serve-a_1', annotations }, 'serve-b_2'), {
      kind: 'leader',
      holder: 'serve-a_1',
      url,
    });
    assert.match(whyNot(relayTarget(undefined, 'serve-b_2')), /no leader Lease yet/);
    assert.match(whyNot(relayTarget({ holder: '', annotations }, 'serve-b_2')), /nobody holds/);
    assert.match(
      whyNot(relayTarget({ holder: 'serve-b_2', annotations }, 'serve-b_2')),
      /this replica/,
    );
    assert.match(
      whyNot(relayTarget({ holder: 'serve-a_1' }, 'serve-b_2')),
      /serve-a_1 holds the Lease but gives no Slack receiver/,
    );
    assert.match(
      whyNot(
        relayTarget(
          { holder: 'serve-a_1', annotations: { [SLACK_URL_ANNOTATION]: 'file:///etc' } },
          'b',
        ),
      ),
      /gives no Slack receiver/,
    );
  });

  it('says "try again" naming the cluster', () => {
    assert.equal(
      tryAgainText('prod-eu'),
      'another kubemaint replica is acting for prod-eu; try again in a few seconds',
    );
  });
});

const whyNot = (target: ReturnType<typeof relayTarget>): string =>
  target.kind === 'none' ? target.why : `relays to ${target.url}`;
