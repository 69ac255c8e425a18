/**
 * The Slack signing secret, and nothing else, for the front door (slack-gate.ts): from
 * SLACK_SIGNING_SECRET when the environment has it (then a forgery costs no AWS call at all), else
 * one GetParameter of SLACK_SIGNING_SECRET_SSM_PARAMETER per container, kept for its life. The
 * config and the bot token are read only for a request that passed the gate.
 */
import {
  getParameter,
  ssmOptionsFromEnv,
  SSM_SUFFIX,
  type Env,
} from '../../adapters/aws/ssm-environment.js';
import { KubemaintError } from '../../errors.js';

const NAME = 'SLACK_SIGNING_SECRET';

export function signingSecretFrom(
  env: Env,
  options: { fetch?: typeof fetch } = {},
): () => Promise<string> {
  let secret: Promise<string> | undefined;
  return () => {
    secret ??= read(env, options).catch((error: unknown) => {
      secret = undefined; // the next request tries again
      throw error;
    });
    return secret;
  };
}

async function read(env: Env, options: { fetch?: typeof fetch }): Promise<string> {
  const direct = env[NAME]?.trim();
  if (direct) return direct;
  const parameter = env[`${NAME}${SSM_SUFFIX}`]?.trim();
  if (!parameter) {
    throw new KubemaintError('config_invalid', `the slack function has no ${NAME}`, {
      hint: `set ${NAME}${SSM_SUFFIX} to the SSM parameter holding it (serverless.yml does)`,
    });
  }
  return getParameter(parameter, ssmOptionsFromEnv(env, options));
}
