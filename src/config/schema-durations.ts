/**
 * `durations:` — how long maintenance is expected to take once kubemaint has seen some (issue 18,
 * ADR 0017): a percentile of the last samples of each action and node pool, recorded in the
 * cluster; `reboot.expectedDuration` / `upgrade.expectedDuration` until there are any, or always
 * with `learn: false`.
 */
import { z } from 'zod';
import { int } from './fields.js';

export const DurationsSchema = z.strictObject({
  learn: z.boolean().default(true),
  // A high percentile: a window that fits the typical node but not the slow one overruns.
  percentile: int(50, 100).default(90),
  samples: int(1, 100).default(20),
});
