/**
 * `serve` says on its console when the pause switch turns: `kubemaint pause` and `resume` write a
 * ConfigMap from another process, and without this a person watching serve would not see why nothing
 * starts (or why work started again). The watch on the switch calls `check` (watch-trigger.ts).
 */
import type { ClusterPort } from '../app/control/ports.js';
import type { Logger } from '../log.js';
import { pauseLine } from '../../templates/console.js';

export interface PauseEcho {
  /** Read the switch and print a line if it turned since the last read. Never throws. */
  check(): Promise<void>;
}

export function pauseEcho(
  cluster: Pick<ClusterPort, 'readPause'>,
  out: (text: string) => void,
  log: Logger,
): PauseEcho {
  // Unknown until the first read; a serve that starts paused says so once.
  let paused: boolean | undefined;
  return {
    async check() {
      try {
        const state = await cluster.readPause();
        const turned = paused === undefined ? state.paused : state.paused !== paused;
        paused = state.paused;
        if (turned) out(`${pauseLine(state)}\n`);
      } catch (error) {
        log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'pause read failed',
        );
      }
    },
  };
}
