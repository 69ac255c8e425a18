/**
 * The config of a Lambda function, read once per cold start: the SSM parameters serverless.yml names
 * (`<NAME>_SSM_PARAMETER`) are read into the environment first, then `KUBEMAINT_CONFIG_YAML` is validated like
 * a config file, with the Slack secrets taken from that same environment. A bad config throws one
 * error listing every problem, so the first invocation's log says exactly what to fix.
 */
import {
  resolveSsmEnvironment,
  ssmOptionsFromEnv,
  ssmReferences,
  type Env,
} from '../../adapters/aws/ssm-environment.js';
import { ConfigInvalidError } from '../../config/load.js';
import { parseConfig } from '../../config/parse.js';
import type { Config } from '../../config/schema.js';
import { KubemaintError } from '../../errors.js';

export const CONFIG_VARIABLE = 'KUBEMAINT_CONFIG_YAML';

export interface LambdaConfig {
  config: Config;
  /** The environment with the SSM values filled in (Slack secrets for the Bolt app). */
  env: Env;
}

export interface LambdaConfigOptions {
  fetch?: typeof fetch;
  now?: () => Date;
}

export async function loadLambdaConfig(
  env: Env,
  options: LambdaConfigOptions = {},
): Promise<LambdaConfig> {
  const resolved = ssmReferences(env).size > 0 ? await fromSsm(env, options) : env;
  const text = resolved[CONFIG_VARIABLE];
  if (text === undefined || text.trim() === '') {
    throw new KubemaintError('config_invalid', `no config: ${CONFIG_VARIABLE} is not set`, {
      hint:
        `set ${CONFIG_VARIABLE}_SSM_PARAMETER to the SSM parameter holding kubemaint.yaml ` +
        '(serverless.yml does: /kubemaint/<stage>/config), or put the YAML in ' +
        CONFIG_VARIABLE,
    });
  }
  const result = parseConfig(text, CONFIG_VARIABLE, resolved);
  if (!result.ok) throw new ConfigInvalidError(CONFIG_VARIABLE, result.problems);
  // A sim inside a Lambda would be a new, empty cluster on every cold start.
  const sims = result.config.clusters
    ? result.config.clusters.flatMap((e, i) => (e.cluster.type === 'sim' ? [`clusters[${i}]`] : []))
    : result.config.cluster.type === 'sim'
      ? ['cluster']
      : [];
  if (sims.length > 0 && !result.config.clusters) {
    throw new KubemaintError('config_invalid', `${CONFIG_VARIABLE}: cluster.type is sim`, {
      hint: 'in Lambda, use cluster.type: eks (or kubeconfig with a file in the bundle)',
    });
  }
  if (sims.length > 0) {
    throw new KubemaintError(
      'config_invalid',
      `${CONFIG_VARIABLE}: ${sims.join(', ')}: type is sim`,
      {
        hint: 'in Lambda, use type: eks (or kubeconfig with a file in the bundle)',
      },
    );
  }
  return { config: result.config, env: resolved };
}

async function fromSsm(env: Env, options: LambdaConfigOptions): Promise<Env> {
  return resolveSsmEnvironment(env, ssmOptionsFromEnv(env, options));
}
