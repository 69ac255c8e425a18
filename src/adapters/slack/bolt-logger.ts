/**
 * Bolt's Logger interface on top of the project's pino logger, so Bolt's own messages land in the
 * same JSON log with the same redaction (tokens never appear in logs).
 */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../log.js';

export function boltLogger(log: Logger): BoltLogger {
  const child = log.child({ component: 'bolt' });
  const line = (parts: unknown[]) =>
    parts
      .map((p) => (typeof p === 'string' ? p : p instanceof Error ? p.message : JSON.stringify(p)))
      .join(' ');
  let level = LogLevel.INFO;
  return {
    debug: (...m: unknown[]) => child.debug(line(m)),
    info: (...m: unknown[]) => child.info(line(m)),
    warn: (...m: unknown[]) => child.warn(line(m)),
    error: (...m: unknown[]) => child.error(line(m)),
    setLevel: (l) => void (level = l),
    getLevel: () => level,
    setName: () => undefined,
  };
}
