/**
 * The campaign the config would run, on the twin (issue 21): the real tick (detection, intake,
 * dispatch, verify) and the real executor (in process, compose/in-process-jobs.ts) on the twin's
 * scaled clock, with every proposal approved as it comes ("if I approve all of them tonight": the
 * auto-approval rule for every node, hand-typed requests included). Nothing is notified: the
 * events stay here, for the report. What the report needs beyond the requests' own history is
 * sampled after every tick: each drain's PDB waits, each request's gates, pods pending.
 */
import { randomBytes } from 'node:crypto';
import type { Sim } from '@kubemaint/kubesim';
import { R } from '@kubemaint/kubesim';
import { parseSelector } from '@kubemaint/label-selector';
import { createKubeClient, loadKubeConfig } from '../../adapters/kube/client.js';
import { controlCluster } from '../../adapters/kube/control-cluster.js';
import { configMapDurations } from '../../adapters/kube/durations.js';
import { decodeRequest, GROUP, REQUESTS } from '../../adapters/kube/request-codec.js';
import { requestsByNode } from '../../adapters/kube/control-cluster.js';
import { runTick, type TickDeps } from '../../app/control/tick.js';
import { AUTO_APPROVE_RULE, type ControlSettings } from '../../app/control/settings.js';
import { windowFacts } from '../../app/control/facts.js';
import type { CampaignSample, NodeTrace } from '../../app/control/rehearsal.js';
import type { MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { Config } from '../../config/schema.js';
import { controlSettingsFromConfig } from '../control-settings.js';
import { settingsFromConfig } from '../executor-settings.js';
import { inProcessJobFor, runJobsInProcess, simExecutorSettings } from '../in-process-jobs.js';
import { forSimHost } from '../sim-host.js';
import type { HeldClock } from './held-clock.js';

const ACTIVE = new Set(['proposed', 'approved', 'running', 'verifying']);
/** Nothing moved this long (twin time) while work is in flight: what is left is stuck. */
const STUCK_AFTER_MS = 90 * 60_000;

export interface CampaignOptions {
  /**
   * The twin's clock, held while each tick runs: a real control plane's tick takes a fraction of a
   * second, but its wall milliseconds here count `scale` times over (a tick of 30 proposals took
   * nine twin minutes at scale 300 and pushed the whole campaign back by them).
   */
  clock: Pick<HeldClock, 'hold' | 'run'>;
  /** The twin's time the run may take at most. */
  horizonMs: number;
  /** Wall time the run may take at most (a safety net for a slow machine). */
  wallLimitMs: number;
}

export interface CampaignRun {
  startedAt: Date;
  endedAt: Date;
  /** Why the run stopped: every request ended, what is left is stuck, or the horizon. */
  ended: 'all-ended' | 'stuck' | 'window-closed' | 'horizon' | 'wall-limit';
  settings: ControlSettings;
  closesAt?: Date;
  requests: MaintenanceRequest[];
  /** Every request object of the twin, oldest first (the timeline's rows). */
  history: MaintenanceRequest[];
  traces: NodeTrace[];
  samples: CampaignSample[];
  events: MaintenanceEvent[];
}

export async function runCampaign(
  sim: Sim,
  config: Config,
  options: CampaignOptions,
): Promise<CampaignRun> {
  const effective = forSimHost(config);
  const everything = parseSelector('');
  if (!everything.ok) throw new Error('the empty selector must parse');
  const executor = simExecutorSettings(settingsFromConfig(effective));
  const settings: ControlSettings = {
    ...controlSettingsFromConfig(effective),
    autoApprove: everything.selector,
    autoApproveManual: true,
    jobFor: inProcessJobFor(executor, effective.namespace),
  };
  settings.approval = { ...settings.approval, autoApproveRules: [AUTO_APPROVE_RULE] };
  const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
  const clock = { now: () => sim.clock.now() };
  const events: MaintenanceEvent[] = [];
  const deps: TickDeps = {
    cluster: controlCluster(client, { namespace: effective.namespace, now: clock.now }),
    notifier: { notify: (event) => Promise.resolve(void events.push(event)) },
    clusterName: settings.cluster,
    settings,
    clock,
    randomBytes: (n) => new Uint8Array(randomBytes(n)),
    ...(effective.durations.learn
      ? { durations: configMapDurations(client, effective.namespace) }
      : {}),
  };
  const jobs = runJobsInProcess(sim, executor, { namespace: effective.namespace });
  const startedAt = clock.now();
  const closesAt = windowCloses(settings, startedAt);
  const traces = new Map<string, NodeTrace>();
  const samples: CampaignSample[] = [];
  const wallDeadline = Date.now() + options.wallLimitMs;
  let lastChange = startedAt.getTime();
  let fingerprint = '';
  let ended: CampaignRun['ended'] | undefined;
  try {
    for (let ticks = 0; ; ticks++) {
      options.clock.hold();
      await runTick(deps).finally(() => options.clock.run());
      const now = clock.now();
      const requests = currentRequests(sim, effective.namespace);
      for (const request of requests) observe(traces, request, now);
      samples.push({ at: now.toISOString(), pendingPods: pendingPods(sim, effective.namespace) });
      const active = requests.filter((r) => ACTIVE.has(r.state));
      const print = requests.map((r) => `${r.id}:${r.state}:${r.drain?.message ?? ''}`).join();
      if (print !== fingerprint) [fingerprint, lastChange] = [print, now.getTime()];
      const inFlight = active.some((r) => r.state === 'running' || r.state === 'verifying');
      const windowOpen = windowFacts(settings.schedule, now, settings.timeZone).open;
      if (ticks > 0 && active.length === 0) ended = 'all-ended';
      else if (inFlight && now.getTime() - lastChange > STUCK_AFTER_MS) ended = 'stuck';
      else if (ticks > 0 && !inFlight && !windowOpen && closesAt && now >= closesAt)
        ended = 'window-closed';
      else if (now.getTime() - startedAt.getTime() > options.horizonMs) ended = 'horizon';
      else if (Date.now() > wallDeadline) ended = 'wall-limit';
      if (ended) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await jobs.stop();
  }
  return {
    startedAt,
    endedAt: clock.now(),
    ended: ended ?? 'horizon',
    settings,
    ...(closesAt ? { closesAt } : {}),
    requests: currentRequests(sim, effective.namespace),
    history: storedRequests(sim, effective.namespace)
      .map((s) => s.request)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
    traces: [...traces.values()],
    samples,
    events,
  };
}

/** When the window open at `at` closes, or the next one to open if none is (undefined: no windows). */
function windowCloses(settings: ControlSettings, at: Date): Date | undefined {
  const facts = windowFacts(settings.schedule, at, settings.timeZone);
  if (facts.open || !facts.nextOpening) return facts.closesAt;
  return windowFacts(settings.schedule, facts.nextOpening, settings.timeZone).closesAt;
}

/** Each node's request as the control plane reads it, straight from the twin's store. */
function currentRequests(sim: Sim, namespace: string): MaintenanceRequest[] {
  return [...requestsByNode(storedRequests(sim, namespace)).values()].map((s) => s.request);
}

const storedRequests = (sim: Sim, namespace: string) =>
  sim.store
    .list(`${REQUESTS}.${GROUP}`, { namespace })
    .map((o) => decodeRequest(o))
    .flatMap((d) => (d.ok ? [d.stored] : []));

/** What the request shows now that its history will not: the pods its drain waits on, its gates. */
function observe(traces: Map<string, NodeTrace>, request: MaintenanceRequest, now: Date): void {
  const trace = traces.get(request.node) ?? { node: request.node, pdbWaits: [], gates: [] };
  traces.set(request.node, trace);
  // The dispatch's PDB preflight holds a request before any cordon: a wait as well, on no pod yet.
  const held = (request.blockedReasons ?? []).flatMap((reason) => {
    const pdb = /PDB (\S+) allows 0/.exec(reason)?.[1];
    return pdb ? [{ pod: '', reason: `PDB ${pdb} allows 0 disruptions` }] : [];
  });
  for (const waiting of [...(request.drain?.waitingOn ?? []), ...held]) {
    const pdb = /PDB (\S+)/.exec(waiting.reason)?.[1];
    if (!pdb) continue;
    const seen = trace.pdbWaits.find((w) => w.pdb === pdb && w.pod === waiting.pod);
    if (seen) seen.lastAt = now.toISOString();
    else
      trace.pdbWaits.push({
        pdb,
        pod: waiting.pod,
        reason: waiting.reason,
        firstAt: now.toISOString(),
        lastAt: now.toISOString(),
      });
  }
  for (const reason of request.blockedReasons ?? [])
    if (!trace.gates.includes(reason)) trace.gates.push(reason);
}

/** Pods waiting for a node (kubemaint's own executor pods aside). */
function pendingPods(sim: Sim, namespace: string): number {
  return sim.store
    .list(R.pods)
    .filter(
      (p) =>
        p.metadata.namespace !== namespace &&
        (p.status as { phase?: string } | undefined)?.phase === 'Pending',
    ).length;
}
