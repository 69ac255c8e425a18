// Mutation testing of the code that decides who may disrupt which node (issue #35, ADR 0040).
// `npm run mutate` runs it all (one to two hours, one test process); `npm run mutate -- --incremental` only
// the mutants whose code or tests changed since the last run; `npm run mutate -- --mutate src/core/verify.ts`
// one module. Scores and the survivors judged equivalent: RELIABILITY.md, "Mutation testing".
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    'src/core/approval.ts',
    'src/core/approvers.ts',
    'src/core/policy.ts',
    'src/app/executor/slots.ts',
    'src/core/verify.ts',
    'src/core/drain-filters.ts',
    // The dispatch re-check: approvals in status that no MaintenanceApproval backs (invariant 9).
    'src/app/control/backed-approvals.ts',
  ],
  // node's built-in runner prints TAP; each test file is one Stryker "test", run in its own process.
  testRunner: 'tap',
  tap: {
    testFiles: [
      'test/unit/core/approval.test.ts',
      'test/unit/core/approvers.test.ts',
      'test/unit/core/policy.test.ts',
      'test/unit/core/health-gates.test.ts',
      'test/unit/core/verify.test.ts',
      'test/unit/core/drain-filters.test.ts',
      'test/unit/executor/slots.test.ts',
      'test/unit/executor/slot-renewal.test.ts',
      'test/unit/control/backed-approvals.test.ts',
      'test/unit/control/rehearsal.test.ts',
      'test/unit/compose/control-settings.test.ts',
      // Not test/integration/invariants/approval-and-input.test.ts (the dispatch re-check on a
      // cluster) nor test/integration/executor/resilience.test.ts (slots under an executor): they
      // cover every mutant of these modules and take 16 s and 140 s a run, so every mutant the unit
      // tests let through would cost that again. The unit tests above state the same rules.
    ],
    // `-r {{hookFile}}` lets Stryker count which file covers which mutant (per-test coverage).
    nodeArgs: ['--import', 'tsx', '--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'],
  },
  // Only the files that cover a mutant run against it.
  coverageAnalysis: 'perTest',
  // Two cores are shared by everything else on a developer's machine and in CI.
  concurrency: 1,
  // Beyond the time a file took in the initial run (and its process start): a mutant that loops
  // forever (a renewal loop that never sleeps) is a timeout, counted as detected.
  timeoutMS: 10_000,
  // The initial run of every file takes a minute on an idle machine, far longer on a busy one.
  dryRunTimeoutMinutes: 30,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  incrementalFile: 'reports/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
};
