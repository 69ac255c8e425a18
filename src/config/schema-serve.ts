/**
 * `serve:` — where `kubemaint serve` listens: the ops endpoint (/healthz, /readyz, /metrics, and
 * /status when the status page is on) and the Slack HTTP receiver (/slack/events). A host left
 * unset is decided at start (config/listen.ts): this machine only outside a cluster, every
 * interface inside one.
 */
import { z } from 'zod';
import { int, listenHost } from './fields.js';

const listen = (port: number) =>
  z.strictObject({
    /** Unset: 127.0.0.1, or 0.0.0.0 in a cluster (config/listen.ts). */
    host: listenHost().optional(),
    port: int(0, 65535).default(port),
  });

export const ServeSchema = z.strictObject({
  ops: listen(9090).prefault({}),
  slack: listen(3000).prefault({}),
  /**
   * The read-only status page at `/status` on the ops port. Unset: on with the embedded sim (the
   * demo), off otherwise (compose/status-page.ts).
   */
  statusPage: z.boolean().optional(),
});
