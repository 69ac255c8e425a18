/**
 * Exit codes of `kubemaint` commands (DESIGN §3). Distinct so the control plane can read a Job's
 * outcome from its container's exit code alone, and documented in the README.
 */
export const EXIT = {
  /** The work is done (or there was nothing to do). */
  ok: 0,
  /** Something unexpected: a bug, or an error kubemaint has no name for. */
  unexpected: 1,
  /** Bad flags or a bad config file: nothing was changed. */
  config: 2,
  /** The executor found no free slot; nothing was changed, try again later. */
  noSlot: 3,
  /** The drain could not finish (PDB, timeout, an operator chose to skip). */
  drainBlocked: 4,
  /** The request is gone, ended, or belongs to another node: nothing to do. */
  requestInvalid: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
