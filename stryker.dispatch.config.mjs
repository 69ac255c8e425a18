// The dispatch call site of the approval re-check (invariant 9, issue 35): what `dispatchOne` does
// with `backedApprovals`' answer, reached only through a tick on the sim. Kept apart from
// stryker.config.mjs because its one test file takes about 16 s a run; in the main set it would
// cover every mutant of approval.ts and approvers.ts and cost that again for each (ADR 0040).
// `npm run mutate -- stryker.dispatch.config.mjs`; the line range follows the call in dispatch.ts.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['src/app/control/dispatch.ts:156-171'],
  tap: {
    ...base.tap,
    testFiles: ['test/integration/invariants/approval-and-input.test.ts'],
  },
  htmlReporter: { fileName: 'reports/mutation/dispatch.html' },
  jsonReporter: { fileName: 'reports/mutation/dispatch.json' },
  incrementalFile: 'reports/stryker-incremental-dispatch.json',
  // Its one test takes 16 s idle, but 106 s at load 17 and 2 min to start: with the main config's
  // 10 s beyond the initial run, every mutant timed out (counted as detected). A mutant that hangs
  // still ends, two minutes later.
  timeoutMS: 120_000,
};
