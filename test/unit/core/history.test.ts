import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addHistory, historyLines } from '../../../src/core/history.js';

describe('the history retention keeps', () => {
  it("adds lines to their node's, newest last", () => {
    const data = addHistory({ a: 'one' }, [
      { node: 'a', line: 'two' },
      { node: 'b', line: 'three' },
    ]);
    assert.deepEqual(historyLines(data.a), ['one', 'two']);
    assert.deepEqual(historyLines(data.b), ['three']);
  });

  it('keeps the newest lines of each node', () => {
    const lines = Array.from({ length: 5 }, (_, i) => ({ node: 'a', line: `l${i}` }));
    const data = addHistory({}, lines, { perNode: 2, maxBytes: 10_000 });
    assert.deepEqual(historyLines(data.a), ['l3', 'l4']);
  });

  it('stays under its size, dropping the oldest lines of the longest node first', () => {
    const long = Array.from({ length: 50 }, (_, i) => ({ node: 'busy', line: `b${i}`.padEnd(20) }));
    const data = addHistory({ calm: 'c0' }, long, { perNode: 1000, maxBytes: 500 });
    const size = Object.entries(data).reduce((sum, [k, v]) => sum + k.length + v.length, 0);
    assert.ok(size <= 500, `size ${size}`);
    assert.deepEqual(historyLines(data.calm), ['c0']);
    assert.equal(historyLines(data.busy).at(-1), 'b49'.padEnd(20));
  });
});
