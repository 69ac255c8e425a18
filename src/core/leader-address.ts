/**
 * Where a standby sends a Slack request it must not decide itself (ADR 0054, "A Slack request that
 * reaches a standby"): the leader writes its receiver's address on the election Lease with every
 * renewal, and a standby reads it there. Pure: the Lease is read and written elsewhere.
 */

/** The annotation on the election Lease: the holder's Slack receiver, `http://<pod IP>:<port>/slack/events`. */
export const SLACK_URL_ANNOTATION = 'kubemaint.io/slack-url';

/** The path of serve's HTTP receiver (adapters/slack/app.ts). */
const EVENTS_PATH = '/slack/events';

/** Interfaces that name no one address another replica could reach. */
const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '']);

/**
 * The address this replica's receiver is reached at by another replica, or undefined when there is
 * none to give: the pod IP (the Downward API's POD_IP) wins; without it, the bound host if it names
 * one interface (two serves on one machine, 127.0.0.1); never a wildcard, which names no address.
 */
export function slackUrlOf(bound: {
  podIp: string | undefined;
  host: string;
  port: number;
}): string | undefined {
  const ip = bound.podIp?.trim() || (WILDCARDS.has(bound.host) ? undefined : bound.host);
  if (ip === undefined) return undefined;
  return `http://${ip.includes(':') ? `[${ip}]` : ip}:${bound.port}${EVENTS_PATH}`;
}

/** The Lease as a standby sees it: who holds it and what the holder wrote on it. */
export interface HeldLease {
  /** Empty or undefined while nobody holds it (a hand-over). */
  holder: string | undefined;
  annotations?: Readonly<Record<string, string>>;
}

export type RelayTarget =
  | { kind: 'leader'; holder: string; url: string }
  /** Nobody to relay to: the standby answers "try again" and writes nothing. */
  | { kind: 'none'; why: string };

/**
 * Whom a standby relays to: the holder's receiver, read only while someone holds the Lease and it
 * is not this replica (a Lease it holds but does not act on yet is a hand-over, not a leader to ask).
 */
export function relayTarget(lease: HeldLease | undefined, identity: string): RelayTarget {
  if (!lease) return { kind: 'none', why: 'no leader Lease yet' };
  const holder = lease.holder;
  if (!holder) return { kind: 'none', why: 'nobody holds the leader Lease' };
  if (holder === identity) return { kind: 'none', why: 'this replica is taking the Lease' };
  const url = lease.annotations?.[SLACK_URL_ANNOTATION];
  if (!url || !/^https?:\/\//.test(url))
    return { kind: 'none', why: `${holder} holds the Lease but gives no Slack receiver` };
  return { kind: 'leader', holder, url };
}

/** What a standby answers when it cannot relay: nothing was done, and the click can be repeated. */
export const tryAgainText = (cluster: string): string =>
  `another kubemaint replica is acting for ${cluster}; try again in a few seconds`;
