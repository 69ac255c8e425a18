/**
 * pino logger: JSON to stderr (stdout is for command output such as `--json`), object first,
 * constant messages. Secrets are redacted by path, and tokens are never logged by value anywhere.
 * `text` rewrites each line for people (log-text.ts); the events and fields are the same.
 */
import { pino, stdTimeFunctions, type Logger } from 'pino';
import { textLine } from './log-text.js';

export type { Logger };

export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** One process, one format: chosen once by the CLI (flag, environment, config), used by every logger. */
let processFormat: LogFormat = 'json';

export function useLogFormat(format: LogFormat): void {
  processFormat = format;
}

const REDACT = [
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.password',
  '*.authorization',
  'headers.authorization',
  'headers["x-slack-signature"]',
];

export function createLogger(
  options: { level?: string; service?: string; format?: LogFormat } = {},
): Logger {
  const stderr = pino.destination(2);
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service ?? 'kubemaint' },
      timestamp: stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    (options.format ?? processFormat) === 'text'
      ? { write: (line: string) => stderr.write(textLine(line)) }
      : stderr,
  );
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
