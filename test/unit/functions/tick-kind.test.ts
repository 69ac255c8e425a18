import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tickKind } from '../../../src/compose/lambda/tick-handler.js';
import { KubemaintError } from '../../../src/errors.js';

describe('tickKind', () => {
  const scheduled = {
    version: '0',
    id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: '2026-11-22T03:00:00Z',
    region: 'us-east-1',
    resources: [
      'arn:aws:events:us-east-1:123456789012:rule/kubemaint-prod-TickEventsRuleSchedule1',
    ],
    detail: {},
  };
  const cases = [
    { name: "EventBridge's own scheduled event", event: scheduled, kind: 'tick' },
    { name: 'the skew-scan rule input', event: { kind: 'skew-scan' }, kind: 'skew-scan' },
    { name: 'an explicit tick', event: { kind: 'tick' }, kind: 'tick' },
    { name: 'no event at all (a manual test invoke)', event: undefined, kind: 'tick' },
    { name: 'an empty object', event: {}, kind: 'tick' },
  ] as const;
  for (const c of cases) {
    it(`${c.name} → ${c.kind}`, () => assert.equal(tickKind(c.event), c.kind));
  }

  for (const kind of ['skewscan', 'SKEW-SCAN', 42, null]) {
    it(`refuses kind ${JSON.stringify(kind)}, naming the kinds it knows`, () => {
      assert.throws(
        () => tickKind({ kind }),
        (error) =>
          error instanceof KubemaintError &&
          error.code === 'usage' &&
          error.message.includes(JSON.stringify(kind)) &&
          /tick, skew-scan/.test(error.hint ?? ''),
      );
    });
  }
});
