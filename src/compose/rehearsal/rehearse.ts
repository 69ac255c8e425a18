/**
 * `kubemaint rehearse` composed (issue 21): read the real cluster (list calls only), seed a twin,
 * run the campaign the config would run on the twin's clock, and report. The real cluster is only
 * read: its connection is closed before the twin's campaign starts, and every write of the
 * campaign goes to the twin's own apiserver.
 */
import { readClusterSnapshot, kindKey } from '../../adapters/kube/cluster-snapshot.js';
import { createKubeClient } from '../../adapters/kube/client.js';
import { decodeDurationBook } from '../../adapters/kube/durations.js';
import {
  campaignGates,
  cannotEvictOn,
  rehearsalReport,
  type DurationUsed,
  type EvictionFacts,
  type GateFacts,
  type RehearsalReport,
} from '../../app/control/rehearsal.js';
import { clustersToRead } from '../../core/cluster-policy.js';
import { estimateDuration, minutes, type DurationBook } from '../../core/durations.js';
import type { Pod } from '../../core/drain-filters.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { Action } from '../../core/request.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { policyOf } from '../cluster-peers.js';
import { connectCluster } from '../connect.js';
import { settingsFromConfig } from '../executor-settings.js';
import { runCampaign, type CampaignRun } from './campaign.js';
import { startTwin } from './twin.js';

export interface RehearseOptions {
  log: Logger;
  kubeconfigPath?: string;
  /** Where the twin's clock starts: `--at`, else now. */
  at?: Date;
  /** Twin seconds per wall second. @default 300 */
  scale?: number;
  /** Every cluster of `clusters:` (`config` is one of them, as chosen), for `blockers.clusters`. */
  clusterNames?: readonly string[];
}

export interface Rehearsal {
  report: RehearsalReport;
  /** Every request object of the twin, oldest first (the timeline's rows). */
  history: MaintenanceRequest[];
  run: CampaignRun;
}

/** The twin's machine is down for the expected duration less what the twin spends draining and verifying. */
const TWIN_OVERHEAD_MS = 60_000;

export async function rehearse(config: Config, options: RehearseOptions): Promise<Rehearsal> {
  const connection = await connectCluster(config, {
    log: options.log,
    sim: 'attach',
    ...(options.kubeconfigPath ? { kubeconfigPath: options.kubeconfigPath } : {}),
  });
  const snapshot = await (async () => {
    try {
      return await readClusterSnapshot(createKubeClient(connection.kubeConfig), config.namespace);
    } finally {
      await connection.close();
    }
  })();
  const book = decodeDurationBook(snapshot.durations);
  const durations = {
    reboot: durationUsed(book, 'reboot', config),
    upgrade: durationUsed(book, 'upgrade', config),
  };
  const start = options.at ?? new Date();
  const twin = await startTwin(snapshot, {
    namespace: config.namespace,
    start,
    scale: options.scale ?? 300,
    rebootDowntimeMs: Math.max(20_000, durations.reboot.ms - TWIN_OVERHEAD_MS),
  });
  try {
    const run = await runCampaign(twin.sim, config, {
      clock: twin.clock,
      horizonMs: 24 * 3_600_000,
      wallLimitMs: 20 * 60_000,
    });
    const drain = settingsFromConfig(config).drain;
    const facts = evictionFacts(snapshot.objects);
    const cannotEvict = new Map(
      run.requests.map((r) => [
        r.node,
        cannotEvictOn(
          r.node,
          facts,
          {
            force: drain.force,
            deleteEmptyDirData: drain.deleteEmptyDirData,
            ignoreDaemonSets: true,
            podSelector: drain.podSelector,
          },
          start,
        ),
      ]),
    );
    const report = rehearsalReport({
      cluster: run.settings.cluster,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      ended: run.ended,
      ...(run.closesAt ? { closesAt: run.closesAt } : {}),
      durations,
      skipped: [...snapshot.skipped, ...twin.skipped],
      requests: run.requests,
      traces: run.traces,
      samples: run.samples,
      cannotEvict,
      gates: campaignGates({
        pause: pauseOf(snapshot.pause),
        ...(config.blockers.prometheus ? { prometheus: config.blockers.prometheus.url } : {}),
        ...clusterGateFacts(config, options.clusterNames ?? []),
      }),
    });
    return { report, history: run.history, run };
  } finally {
    await twin.close();
  }
}

function durationUsed(book: DurationBook, action: Action, config: Config): DurationUsed {
  // Every pool's samples together: the twin has one machine downtime for the whole fleet.
  const samples = Object.entries(book)
    .filter(([key]) => key.startsWith(`${action}/`))
    .flatMap(([, list]) => list);
  const estimate = estimateDuration(
    { [action]: samples },
    action,
    config.durations,
    config[action].expectedDuration,
  );
  const said =
    estimate.source === 'observed'
      ? `${minutes(estimate.ms, true)} per node: p${config.durations.percentile} of ${estimate.samples} observed ${action}s (kubemaint-durations)`
      : `${minutes(estimate.ms, true)} per node: ${action}.expectedDuration of the config (the cluster has observed none)`;
  return { ms: estimate.ms, source: estimate.source, said };
}

/** The pause switch as `kubemaint pause` writes it (adapters/kube/control-cluster.ts reads it so). */
function pauseOf(data: Record<string, string> | undefined) {
  return {
    paused: data?.['paused'] === 'true',
    ...(data?.['by'] ? { by: data['by'] } : {}),
    ...(data?.['at'] ? { at: data['at'] } : {}),
    ...(data?.['reason'] ? { reason: data['reason'] } : {}),
  };
}

function evictionFacts(
  objects: Awaited<ReturnType<typeof readClusterSnapshot>>['objects'],
): EvictionFacts {
  const pods = (objects.get(kindKey('v1', 'Pod')) ?? []) as unknown as Pod[];
  const pdbs = (objects.get(kindKey('policy/v1', 'PodDisruptionBudget')) ?? []).map((o) => {
    const spec = (o['spec'] ?? {}) as Omit<EvictionFacts['pdbs'][number], 'name' | 'namespace'>;
    return {
      name: o.metadata?.name ?? '',
      namespace: o.metadata?.namespace ?? 'default',
      ...spec,
    };
  });
  return { pods, pdbs };
}

/** Whom `blockers.clusters` makes this cluster wait on (the twin reads no other cluster). */
function clusterGateFacts(config: Config, all: readonly string[]): Pick<GateFacts, 'clusters'> {
  const gate = config.blockers.clusters;
  const self = config.cluster.name;
  if (!gate || all.length === 0 || self === undefined) return {};
  return { clusters: { self, others: clustersToRead(policyOf(gate), self, all) } };
}
