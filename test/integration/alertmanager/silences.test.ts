/**
 * The Alertmanager adapter against Debian's real Alertmanager on loopback: a silence made with the
 * node's matchers is what `amtool silence query` shows, extending it keeps its id and moves its end,
 * expiring it (twice) ends it, kubemaint lists only its own cluster's silences, and a refusal (bad
 * matchers, wrong credentials behind a proxy) says what Alertmanager answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { alertmanagerSilences } from '../../../src/adapters/alertmanager/silences.js';
import { matchersFor, parseMatchers, silenceAuthor } from '../../../src/core/silence.js';
import { amtool, startAlertmanager, type Peer } from '../../support/monitoring.js';

const template = (text: string) => {
  const parsed = parseMatchers(text);
  assert.ok(parsed.ok);
  return parsed.matchers;
};

describe('Alertmanager silences (real Alertmanager)', () => {
  let am: Peer;
  before(async () => {
    am = await startAlertmanager();
  });
  after(async () => am.close());

  it('creates, shows in amtool, extends in place, lists its own, expires', async () => {
    const port = alertmanagerSilences({ url: am.url, createdBy: silenceAuthor('prod') });
    const other = alertmanagerSilences({ url: am.url, createdBy: silenceAuthor('staging') });
    const matchers = matchersFor(
      template('node="<node>", instance=~"<node>:.*"'),
      'ip-10-0-0-1.ec2',
    );
    const made = await port.create({ matchers, comment: 'kubemaint test', forMs: 10 * 60_000 });
    await other.create({ matchers, comment: 'another cluster', forMs: 10 * 60_000 });

    const shown = amtool(am.url, ['silence', 'query', '-o', 'json', 'node=ip-10-0-0-1.ec2']);
    const listed = JSON.parse(shown) as { id: string; createdBy: string; matchers: unknown[] }[];
    const mine = listed.find((s) => s.id === made.id);
    assert.ok(mine, shown);
    assert.equal(mine.createdBy, 'kubemaint@prod');
    assert.deepEqual(mine.matchers, [
      { name: 'node', value: 'ip-10-0-0-1.ec2', isRegex: false, isEqual: true },
      { name: 'instance', value: 'ip-10-0-0-1\\.ec2:.*', isRegex: true, isEqual: true },
    ]);

    const longer = await port.extend(made.id, 30 * 60_000);
    assert.equal(longer?.id, made.id, 'extended in place');
    assert.ok(Date.parse(longer.endsAt) > Date.parse(made.endsAt));
    assert.deepEqual(
      (await port.listOwn()).map((s) => s.id),
      [made.id],
      "only this cluster's silences",
    );

    await port.expire(made.id);
    await port.expire(made.id);
    assert.deepEqual(await port.listOwn(), []);
    assert.equal(await port.extend(made.id, 60_000), undefined, 'an expired one is not extended');
    const active = amtool(am.url, ['silence', 'query', '-q', 'node=ip-10-0-0-1.ec2']).trim();
    assert.equal(active.split('\n').length, 1, 'the other cluster keeps its silence');
  });

  it('says what Alertmanager answered when it refuses', async () => {
    const port = alertmanagerSilences({ url: am.url, createdBy: 'kubemaint@x' });
    // Every matcher matches the empty string: Alertmanager refuses such a silence.
    await assert.rejects(
      port.create({ matchers: template('node=~".*"'), comment: 'x', forMs: 60_000 }),
      /Alertmanager at http:\/\/127\.0\.0\.1:\d+ refused to silence: HTTP 400/,
    );
    const closed = alertmanagerSilences({ url: 'http://127.0.0.1:1', createdBy: 'x' });
    await assert.rejects(closed.listOwn(), /did not answer GET \/api\/v2\/silences/);
  });
});
