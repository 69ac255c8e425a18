/**
 * The console as a Notifier: `serve` and the demo print every event as it happens, so a person
 * watching the terminal sees prompts, progress and results without Slack.
 */
import type { Notifier } from '../../app/control/ports.js';
import { consoleLines } from '../../../templates/console.js';

export function consoleNotifier(
  write: (text: string) => void = (t) => void process.stdout.write(t),
  /** How the commands a prompt suggests are typed: `npx kubemaint` in a checkout, else `kubemaint`. */
  command?: string,
  /** The config lists several clusters: each line names the event's cluster. */
  options: { several?: boolean } = {},
): Notifier {
  return {
    notify(event) {
      write(`${consoleLines(event, command, options).join('\n')}\n`);
      return Promise.resolve();
    },
  };
}
