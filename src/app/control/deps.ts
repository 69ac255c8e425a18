/**
 * What the control plane's steps share (reconcile, restore, verification, decisions, dispatch): a
 * type of its own, so the steps import it from here and not from each other.
 */
import type { DurationsPort } from './durations.js';
import type { PersistDeps } from './persist.js';
import type { Clock } from './ports.js';
import type { ControlSettings } from './settings.js';

export interface ReconcileDeps extends PersistDeps {
  settings: ControlSettings;
  clock: Pick<Clock, 'now'>;
  /** Where observed maintenance durations are kept; without it the config's expectedDuration. */
  durations?: DurationsPort;
}
