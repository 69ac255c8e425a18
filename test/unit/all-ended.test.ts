import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allEnded } from '../../src/all-ended.js';

const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('allEnded', () => {
  it('answers every value, in order, values that are no promise included', async () => {
    assert.deepEqual(await allEnded([after(20, 'a'), 1, undefined, after(5, true)]), [
      'a',
      1,
      undefined,
      true,
    ]);
  });

  it('throws the first failure only once every other one has ended', async () => {
    let slowEnded = false;
    const slow = after(100, 'slow').then((v) => ((slowEnded = true), v));
    await assert.rejects(
      allEnded([slow, Promise.reject(new Error('first')), Promise.reject(new Error('second'))]),
      (error: Error) => {
        assert.equal(error.message, 'first');
        assert.equal(slowEnded, true, 'the slow one had ended');
        return true;
      },
    );
  });
});
