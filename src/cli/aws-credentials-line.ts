/**
 * The line `config check` and `status` print when a cluster is EKS: where the AWS credentials come
 * from ("AWS credentials: web identity, role arn:aws:iam::…"), so a person sees which identity the
 * cluster will be asked to trust before a token is refused. Credentials that cannot be found are
 * said with the chain's sources, not thrown: the config itself is fine.
 */
import { credentialsFrom, type Env } from '../adapters/aws/credentials.js';
import type { Config } from '../config/schema.js';
import { KubemaintError } from '../errors.js';

const usesEks = (config: Config): boolean =>
  config.clusters
    ? config.clusters.some((entry) => entry.cluster.type === 'eks')
    : config.cluster.type === 'eks';

/** undefined when no cluster is EKS; `ok` false when no source of the chain had credentials. */
export async function awsCredentialsLine(
  config: Config,
  env: Env,
): Promise<{ ok: boolean; line: string } | undefined> {
  if (!usesEks(config)) return undefined;
  try {
    const found = await credentialsFrom(env)();
    const until = found.expiration
      ? `, expire ${found.expiration.toISOString().slice(0, 16).replace('T', ' ')} UTC`
      : '';
    return { ok: true, line: `AWS credentials: ${found.source}${until}` };
  } catch (error) {
    const hint = error instanceof KubemaintError && error.hint ? ` (${error.hint})` : '';
    return { ok: false, line: `${error instanceof Error ? error.message : String(error)}${hint}` };
  }
}
