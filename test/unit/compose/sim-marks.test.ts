import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GRACE_MARKS, REBOOT_MARKS } from '@kubemaint/kubesim';
import {
  ANN_REBOOT_REQUIRED_PACKAGES,
  ANN_REBOOT_REQUIRED_SINCE,
  ANN_SHUTDOWN_GRACE_PERIOD,
  ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL,
  ANN_SHUTDOWN_GRACE_PERIOD_SOURCE,
  LABEL_REBOOT_REQUIRED,
} from '../../../src/core/names.js';

// kubesim seeds fleets as kubemaint's agent marks them, spelling the marks itself (it depends on
// nothing of kubemaint's): if the agent's names change, the demo's nodes would silently stop needing
// reboots. This is the one place the two spellings meet.
describe('the sim marks nodes as the agent does', () => {
  it('uses the label and annotations of core/names', () => {
    assert.deepEqual(REBOOT_MARKS, {
      label: LABEL_REBOOT_REQUIRED,
      since: ANN_REBOOT_REQUIRED_SINCE,
      packages: ANN_REBOOT_REQUIRED_PACKAGES,
    });
  });

  it('uses the grace period annotations of core/names', () => {
    assert.deepEqual(GRACE_MARKS, {
      period: ANN_SHUTDOWN_GRACE_PERIOD,
      critical: ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL,
      source: ANN_SHUTDOWN_GRACE_PERIOD_SOURCE,
    });
  });
});
