/**
 * The validated config mapped onto the control plane's settings: approvers, proposers and persons as
 * the core checks them (Slack IDs as they are, Kubernetes users and groups as `k8s:<name>`),
 * compiled windows, and `jobFor`, which binds the executor Job template to the config so every Job
 * carries the same executor settings the control plane was started with.
 */
import { AUTO_APPROVE_RULE, type ControlSettings } from '../app/control/settings.js';
import type { Config } from '../config/schema.js';
import { identitiesOf, identityList } from '../config/schema-identities.js';
import { parseSelector, type Selector } from '@kubemaint/label-selector';
import type { QueryGate } from '../core/query-gate.js';
import { parseMatchers, type Matcher } from '../core/silence.js';
import { compileSchedule } from '../core/windows.js';
import { KubemaintError } from '../errors.js';
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { buildExecutorJob } from '../../templates/executor-job.js';
import { buildHookJob } from '../../templates/hook-job.js';
import { HOOK_PHASES } from '../core/hooks.js';
import { agentSettingsData } from './agent-settings.js';
import { settingsFromConfig } from './executor-settings.js';

/**
 * @deprecated The turn-1 CLI identity's group (`approvers.cli: ["*"]`, retired by ADR 0012): no
 * policy lists it any more. Kept only until `src/cli/control-context.ts` stops importing it.
 */
export const CLI_ANYONE = 'cli:*';

/** A request that ended (other than done) keeps its node quiet this long before a new proposal. */
const REPROPOSE_AFTER_MS = 3_600_000;

export function controlSettingsFromConfig(config: Config): ControlSettings {
  const { approval, slot, reboot, upgrade, blockers } = config;
  const schedule = compileSchedule({ windows: config.windows, freezes: config.freezes });
  if (!schedule.ok) {
    // The config check compiles the same schedule, so this only guards a config built in code.
    throw new KubemaintError('config_invalid', `windows: ${JSON.stringify(schedule.errors)}`);
  }
  const autoApprove = approval.autoApprove
    ? selector(approval.autoApprove.nodeSelector)
    : undefined;
  const executor = settingsFromConfig(config);
  const settingsJson = JSON.stringify(executor);
  return {
    cluster: config.cluster.name ?? 'cluster',
    namespace: config.namespace,
    detection: {
      rebootLabel: config.detection.rebootLabel,
      conditionTypes: config.detection.conditionTypes,
      nodeSelector: selector(config.detection.nodeSelector),
      reproposeAfterMs: REPROPOSE_AFTER_MS,
      sinceAnnotation: 'kubemaint.io/reboot-required-since',
      packagesAnnotation: 'kubemaint.io/reboot-required-packages',
    },
    kubelet: {
      enabled: config.kubelet.enabled,
      ...(config.kubelet.target !== 'apiserver' ? { target: config.kubelet.target } : {}),
    },
    approval: {
      ...identityList(approval.approvers, config.people),
      proposers: identityList(approval.proposers, config.people),
      people: identitiesOf(config.people),
      twoPersonRule: approval.twoPerson,
      autoApproveRules: autoApprove ? [AUTO_APPROVE_RULE] : [],
      expiresAfterMs: approval.expiry,
    },
    ...(autoApprove
      ? { autoApprove, autoApproveManual: approval.autoApprove?.manual ?? false }
      : {}),
    lock: {
      concurrency: slot.concurrency,
      ...(slot.poolLabel ? { poolLabel: slot.poolLabel } : {}),
      pools: slot.pools ?? {},
      releaseDelayMs: slot.releaseDelay,
    },
    nodeTimeoutMs: { reboot: reboot.nodeTimeout, upgrade: upgrade.nodeTimeout },
    expectedDurationMs: { reboot: reboot.expectedDuration, upgrade: upgrade.expectedDuration },
    // With durations.learn false, compose wires no store: the config's answer, always.
    durations: { percentile: config.durations.percentile, samples: config.durations.samples },
    drainStallAfterMs: config.drain.stallAfter,
    nodeLabels: config.nodeLabels,
    waitingTaint: config.waitingTaint,
    agentSettings: agentSettingsData(config.agent),
    retention: { maxAgeMs: config.retention.maxAge, keepPerNode: config.retention.keepPerNode },
    drain: {
      force: config.drain.force,
      deleteEmptyDirData: config.drain.deleteEmptyDirData,
      podSelector: config.drain.podSelector,
      skipWaitForDeleteTimeoutSeconds: Math.floor(config.drain.skipWaitForDeleteTimeout / 1_000),
    },
    schedule: schedule.schedule,
    timeZone: config.windows[0]?.timezone ?? 'UTC',
    blockers: {
      podSelectors: blockers.pods,
      maxUnhealthyNodes: blockers.maxUnhealthyNodes,
      queries: (blockers.prometheus?.queries ?? []).map((q): QueryGate => ({
        ...(q.name ? { name: q.name } : {}),
        query: q.query,
        expect: q.expect,
        ...(q.for ? { forMs: q.for } : {}),
      })),
      ...(blockers.flapping
        ? { flapping: { times: blockers.flapping.times, withinMs: blockers.flapping.within } }
        : {}),
      soakMs: blockers.soak,
    },
    ...(config.alertmanager
      ? {
          silences: {
            matchers: config.alertmanager.silences.map(matchers),
            marginMs: config.alertmanager.margin,
            onFailure: config.alertmanager.onFailure,
          },
        }
      : {}),
    ...hookSettings(config),
    jobFor: (node, requestId) =>
      buildExecutorJob({
        node,
        requestId,
        namespace: config.namespace,
        image: config.executor.image,
        serviceAccountName: config.executor.serviceAccount,
        rebootMethod: config.reboot.method,
        activeDeadlineSeconds: Math.ceil(config.executor.activeDeadline / 1000),
        ttlSecondsAfterFinished: Math.ceil(config.executor.ttlAfterFinished / 1000),
        settingsJson,
        ...(config.executor.imagePullPolicy
          ? { imagePullPolicy: config.executor.imagePullPolicy }
          : {}),
        resources: config.executor.resources,
        ...(config.executor.priorityClassName
          ? { priorityClassName: config.executor.priorityClassName }
          : {}),
        logFormat: config.log.format,
      }) as unknown as Record<string, unknown>,
  };
}

/** The schema already parsed them; this only guards a config built in code. */
function matchers(text: string): Matcher[] {
  const parsed = parseMatchers(text);
  if (!parsed.ok)
    throw new KubemaintError('config_invalid', `alertmanager.silences: ${parsed.error}`);
  return parsed.matchers;
}

function selector(text: string): Selector {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new KubemaintError('config_invalid', `bad selector "${text}"`);
  return parsed.selector;
}

/** `hooks:` as the control plane runs them: each with its Job bound to the config (ADR 0021). */
function hookSettings(config: Config): Pick<ControlSettings, 'hooks'> {
  const hooks: NonNullable<ControlSettings['hooks']> = {};
  for (const phase of HOOK_PHASES) {
    const hook = config.hooks[phase];
    if (!hook) continue;
    const template: V1PodTemplateSpec = hook.container
      ? { spec: { containers: [{ name: 'hook', ...hook.container }] } }
      : (hook.template as unknown as V1PodTemplateSpec);
    hooks[phase] = {
      timeoutMs: hook.timeout,
      onFailure: hook.onFailure,
      jobFor: (node, requestId, action) =>
        buildHookJob({
          node,
          requestId,
          action,
          phase,
          namespace: config.namespace,
          template,
          timeoutSeconds: Math.ceil(hook.timeout / 1_000),
          ttlSecondsAfterFinished: Math.ceil(config.executor.ttlAfterFinished / 1_000),
          onNode: hook.onNode,
        }) as unknown as Record<string, unknown>,
    };
  }
  return Object.keys(hooks).length > 0 ? { hooks } : {};
}
