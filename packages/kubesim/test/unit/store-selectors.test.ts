import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fromSelectorObject,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from '../../src/selectors.js';
import { StatusError } from '../../src/types.js';

const labels = { app: 'web', tier: 'front', 'kubemaint.io/reboot-required': 'true', rank: '7' };

describe('label selector syntax', () => {
  const cases = [
    { sel: '', match: true },
    { sel: 'app=web', match: true },
    { sel: 'app==web', match: true },
    { sel: 'app!=web', match: false },
    { sel: 'missing!=x', match: true, why: '!= matches objects lacking the key' },
    { sel: 'app in (db, web)', match: true },
    { sel: 'app notin (web)', match: false },
    { sel: 'missing notin (a)', match: true },
    { sel: 'tier', match: true },
    { sel: '!tier', match: false },
    { sel: '!missing', match: true },
    { sel: 'app=web,tier in (front,back),!missing', match: true },
    { sel: 'app=web,tier=back', match: false },
    { sel: 'kubemaint.io/reboot-required=true', match: true },
    { sel: 'rank>5', match: true },
    { sel: 'rank<5', match: false },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.sel)} → ${c.match}${c.why ? ` (${c.why})` : ''}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(c.sel), labels), c.match);
    });
  }

  const bad = ['app=we b', 'a in ()', 'rank>x', '=x', 'a b c'];
  for (const sel of bad) {
    it(`rejects ${JSON.stringify(sel)} with a 400 that quotes it`, () => {
      assert.throws(
        () => parseLabelSelector(sel),
        (e) => e instanceof StatusError && e.code === 400 && e.message.includes('unable to parse'),
      );
    });
  }
});

describe('structured label selectors', () => {
  it('null selects nothing, {} selects everything', () => {
    assert.equal(fromSelectorObject(undefined), undefined);
    assert.equal(matchesLabels(fromSelectorObject({})!, {}), true);
  });
  it('matchLabels and matchExpressions combine with AND', () => {
    const sel = fromSelectorObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front'] },
        { key: 'gone', operator: 'DoesNotExist' },
      ],
    })!;
    assert.equal(matchesLabels(sel, labels), true);
    assert.equal(matchesLabels(sel, { ...labels, gone: 'x' }), false);
  });
  it('an unknown operator selects nothing', () => {
    assert.equal(
      fromSelectorObject({ matchExpressions: [{ key: 'a', operator: 'Near' }] }),
      undefined,
    );
  });
});

describe('field selectors', () => {
  const fields: Record<string, string> = { 'spec.nodeName': 'n,1', 'status.phase': 'Running' };
  const supported = (f: string) => f in fields;
  const cases = [
    { sel: 'status.phase=Running', match: true },
    { sel: 'status.phase==Running', match: true },
    { sel: 'status.phase!=Running', match: false },
    { sel: 'spec.nodeName=n\\,1,status.phase!=Succeeded', match: true },
  ];
  for (const c of cases) {
    it(`${c.sel} → ${c.match}`, () => {
      assert.equal(
        matchesFields(parseFieldSelector(c.sel, supported), (f) => fields[f]),
        c.match,
      );
    });
  }
  it('names an unsupported field', () => {
    assert.throws(
      () => parseFieldSelector('spec.foo=x', supported),
      (e) => e instanceof StatusError && e.message === 'field label not supported: spec.foo',
    );
  });
  it('rejects an operator-less requirement', () => {
    assert.throws(() => parseFieldSelector('status.phase', supported), /can't understand/);
  });
});
