/**
 * What kubemaint looks for and what stops it: `detection` (the reboot-required label and node
 * conditions), `kubelet` (the upgrade target), `blockers` (Prometheus alerts, blocking pods,
 * unhealthy nodes; kured's flags under the same names) and `schedules` (how often the tick and the
 * version-skew scan run).
 */
import { z } from 'zod';
import { LABEL_REBOOT_REQUIRED } from '../core/names.js';
import { formatExpectation, parseExpectation, type Expectation } from '../core/query-gate.js';
import {
  TO_FILE,
  checkedText,
  cronExpression,
  describeValue,
  duration,
  httpUrl,
  isVersion,
  labelKey,
  labelSelector,
  regexpSource,
} from './fields.js';
import { ClusterGateSchema } from './schema-clusters.js';

const CONDITION_TYPE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export const DetectionSchema = z.strictObject({
  rebootLabel: labelKey().default(LABEL_REBOOT_REQUIRED),
  conditionTypes: z
    .array(
      checkedText((text) =>
        CONDITION_TYPE.test(text)
          ? undefined
          : {
              message: `${describeValue(text)} is not a node condition type`,
              hint: 'e.g. RebootRequired',
            },
      ),
    )
    .default(['RebootRequired']),
  nodeSelector: labelSelector().default(''),
});

export const KubeletSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** `apiserver` (the oldest apiserver's version) or a strict version, normalised to `v1.31.4`. */
  target: checkedText((text) =>
    text === 'apiserver' || isVersion(text)
      ? undefined
      : {
          message: `${describeValue(text)} is neither "apiserver" nor a version`,
          hint: 'use apiserver or v1.31.4',
        },
  )
    .transform((text) => (text === 'apiserver' || text.startsWith('v') ? text : `v${text}`))
    .default('apiserver'),
});

/** `3` other nodes, or `10%` of the fleet, may be unhealthy before maintenance waits. */
export type UnhealthyLimit = { count: number } | { percent: number };

const unhealthyLimit = z.union([z.number(), z.string()]).transform((value, ctx): UnhealthyLimit => {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return { count: value };
  const percent = typeof value === 'string' ? /^(\d{1,3})\s*%$/.exec(value.trim())?.[1] : undefined;
  if (percent !== undefined && Number(percent) <= 100) return { percent: Number(percent) };
  ctx.addIssue({
    code: 'custom',
    message: `${describeValue(value)} is neither a whole number of nodes nor a percentage`,
    params: { hint: 'use 0, 2 or "10%"' },
  });
  return z.NEVER;
});

TO_FILE.set(unhealthyLimit, (limit: UnhealthyLimit) =>
  'count' in limit ? limit.count : `${limit.percent}%`,
);

const expectation = z.unknown().transform((value, ctx): Expectation => {
  const parsed = typeof value === 'string' ? parseExpectation(value) : undefined;
  if (parsed) return parsed;
  ctx.addIssue({
    code: 'custom',
    message: `${describeValue(value)} is not an expectation`,
    params: { hint: 'use empty, nonEmpty, below:N or above:N (e.g. below:0.02)' },
  });
  return z.NEVER;
});

TO_FILE.set(expectation, formatExpectation);

/** A Prometheus query gate: the query's answer must look like `expect` (for `for`) to go on. */
const QueryGateSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  query: z.string().trim().min(1),
  expect: expectation,
  for: duration().optional(),
});

export const BlockersSchema = z.strictObject({
  prometheus: z
    .strictObject({
      url: httpUrl(),
      /** kured's gate on `ALERTS`; false keeps only `queries`. */
      alerts: z.boolean().default(true),
      alertFilter: regexpSource().optional(),
      alertFilterMatchOnly: z.boolean().default(false),
      firingOnly: z.boolean().default(false),
      /** Only alerts whose `severity` label is one of these block; empty: every alert. */
      alertSeverities: z.array(z.string().min(1)).default([]),
      queries: z.array(QueryGateSchema).default([]),
    })
    .optional(),
  pods: z
    .array(
      labelSelector().refine((s) => s.trim() !== '', 'an empty selector would match every pod'),
    )
    .default([]),
  // 0: any other NotReady node blocks. Taking a node down while another is already down is how
  // a routine reboot becomes an outage, so waiting is the default.
  maxUnhealthyNodes: unhealthyLimit.default({ count: 0 }),
  /** Another node that went NotReady more than `times` times `within` this span blocks. */
  flapping: z
    .strictObject({
      times: z.number().int().min(0).max(1000),
      within: duration().refine((ms) => ms > 0, 'must be longer than 0'),
    })
    .optional(),
  /** After a node came back, the fleet settles this long before the next node starts. */
  soak: duration().default(0),
  /** Across the clusters of `clusters:`: how many at once, in which order (ADR 0027). */
  clusters: ClusterGateSchema.optional(),
});

export const SchedulesSchema = z.strictObject({
  tick: cronExpression().default('* * * * *'),
  skewScan: cronExpression().default('0 * * * *'),
});
