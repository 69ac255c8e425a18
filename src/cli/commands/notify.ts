/**
 * `kubemaint notify --url URL [--event E] [text]`: send one test message now, so people can check a
 * notification URL (or the URLs and templates of their config) before a maintenance needs it.
 * Prints one line per URL (masked) and exits 1 when any send failed, 2 when a URL is unusable.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { EVENT_KINDS, isEventKind, type MaintenanceEvent } from '../../core/events.js';
import { printable } from '../../core/printable.js';
import { KubemaintError } from '../../errors.js';
import { createLogger } from '../../log.js';
import {
  compileMessageTemplates,
  type MessageTemplateConfig,
} from '../../../templates/notify/messages.js';

export interface NotifyOptions {
  url?: string[];
  event?: string;
  node: string;
  cluster?: string;
  config?: string;
  verbose?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

export function registerNotifyCommand(program: Command): void {
  program
    .command('notify')
    .summary('send a test notification, to check a URL')
    .description(
      'send one test notification to each URL (or to the notify.urls of the config file)\n' +
        'formats and examples: docs/notifications.md',
    )
    .argument(
      '[text]',
      'the message; with --event it is a template for that event ({{node}}, %s …)',
    )
    .option('--url <url>', 'a shoutrrr-style notification URL (repeatable)', collect)
    .option('--event <kind>', `render this event's template: ${EVENT_KINDS.join(', ')}`)
    .option('--node <name>', 'node name the sample event carries', 'node-1')
    .option('--cluster <name>', 'cluster name the sample event carries (default: from the config)')
    .option('--config <file>', 'take URLs and templates from this config when no --url is given')
    .option('--verbose', 'log each try and retry (JSON, on stderr)')
    .action(async (text: string | undefined, options: NotifyOptions) => {
      const code = await runNotify(text, options);
      if (code !== 0) process.exitCode = code;
    });
}

/** What the command does, callable in-process by tests; returns the exit code. */
export async function runNotify(
  text: string | undefined,
  options: NotifyOptions,
  out: Pick<NodeJS.WriteStream, 'write'> = process.stdout,
  err: Pick<NodeJS.WriteStream, 'write'> = process.stderr,
): Promise<number> {
  if (options.event !== undefined && !isEventKind(options.event)) {
    throw new KubemaintError('usage', `--event ${options.event} is not an event`, {
      hint: `use one of ${EVENT_KINDS.join(', ')}`,
    });
  }
  const fromConfig =
    options.url === undefined ? loadConfig({ path: options.config, env: process.env }) : undefined;
  const urls = fromConfig?.notify.urls ?? options.url ?? [];
  if (urls.length === 0) {
    throw new KubemaintError(
      'usage',
      'no notification URL: give --url, or a config with notify.urls',
      {
        hint: 'kubemaint notify --url ntfy://ntfy.sh/my-topic "hello"',
      },
    );
  }
  // The senders (nodemailer among them) load only when a notification is sent.
  const [{ createNotifier }, { parseNotifyUrls }] = await Promise.all([
    import('../../adapters/notify/notifier.js'),
    import('../../adapters/notify/parse.js'),
  ]);
  const targets = parseNotifyUrls(urls);
  const templateConfig: MessageTemplateConfig = {
    templates: {
      ...fromConfig?.notify.templates,
      ...(options.event !== undefined && text !== undefined ? { [options.event]: text } : {}),
    },
  };
  const event = sampleEvent(options, options.cluster ?? fromConfig?.cluster.name ?? 'test');

  const log = createLogger({
    level: options.verbose ? 'debug' : 'silent',
    service: 'kubemaint-notify',
  });
  // A person is waiting at the terminal: fewer, shorter retries than the background notifier's.
  const notifier = createNotifier({
    targets,
    log,
    templates: compileMessageTemplates(templateConfig),
    retry: { attempts: 3, maxRetryAfterMs: 30_000, deadlineMs: 60_000 },
  });
  // An event is rendered per service as a real one is (values escaped for each); a bare text is
  // the person's own, sent as typed.
  const results =
    options.event === undefined
      ? await notifier.send(
          {
            text: text ?? `kubemaint test notification from ${userInfo().username}`,
            title: `[kubemaint] ${event.cluster}: test notification`,
          },
          { event: event.kind },
        )
      : await notifier.sendEvent(event);
  // A service's answer is quoted in the error: shown, never run by the terminal.
  for (const result of results) {
    if (result.ok) out.write(`sent: ${printable(result.target)}\n`);
    else err.write(`failed: ${printable(result.error ?? result.target)}\n`);
  }
  return results.every((r) => r.ok) ? 0 : 1;
}

/** An event with every field set, so any template can be tried. */
function sampleEvent(options: NotifyOptions, cluster: string): MaintenanceEvent {
  const kind = options.event !== undefined && isEventKind(options.event) ? options.event : 'done';
  return {
    kind,
    node: options.node,
    cluster,
    requestId: 'r-test00',
    action: kind === 'upgrading' ? 'upgrade' : 'reboot',
    reason: 'test notification from kubemaint notify',
    approver: `cli:${userInfo().username}`,
    durationMs: 272_000,
    detail: 'this is a test; nothing happened to the node',
    targetVersion: 'v1.31.4',
    at: new Date().toISOString(),
  };
}
