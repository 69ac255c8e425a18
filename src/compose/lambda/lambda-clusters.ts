/**
 * The tick Lambda with several clusters (`clusters:`, issue 22): every cluster's control plane
 * opened once per cold start (compose/clusters.ts), each with its own Slack channel and EMF lines
 * (their `cluster` dimension says whose), ticked together by tick-handler.ts. The Slack function
 * opens them the same way, and serves every cluster from its one app (slack-app.ts).
 */
import type { Env } from '../../adapters/aws/ssm-environment.js';
import { emfNotifier } from '../../adapters/metrics/emf-notifier.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { openClusters, type ClusterRuntime } from '../clusters.js';
import { lateSlackNotifier, slackNotifierFor } from '../slack.js';
import type { TickControl } from './tick-handler.js';

export async function openLambdaClusters(
  config: Config,
  env: Env,
  log: Logger,
): Promise<TickControl & { runtimes: readonly ClusterRuntime[]; close(): Promise<void> }> {
  const slack = new Map<string, ReturnType<typeof lateSlackNotifier>>();
  const clusters = await openClusters(config, {
    log,
    notifiersFor: (one) => {
      const late = lateSlackNotifier();
      slack.set(one.cluster.name ?? '', late);
      const metrics = emfNotifier({
        write: (line) => void process.stdout.write(`${line}\n`),
        now: () => new Date(),
      });
      return [late.notifier, metrics];
    },
  });
  const notifiers = clusters.runtimes.map((runtime) => {
    const notifier = slackNotifierFor(runtime.config, runtime.deps, {
      log,
      slackApiUrl: env.SLACK_API_URL,
      several: clusters.several,
    });
    if (notifier) slack.get(runtime.name)?.attach(notifier);
    return notifier;
  });
  const first = clusters.runtimes[0]!;
  return {
    deps: first.deps,
    clusters: clusters.runtimes.map((r) => ({ name: r.name, deps: r.deps })),
    runtimes: clusters.runtimes,
    flush: async (timeoutMs) => {
      await Promise.all([
        clusters.flush(timeoutMs),
        ...notifiers.map((n) => n?.flush(timeoutMs) ?? Promise.resolve()),
      ]);
    },
    close: async () => {
      await Promise.all(notifiers.map((n) => n?.flush(2_000) ?? Promise.resolve()));
      await clusters.close();
    },
  };
}
