/**
 * A conformance case: one API behaviour kubemaint depends on, asserted the same way on every backend.
 * A behaviour the simulator knowingly does otherwise keeps its real assertion and carries `simDiffers`:
 * the sim run asserts the sim's documented behaviour instead, says so in the test output, and the
 * difference is listed (with the same `id`) in docs/simulator-differences.md.
 */
import type { Backend } from './backend.js';

export interface KnownSimDifference {
  /** Why the sim differs, one line (also in docs/simulator-differences.md). */
  reason: string;
  /** What the sim does instead, asserted. */
  run: (b: Backend) => Promise<void>;
}

export interface ConformanceCase {
  /** Stable and unique: the test name on both backends and the key in the differences table. */
  id: string;
  run: (b: Backend) => Promise<void>;
  simDiffers?: KnownSimDifference;
  /** @default 30000 */
  timeoutMs?: number;
}

export interface CaseGroup {
  /** The behaviour family, the `describe` the cases run under. */
  name: string;
  cases: readonly ConformanceCase[];
}
