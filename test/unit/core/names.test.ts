/**
 * Long node names (issue 15): a label value holds 63 characters, a node name 253. `labelValue` is
 * the one way a node name or request id becomes a label value: unchanged when it fits, else a stable
 * 63-character form the apiserver accepts; its SHA-256 is node:crypto's.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { labelValue } from '../../../templates/label-value.js';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A node name as the apiserver allows it: a DNS subdomain of up to 253 characters. */
const nodeName = fc
  .array(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/), { minLength: 1, maxLength: 8 })
  .map((labels) =>
    labels
      .join('.')
      .slice(0, 253)
      .replace(/[.-]+$/, ''),
  )
  .filter((name) => name !== '');

describe('labelValue', () => {
  it('keeps a name that is already a label value', () => {
    for (const name of [
      'node-1',
      'ip-10-0-1-17.eu-west-1.compute.internal',
      'r-7f3a9c',
      'x'.repeat(63),
    ])
      assert.equal(labelValue(name), name);
  });

  it('turns a 253-character node name into its first 50 characters, `-` and 12 hex of its sha256', () => {
    const name = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(70)}`;
    assert.equal(name.length, 253);
    const value = labelValue(name);
    assert.equal(value, `${'a'.repeat(50)}-${digest(name).slice(0, 12)}`);
    assert.equal(value.length, 63);
    assert.match(value, LABEL_VALUE);
  });

  it('is a valid label value for every node name, stable, and one per name', () => {
    fc.assert(
      fc.property(nodeName, nodeName, (a, b) => {
        const value = labelValue(a);
        assert.ok(value.length <= 63, value);
        assert.match(value, LABEL_VALUE);
        assert.equal(labelValue(a), value);
        if (a !== b) assert.notEqual(labelValue(b), value);
      }),
    );
  });

  it('makes anything else valid too (a name nobody should use, but one the API may hand us)', () => {
    for (const name of ['-node-', '.x', `${'é'.repeat(70)}`, 'a b'])
      assert.match(labelValue(name), LABEL_VALUE, name);
  });
});
