/**
 * The console as a Notifier: `serve` and the demo print every event as it happens, so a person
 * watching the terminal sees prompts, progress and results without Slack.
 */
import type { Notifier } from '../../app/control/ports.js';
import { consoleLines } from '../../../templates/console.js';

export function consoleNotifier(
  write: (text: string) => void = (t) => void process.stdout.write(t),
): Notifier {
  return {
    notify(event) {
      write(`${consoleLines(event).join('\n')}\n`);
      return Promise.resolve();
    },
  };
}
