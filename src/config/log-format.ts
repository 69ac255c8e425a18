/**
 * Which log format a process uses: the `--log-format` flag wins, then `KUBEMAINT_LOG_FORMAT`, then
 * the config's `log.format`, else JSON. A value that is neither is refused with where it came from,
 * before anything starts (exit 2), rather than quietly logging JSON.
 */
import { ENV_LOG_FORMAT } from '../core/names.js';
import { KubemaintError } from '../errors.js';
import { LOG_FORMATS, type LogFormat } from '../log.js';
import type { Env } from './env-secrets.js';

const isLogFormat = (text: string): text is LogFormat =>
  (LOG_FORMATS as readonly string[]).includes(text);

/** A `--log-format` value, checked where the flag is parsed. */
export function logFormatFlag(text: string): LogFormat {
  return checked(text, '--log-format', 'usage');
}

export function logFormatOf(sources: {
  flag?: LogFormat | undefined;
  env: Env;
  config?: { log: { format: LogFormat } } | undefined;
}): LogFormat {
  if (sources.flag) return sources.flag;
  const fromEnv = sources.env[ENV_LOG_FORMAT]?.trim();
  if (fromEnv) return checked(fromEnv, ENV_LOG_FORMAT, 'config_invalid');
  return sources.config?.log.format ?? 'json';
}

function checked(text: string, source: string, code: 'usage' | 'config_invalid'): LogFormat {
  const lower = text.toLowerCase();
  if (isLogFormat(lower)) return lower;
  throw new KubemaintError(
    code,
    `${source} ${JSON.stringify(text.slice(0, 40))} is not a log format`,
    {
      hint: `use ${LOG_FORMATS.join(' or ')} (json lines for a log pipeline, text for people)`,
    },
  );
}
