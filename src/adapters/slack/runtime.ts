/**
 * What every listener shares: the control plane's command deps, the Slack-side settings, the people
 * directory, how slow work continues after the ack, and a per-request queue. Built once per cluster
 * by `createSlackApp`, and gathered in SlackRoutes: a listener first finds the cluster a click or a
 * command is about (routes.ts), then stays thin (parse → use case → answer) on that one's runtime.
 */
import type { CommandDeps } from '../../app/control/commands.js';
import type { Logger } from '../../log.js';
import type { PeopleDirectory } from './people.js';

export interface SlackSettings {
  /** The slash command as registered in the Slack app, e.g. `/maint`. */
  command: string;
  /** Channels the app acts in (`C…`); empty means any channel. */
  allowedChannels: readonly string[];
  /** Display name of the cluster in answers; its name in `clusters:`, which clicks carry. */
  cluster: string;
  /** How long Snooze keeps a prompt quiet. @default 4 h */
  snoozeMs?: number;
}

/** Runs work after the ack: `serve` just runs it; the Lambda entry hands it to an async invocation. */
export type Defer = (work: () => Promise<void>) => void;

export interface SlackRuntime {
  deps: CommandDeps;
  settings: SlackSettings;
  /** One of several clusters the app serves (`clusters:`): answers and refusals name it. */
  several: boolean;
  people: PeopleDirectory;
  scan?: () => Promise<string>;
  defer: Defer;
  /**
   * Runs work right after the ack in this invocation (a modal must open while the click's trigger is
   * valid, 3 s), tracked like deferred work so shutdown and tests can wait for it.
   */
  inline: (work: () => Promise<void>) => Promise<void>;
  log: Logger;
  /** Runs `work` after every earlier work of the same key (a double click is answered in turn). */
  serial: <T>(key: string, work: () => Promise<T>) => Promise<T>;
}

/**
 * Every cluster the app serves, each with its own runtime (deps, channels, approvers), in the
 * config's order; one without `clusters:`. Deferring and logging are the app's, whatever the
 * cluster.
 */
export interface SlackRoutes {
  readonly all: readonly SlackRuntime[];
  /** The config lists clusters: buttons carry the cluster, commands may name it. */
  readonly several: boolean;
  readonly names: readonly string[];
  /** The slash command, one for every cluster. */
  readonly command: string;
  named(cluster: string): SlackRuntime | undefined;
  defer: Defer;
  inline: SlackRuntime['inline'];
  log: Logger;
}

/** A keyed queue: one chain of promises per key, dropped when it drains. */
export function keyedSerial(): SlackRuntime['serial'] {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

export const channelAllowed = (settings: SlackSettings, channel: string | undefined): boolean =>
  settings.allowedChannels.length === 0 ||
  (channel !== undefined && settings.allowedChannels.includes(channel));

/** The allowed channels as Slack links (`<#C0123>, <#C0456>`), for refusals. */
export const channelList = (settings: SlackSettings): string =>
  settings.allowedChannels.map((c) => `<#${c}>`).join(', ');

/**
 * Run at most `limit` works at once, the rest in arrival order. Deferred work parses node lists; if
 * twenty clicks all did at once, the event loop would be too busy to send the next acks in time.
 */
export function limited(limit: number): (work: () => Promise<void>) => void {
  let running = 0;
  const queue: (() => Promise<void>)[] = [];
  const pump = (): void => {
    while (running < limit && queue.length > 0) {
      const work = queue.shift()!;
      running += 1;
      void work().finally(() => {
        running -= 1;
        pump();
      });
    }
  };
  return (work) => {
    queue.push(work);
    pump();
  };
}
