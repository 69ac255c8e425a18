/**
 * AWS credentials from the Lambda environment. Lambda puts the execution role's temporary
 * credentials in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN (and the region in
 * AWS_REGION). The environment is a parameter, so only the composition root touches process.env.
 */
import { KubemaintError } from '../../errors.js';
import type { AwsCredentials } from './sigv4.js';

export type Env = Readonly<Record<string, string | undefined>>;

export function credentialsFromEnv(env: Env): AwsCredentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim() ?? '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim() ?? '';
  const missing = [
    accessKeyId === '' ? 'AWS_ACCESS_KEY_ID' : undefined,
    secretAccessKey === '' ? 'AWS_SECRET_ACCESS_KEY' : undefined,
  ].filter((name) => name !== undefined);
  if (missing.length > 0) {
    throw new KubemaintError(
      'config_invalid',
      `AWS credentials missing: ${missing.join(', ')} not set`,
      {
        hint: 'Lambda sets these from the function role; elsewhere export them (and AWS_SESSION_TOKEN for temporary credentials)',
      },
    );
  }
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return sessionToken
    ? { accessKeyId, secretAccessKey, sessionToken }
    : { accessKeyId, secretAccessKey };
}

/** AWS_REGION (set by Lambda), else AWS_DEFAULT_REGION. */
export function regionFromEnv(env: Env): string {
  const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim();
  if (!region) {
    throw new KubemaintError('config_invalid', 'AWS region missing: AWS_REGION is not set', {
      hint: 'Lambda sets AWS_REGION; elsewhere export AWS_REGION=eu-west-1 (or your region)',
    });
  }
  return region;
}
