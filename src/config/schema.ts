/**
 * The whole `kubemaint.yaml` schema and the typed `Config` it produces (defaults applied,
 * durations in milliseconds, commands as argv lists). Every object is strict: an unknown key is an
 * error, because a typo (`concurrncy: 3`) that is silently ignored runs maintenance with settings
 * nobody chose. Checks that span sections live here; each section lives in its own file.
 */
import { z } from 'zod';
import type { SlackSecrets } from './env-secrets.js';
import { dnsLabel } from './fields.js';
import { DurationsSchema } from './schema-durations.js';
import { RetentionSchema } from './schema-retention.js';
import { HooksSchema } from './schema-hooks.js';
import { ExecutorSchema } from './schema-executor.js';
import { AlertmanagerSchema } from './schema-alertmanager.js';
import { ClusterSchema } from './schema-cluster.js';
import { ClustersSchema, clusterGateProblems } from './schema-clusters.js';
import {
  BlockersSchema,
  DetectionSchema,
  KubeletSchema,
  SchedulesSchema,
} from './schema-detection.js';
import { PeopleSchema, peopleProblems } from './schema-identities.js';
import { ApprovalSchema, NotifySchema, SlackSchema } from './schema-people.js';
import {
  DrainSchema,
  SlotSchema,
  WaitingTaintSchema,
  NodeLabelsSchema,
  RebootSchema,
  UpgradeSchema,
} from './schema-rollout.js';
import { FreezeSchema, WindowSchema } from './schema-schedule.js';
import { ServeSchema } from './schema-serve.js';
import { LogSchema } from './schema-log.js';
import { AgentSchema } from './schema-agent.js';

export const ConfigSchema = z
  .strictObject({
    cluster: ClusterSchema.prefault({}),
    /** Several clusters from one control plane (ADR 0026); absent: the one of `cluster:`. */
    clusters: ClustersSchema.optional(),
    namespace: dnsLabel('kubemaint').default('kubemaint'),
    detection: DetectionSchema.prefault({}),
    kubelet: KubeletSchema.prefault({}),
    /** Empty: always open (kured's default). */
    windows: z.array(WindowSchema).default([]),
    freezes: z.array(FreezeSchema).default([]),
    /** The slots (Leases) a node holds while maintained; `lock:` is read as this (ADR 0016). */
    slot: SlotSchema.prefault({}),
    drain: DrainSchema.prefault({}),
    reboot: RebootSchema.prefault({}),
    /** Window fit from what maintenance took (reboot/upgrade.expectedDuration until then). */
    durations: DurationsSchema.prefault({}),
    /** Ended requests and their decisions are deleted beyond an age and a count per node. */
    retention: RetentionSchema.prefault({}),
    upgrade: UpgradeSchema.prefault({}),
    executor: ExecutorSchema.prefault({}),
    nodeLabels: NodeLabelsSchema.prefault({}),
    /** People's Jobs before the drain and after the node is back (ADR 0021). */
    hooks: HooksSchema.prefault({}),
    /** A PreferNoSchedule taint while a node's request waits (kured --prefer-no-schedule-taint). */
    waitingTaint: WaitingTaintSchema.prefault({}),
    blockers: BlockersSchema.prefault({}),
    /** Silence the node's alerts while it is maintained; absent: no silences. */
    alertmanager: AlertmanagerSchema.optional(),
    /** Persons and their Slack and Kubernetes identities: the two-person rule counts persons. */
    people: PeopleSchema,
    approval: ApprovalSchema.prefault({}),
    slack: SlackSchema.prefault({}),
    notify: NotifySchema.prefault({}),
    schedules: SchedulesSchema.prefault({}),
    serve: ServeSchema.prefault({}),
    /** The reporter agent's sentinel file and period (ConfigMap kubemaint-agent; its env wins). */
    agent: AgentSchema.prefault({}),
    /** JSON lines or text, for every process and the executor Jobs (`--log-format` wins). */
    log: LogSchema.prefault({}),
  })
  .superRefine(
    (config, ctx) => {
      // kured reads a drain timeout of 0 as "never give up"; the executor is a Job with a deadline,
      // so "never" would really mean "until the Job is killed mid-eviction". Say so instead.
      if (config.drain.timeout === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['drain', 'timeout'],
          message: '0 (no limit) cannot be kept: the executor Job stops at executor.activeDeadline',
          params: {
            hint: 'give a limit shorter than executor.activeDeadline, e.g. 1h; a drain that waits is asked about after drain.stallAfter',
          },
        });
      } else if (
        config.drain.timeout +
          forceAfterOf(config.drain) +
          config.drain.delay +
          config.reboot.delay >=
        config.executor.activeDeadline
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['executor', 'activeDeadline'],
          message:
            'must be longer than drain.timeout (plus drain.forceAfter, drain.delay and reboot.delay), or the Job is killed before it is done',
          params: { hint: 'raise executor.activeDeadline or lower drain.timeout' },
        });
      }
      if (config.drain.forceAfter !== undefined && config.drain.onTimeout !== 'force') {
        ctx.addIssue({
          code: 'custom',
          path: ['drain', 'forceAfter'],
          message: `is the second deadline of drain.onTimeout: force, but onTimeout is ${config.drain.onTimeout}`,
          params: { hint: 'set drain.onTimeout: force, or remove drain.forceAfter' },
        });
      }
    },
    { when: (payload) => noIssuesUnder(payload.issues, ['drain', 'executor', 'reboot']) },
  )
  .superRefine(
    (config, ctx) => {
      // Persons are named in approval's lists and defined under people:, so the check spans both.
      for (const issue of peopleProblems(config.people, config.approval)) {
        ctx.addIssue({
          code: 'custom',
          path: issue.path,
          message: issue.message,
          params: { hint: issue.hint },
        });
      }
    },
    { when: (payload) => noIssuesUnder(payload.issues, ['people', 'approval']) },
  )
  .superRefine(
    (config, ctx) => {
      // An entry's own approval: names persons of the shared people:, so it is checked the same way.
      (config.clusters ?? []).forEach((entry, i) => {
        const approval = entry.overrides.approval;
        if (!approval) return;
        // people:'s own problems are reported once, at people:; here only the lists' names.
        const problems = peopleProblems(config.people, approval);
        for (const issue of problems.filter((p) => p.path[0] === 'approval')) {
          ctx.addIssue({
            code: 'custom',
            path: ['clusters', i, ...issue.path],
            message: issue.message,
            params: { hint: issue.hint },
          });
        }
      });
      for (const issue of clusterGateProblems(config.blockers.clusters, config.clusters)) {
        ctx.addIssue({
          code: 'custom',
          path: issue.path,
          message: issue.message,
          params: { hint: issue.hint },
        });
      }
    },
    { when: (payload) => noIssuesUnder(payload.issues, ['people', 'clusters', 'blockers']) },
  );

/** `drain.onTimeout: force` deletes the remaining pods this long after the timeout. @default 5m */
export const forceAfterOf = (drain: { onTimeout: string; forceAfter?: number | undefined }) =>
  drain.onTimeout === 'force' ? (drain.forceAfter ?? DEFAULT_FORCE_AFTER_MS) : 0;
const DEFAULT_FORCE_AFTER_MS = 5 * 60_000;

/**
 * True when no earlier issue touches these top-level sections, so their values are parsed.
 * Unknown keys do not count: the known keys beside them were still parsed.
 */
export function noIssuesUnder(
  issues: readonly { code?: string; path?: PropertyKey[] | undefined }[],
  sections: readonly string[],
): boolean {
  return !issues.some((issue) => {
    if (issue.code === 'unrecognized_keys') return false;
    const head = issue.path?.[0];
    return head === undefined || sections.includes(String(head));
  });
}

/** The file's settings, parsed. */
export type FileConfig = z.output<typeof ConfigSchema>;

/**
 * Everything kubemaint runs with: the file's settings plus the secrets from the environment, and a
 * line for each renamed key the file still uses (said once when the file is read, renamed-keys.ts).
 */
export type Config = FileConfig & { secrets: SlackSecrets; deprecated?: readonly string[] };

export type { ClusterConfig, EksConfig } from './schema-cluster.js';
export type { ClusterEntry, ClusterGateConfig } from './schema-clusters.js';
export type { WindowSpec, FreezeSpec } from './schema-schedule.js';
export type { UnhealthyLimit } from './schema-detection.js';
export type SlotConfig = Config['slot'];
export type DrainConfig = Config['drain'];
export type RebootConfig = Config['reboot'];
export type UpgradeConfig = Config['upgrade'];
export type ExecutorConfig = Config['executor'];
export type BlockersConfig = Config['blockers'];
export type { AlertmanagerConfig } from './schema-alertmanager.js';
export type ApprovalConfig = Config['approval'];
export type PeopleConfig = Config['people'];
export type SlackConfig = Config['slack'];
export type NotifyConfig = Config['notify'];
export type ServeConfig = Config['serve'];
