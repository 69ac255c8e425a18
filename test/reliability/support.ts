/**
 * Shared pieces of the reliability suite: how big a run is (KUBEMAINT_RELIABILITY_SCALE: `small` for
 * CI and `npm test`, `full` for `npm run test:reliability` runs recorded in RELIABILITY.md), the
 * fault mix of issue 9, and a roll driver that ticks like `serve` does (a failed tick is counted and
 * the next one tries again; a failure no injected fault explains is kept for the test to assert)
 * and answers like people would (approve what is proposed, propose again what failed) until every
 * node it was given has had its maintenance done.
 */
import { KubeError } from '../../src/adapters/kube/errors.js';
import type { StoredRequest } from '../../src/adapters/kube/request-codec.js';
import { approveRequest, requestMaintenance } from '../../src/app/control/commands.js';
import { runTick, type TickDeps } from '../../src/app/control/tick.js';
import { LABEL_NODE } from '../../src/core/names.js';
import { labelValue } from '../../templates/label-value.js';
import { isActive, type MaintenanceRequest } from '../../src/core/request.js';
import type { FaultRule } from '@kubemaint/kubesim/api';
import { R } from '@kubemaint/kubesim';
import { nodeNames } from '../support/executor-fleet.js';
import type { TestSim } from '../support/sim.js';
import { nodeRequests, readStored, R_REQUESTS } from '../support/invariants.js';

export const FULL = process.env['KUBEMAINT_RELIABILITY_SCALE'] === 'full';

/** Counts per run size; small keeps each file well under a minute on two busy cores. */
export const COUNTS = FULL
  ? { rollNodes: 30, latencyMs: 200, crashRuns: 100, fuzzRuns: 10_000, configMutations: 2_000 }
  : { rollNodes: 6, latencyMs: 20, crashRuns: 10, fuzzRuns: 1_000, configMutations: 300 };

export const alice = { kind: 'person', id: 'k8s:alice' } as const;
/** Who approves in a roll: alice alone (the checker holds every approval to it). */
export const ROLL_APPROVERS: ReadonlySet<string> = new Set([alice.id]);

/** An error issueFaults injects: a 500 or a 429 that outlived the client's retries. */
export const isInjectedFault = (error: unknown): boolean =>
  error instanceof KubeError && (error.status === 500 || error.status === 429);

/**
 * Issue 9's mix: 10 % 500s, 5 % 429s, added latency (200 ms in a full run; 20 ms in a small one, as
 * every tick and executor call is sequential) and watches dropped after a second.
 */
export function issueFaults(latencyMs = COUNTS.latencyMs): FaultRule[] {
  return [
    { verb: '*', latencyMs },
    { verb: '*', rate: 0.1, error: 500 },
    { verb: '*', rate: 0.05, error: 429, retryAfterSeconds: 1 },
    { verb: 'watch', dropWatchAfterMs: 1_000 },
  ];
}

/**
 * The node's request as the control plane sees it (its active MaintenanceRequest, else its newest;
 * a proposal kubemaint cancelled at birth because another was first does not count), read straight
 * from the sim's store.
 */
export const requestOf = (sim: TestSim, node: string): MaintenanceRequest | undefined => {
  const mine = sim.store
    .list(R_REQUESTS, { labelSelector: `${LABEL_NODE}=${labelValue(node)}` })
    .map(readStored)
    .filter((s): s is StoredRequest => s?.request.node === node);
  return nodeRequests(mine).get(node);
};

/** Removes the scenario's own marks so a test proposes exactly what it rolls. */
export function clearMarks(sim: TestSim): string[] {
  const names = nodeNames(sim);
  for (const name of names)
    sim.store.mutate(R.nodes, undefined, name, (n) => {
      delete n.metadata.labels?.['kubemaint.io/reboot-required'];
    });
  return names;
}

export interface RollFigures {
  ticks: number;
  tickErrors: number;
  commandErrors: number;
  /** Tick and command errors that no injected fault explains: each test asserts there are none. */
  unexpectedErrors: string[];
  /** Requests that ended failed and were proposed again, with their reported failure. */
  failures: string[];
  wallMs: number;
}

export interface RollOptions {
  /** Nodes whose maintenance must end done. */
  nodes: readonly string[];
  /** The deps of each tick loop; two or more race on the same cluster. */
  loops: TickDeps[];
  /** Proposes (again) a node's maintenance; default: a reboot asked by alice. */
  propose?: (deps: TickDeps, node: string) => Promise<unknown>;
  /** Wall-clock limit. */
  timeoutMs: number;
  skewScan?: boolean;
  /** The errors the test injects (faults, kills); any other one is unexpected. @default none */
  injected?: (error: unknown) => boolean;
}

/**
 * Ticks every loop concurrently until each node's request is done. Between ticks, approves what is
 * proposed and proposes again what failed (and was reported: a failed request carries its reason).
 */
export async function rollUntilDone(sim: TestSim, options: RollOptions): Promise<RollFigures> {
  const figures: RollFigures = {
    ticks: 0,
    tickErrors: 0,
    commandErrors: 0,
    unexpectedErrors: [],
    failures: [],
    wallMs: 0,
  };
  const started = Date.now();
  const propose =
    options.propose ??
    ((deps: TickDeps, node: string) =>
      requestMaintenance(deps, { node, action: 'reboot', by: alice }));
  const injected = options.injected ?? (() => false);
  const unexpected = (error: unknown) => {
    if (!injected(error))
      figures.unexpectedErrors.push(
        error instanceof Error ? (error.stack ?? error.message) : String(error),
      );
  };
  const seenFailed = new Set<string>();
  const allDone = () => options.nodes.every((n) => requestOf(sim, n)?.state === 'done');
  const answer = async (deps: TickDeps) => {
    for (const node of options.nodes) {
      const request = requestOf(sim, node);
      try {
        if (!request || (request.state === 'failed' && !seenFailed.has(request.id))) {
          if (request) {
            seenFailed.add(request.id);
            figures.failures.push(`${node}: ${request.failure ?? '(no reason reported)'}`);
          }
          await propose(deps, node);
        } else if (request.state === 'proposed') {
          await approveRequest(deps, request.id, alice);
        } else if (!isActive(request.state) && request.state !== 'done') {
          await propose(deps, node);
        }
      } catch (error) {
        // A command that failed on an injected fault is what a person would simply retry.
        figures.commandErrors++;
        unexpected(error);
      }
    }
  };
  const loop = async (deps: TickDeps) => {
    while (!allDone()) {
      if (Date.now() - started > options.timeoutMs) return;
      figures.ticks++;
      try {
        await runTick(deps, { skewScan: options.skewScan === true });
      } catch (error) {
        figures.tickErrors++;
        unexpected(error);
      }
      await answer(deps);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await Promise.all(options.loops.map(loop));
  figures.wallMs = Date.now() - started;
  return figures;
}

/** One line per figure set, on stdout (the spec reporter shows it), for RELIABILITY.md. */
export function report(scenario: string, figures: object): void {
  console.log(`reliability ${FULL ? 'full' : 'small'} ${scenario}: ${JSON.stringify(figures)}`);
}
