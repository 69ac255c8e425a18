/**
 * The marks kubemaint's node agent writes on a node that needs a reboot. The scenarios seed fleets as
 * that agent would have left them, so they spell the marks themselves (kubesim depends on nothing of
 * kubemaint's); kubemaint's test/unit/compose/sim-marks.test.ts fails if the two ever differ.
 */
export const REBOOT_MARKS = {
  label: 'kubemaint.io/reboot-required',
  since: 'kubemaint.io/reboot-required-since',
  packages: 'kubemaint.io/reboot-required-packages',
} as const;
