/**
 * A Slack request that reaches a replica not acting for its cluster (ADR 0054): leader election is
 * on and another replica holds that cluster's Lease. Bolt has verified the signature before this
 * runs, so nothing unsigned gets here. The request is relayed to the leader's receiver, whose
 * answer goes back to Slack; when there is no leader to ask (a hand-over), the request came relayed
 * already, it arrived over Socket Mode (nothing to relay), or the relay fails, this replica answers
 * "try again" and writes nothing, so a click is neither lost silently nor applied twice.
 */
import type { AnyMiddlewareArgs, Middleware, RespondFn } from '@slack/bolt';
import { REJECT_REASON } from '../../../templates/slack/ids.js';
import { tryAgainText, type RelayTarget } from '../../core/leader-address.js';
import { ackBodyOf, relayToLeader, type RawSlackRequest } from './relay.js';
import { requestClusters, type RequestKind, type SlackBody } from './request-cluster.js';
import type { SlackRoutes } from './runtime.js';

/** What the gate asks of serve's leadership (compose/serve.ts). */
export interface SlackStandby {
  /** This replica's candidate name, sent with what it relays. */
  identity: string;
  /** This replica acts for the cluster now (always, with leader election off). */
  acting(cluster: string): boolean;
  /** Whom to relay a request about the cluster to, read now. */
  relayTarget(cluster: string): Promise<RelayTarget>;
  /** Tests on a loaded machine only: Slack itself waits 3 s. @default 2500 */
  answerWithinMs?: number;
}

/** The context key the HTTP receiver puts the request as it arrived under (app.ts). */
export const RAW_REQUEST = 'kubemaintRawRequest';

/** Slack waits 3 s for an answer; what is left after reading the Lease goes to the relay. */
const ANSWER_WITHIN_MS = 2_500;

type Ack = (response?: unknown) => Promise<void>;

export function standbyGate(
  routes: Pick<SlackRoutes, 'several' | 'names' | 'command' | 'log'>,
  standby: SlackStandby,
  signingSecret: string,
): Middleware<AnyMiddlewareArgs> {
  const { log } = routes;
  return async (args) => {
    const started = performance.now();
    const raw = args.context[RAW_REQUEST] as RawSlackRequest | undefined;
    const about = requestClusters(args.body as SlackBody, routes);
    const away = about?.clusters.filter((c) => !standby.acting(c)) ?? [];
    if (!about || away.length === 0) {
      if (raw?.relayedBy) log.info({ by: raw.relayedBy }, 'Slack request relayed by a standby');
      return args.next();
    }
    const cluster = away[0]!;
    const ack = (args as unknown as { ack: Ack }).ack;
    const why = raw
      ? raw.relayedBy
        ? `relayed here by ${raw.relayedBy} (never relayed twice)`
        : await relay(raw, cluster, ack)
      : 'Socket Mode: nothing to relay';
    if (why === undefined) {
      log.info(
        { cluster, ms: Math.round(performance.now() - started) },
        'Slack request relayed to the leader',
      );
      return;
    }
    log.warn(
      { cluster, why },
      'Slack request for a cluster another replica acts for: answered "try again"',
    );
    await tryAgain(about.kind, tryAgainText(cluster), args, ack);

    /** Relays and acks with the leader's answer; why it could not, otherwise. */
    async function relay(request: RawSlackRequest, name: string, done: Ack) {
      const target = await standby.relayTarget(name);
      if (target.kind === 'none') return target.why;
      try {
        const answer = await relayToLeader(target.url, request, {
          signingSecret,
          identity: standby.identity,
          timeoutMs: (standby.answerWithinMs ?? ANSWER_WITHIN_MS) - (performance.now() - started),
        });
        await done(ackBodyOf(answer));
        return undefined;
      } catch (error) {
        return `relay to ${target.holder} failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  };
}

/**
 * "Try again" in the form each kind of request takes it: a command's ephemeral reply, a button's
 * through its response_url (the prompt stays, so the click can be repeated), a modal's input error
 * (the modal stays open with what was typed).
 */
async function tryAgain(kind: RequestKind, text: string, args: AnyMiddlewareArgs, ack: Ack) {
  if (kind === 'command') return ack({ response_type: 'ephemeral', text });
  // The one modal kubemaint takes a submission of is the reject modal: its reason is the input.
  if (kind === 'submission')
    return ack({
      response_action: 'errors',
      errors: { [REJECT_REASON.block]: text.slice(0, 150) },
    });
  await ack();
  const respond = (args as { respond?: RespondFn }).respond;
  await respond?.({ response_type: 'ephemeral', replace_original: false, text });
}
