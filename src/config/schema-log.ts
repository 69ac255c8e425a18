/**
 * `log:` — how kubemaint's processes write their logs: JSON lines (pino, for a log pipeline) or text
 * for people (`kubectl logs`, a terminal). The level stays in `KUBEMAINT_LOG_LEVEL`, per process.
 * Which format a process uses: `--log-format`, else `KUBEMAINT_LOG_FORMAT`, else `log.format`
 * (resolved in log-format.ts). The executor Jobs follow `log.format` of the control plane that
 * starts them.
 */
import { z } from 'zod';
import { LOG_FORMATS } from '../log.js';

export const LogSchema = z.strictObject({
  format: z.enum(LOG_FORMATS).default('json'),
});
