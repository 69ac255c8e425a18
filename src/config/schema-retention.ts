/**
 * `retention:` — how long ended requests and their decisions stay in the cluster (issue 32, ADR
 * 0043). Beyond `maxAge` since they ended, or beyond the newest `keepPerNode` of a node, they are
 * deleted on a skew scan, after a one-line summary is kept (an Event on the node and the
 * `kubemaint-history` ConfigMap, which the status page and `kubemaint history NODE` show).
 */
import { z } from 'zod';
import { duration, int } from './fields.js';

const DAY = 86_400_000;

export const RetentionSchema = z
  .strictObject({
    /** 30 days: a month of history to look back on, as Kubernetes' own audit defaults keep. */
    maxAge: duration().default(30 * DAY),
    /** The newest 20 ended requests of each node, whatever their age. */
    keepPerNode: int(1, 1000).default(20),
  })
  // On the object, not the field: a refined duration is no longer the schema `config
  // print-defaults` knows how to write back (fields.ts TO_FILE), and it came out in ms as seconds.
  .superRefine((retention, ctx) => {
    if (retention.maxAge < DAY)
      ctx.addIssue({
        code: 'custom',
        path: ['maxAge'],
        message: 'must be at least 1d (an ended request is read by people for a while)',
        params: { hint: 'use 30d, 90d or 7d' },
      });
  });

export type RetentionConfig = z.output<typeof RetentionSchema>;
