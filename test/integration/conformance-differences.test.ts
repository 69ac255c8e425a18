/**
 * docs/simulator-differences.md lists every conformance case the simulator knowingly answers
 * otherwise, and nothing else: a new known difference must be documented, a fixed one removed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { GROUPS } from '../conformance/cases/index.js';

it('docs/simulator-differences.md lists exactly the cases marked as known sim differences', () => {
  // The first table, before any `##` section (other sections may keep tables of their own).
  const table = readFileSync('docs/simulator-differences.md', 'utf8')
    .split('\n## ')[0]!
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('| ') && !line.startsWith('| behaviour') && !line.startsWith('| ---'),
    )
    .map((line) => line.split(' | ')[0]!.slice(2).trim());
  const marked = GROUPS.flatMap((g) => g.cases)
    .filter((c) => c.simDiffers)
    .map((c) => c.id);
  assert.deepEqual(table.sort(), marked.sort());
  const ids = GROUPS.flatMap((g) => g.cases).map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, 'case ids are unique');
});
