/**
 * The line `config check` and `status` print when a cluster is EKS: where the AWS credentials come
 * from ("AWS credentials: web identity, role arn:aws:iam::…"), so a person sees which identity the
 * cluster will be asked to trust before a token is refused. Credentials that cannot be found are
 * said with the chain's sources, not thrown: the config itself is fine.
 */
import { credentialsFrom, type Env } from '../adapters/aws/credentials.js';
import type { Config } from '../config/schema.js';
import type { EksConfig } from '../config/schema-cluster.js';
import { KubemaintError } from '../errors.js';

/** The EKS clusters' settings, one per role they assume (none: the chain's own identity). */
function eksIdentities(config: Config): EksConfig[] {
  const clusters = config.clusters
    ? config.clusters.map((entry) => entry.cluster)
    : [config.cluster];
  const byRole = new Map<string | undefined, EksConfig>();
  for (const cluster of clusters)
    if (cluster.type === 'eks' && !byRole.has(cluster.eks.roleArn))
      byRole.set(cluster.eks.roleArn, cluster.eks);
  return [...byRole.values()];
}

/**
 * One line per identity the EKS clusters are reached as (none when no cluster is EKS); `ok` false
 * when the chain had no credentials or the role could not be assumed.
 */
export async function awsCredentialsLines(
  config: Config,
  env: Env,
): Promise<{ ok: boolean; line: string }[]> {
  return Promise.all(eksIdentities(config).map((eks) => lineFor(eks, env)));
}

async function lineFor(eks: EksConfig, env: Env): Promise<{ ok: boolean; line: string }> {
  try {
    const found = await credentialsFrom(env, { roleArn: eks.roleArn, region: eks.region })();
    const until = found.expiration
      ? `, expire ${found.expiration.toISOString().slice(0, 16).replace('T', ' ')} UTC`
      : '';
    return { ok: true, line: `AWS credentials: ${found.source}${until}` };
  } catch (error) {
    const hint = error instanceof KubemaintError && error.hint ? ` (${error.hint})` : '';
    return { ok: false, line: `${error instanceof Error ? error.message : String(error)}${hint}` };
  }
}
