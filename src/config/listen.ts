/**
 * Where `serve` listens, from (first wins) its flags, `PORT` for the Slack port, the config's
 * `serve:` and the default. The default host keeps /metrics and the Slack receiver on this machine
 * outside a cluster (a laptop, a VM: a tunnel or a proxy on the machine reaches them), and opens
 * every interface inside one, where the kubelet probes the pod IP and the ingress forwards to it.
 */
import { KubemaintError } from '../errors.js';
import type { Env } from './env-secrets.js';
import type { Config } from './schema.js';

export interface Listen {
  host: string;
  port: number;
}

export interface ListenFlags {
  opsHost?: string;
  opsPort?: number;
  slackHost?: string;
  slackPort?: number;
}

export const LOOPBACK = '127.0.0.1';
export const ALL_INTERFACES = '0.0.0.0';

/** In a cluster: `cluster.type: in-cluster`, or a pod's environment (KUBERNETES_SERVICE_HOST). */
export function defaultListenHost(config: Pick<Config, 'cluster'>, env: Env): string {
  const inCluster =
    config.cluster.type === 'in-cluster' || (env['KUBERNETES_SERVICE_HOST'] ?? '') !== '';
  return inCluster ? ALL_INTERFACES : LOOPBACK;
}

export function serveListen(
  config: Pick<Config, 'cluster' | 'serve'>,
  env: Env,
  flags: ListenFlags = {},
): { ops: Listen; slack: Listen } {
  const host = defaultListenHost(config, env);
  const { ops, slack } = config.serve;
  return {
    ops: { host: flags.opsHost ?? ops.host ?? host, port: flags.opsPort ?? ops.port },
    slack: {
      host: flags.slackHost ?? slack.host ?? host,
      port: flags.slackPort ?? envPort(env['PORT']) ?? slack.port,
    },
  };
}

/** `PORT`, the Slack receiver's port as platforms that assign one set it. */
function envPort(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new KubemaintError('config_invalid', `PORT=${JSON.stringify(text)} is not a port`, {
      hint: 'the port of the Slack HTTP receiver, e.g. PORT=3000 (or unset it for serve.slack.port)',
    });
  }
  return port;
}
