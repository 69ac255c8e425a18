/**
 * pino logger: JSON to stderr (stdout is for command output such as `--json`), object first,
 * constant messages. Secrets are redacted by path, and tokens are never logged by value anywhere.
 */
import { pino, stdTimeFunctions, type Logger } from 'pino';

export type { Logger };

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

export function createLogger(options: { level?: string; service?: string } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service ?? 'kubemaint' },
      timestamp: stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    pino.destination(2),
  );
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
