/**
 * Maps `alertmanager:` of the config onto the SilencesPort. No section, no port: nothing is
 * silenced. A secret named by an environment variable is read once, here, and its absence is an
 * error at start; one in a file is read on every call, so a rotated Secret is picked up.
 */
import { readFile } from 'node:fs/promises';
import type { SilencesPort } from '../../app/control/ports.js';
import type { AlertmanagerConfig } from '../../config/schema.js';
import type { SecretSourceConfig } from '../../config/schema-alertmanager.js';
import { silenceAuthor } from '../../core/silence.js';
import { KubemaintError } from '../../errors.js';
import { alertmanagerSilences } from './silences.js';

export function alertmanagerFromConfig(
  section: AlertmanagerConfig | undefined,
  options: {
    cluster: string;
    env: Record<string, string | undefined>;
    fetch?: typeof fetch;
    timeoutMs?: number;
  },
): SilencesPort | undefined {
  if (!section) return undefined;
  const authorization = authorizationOf(section.auth, options.env);
  return alertmanagerSilences({
    url: section.url,
    createdBy: silenceAuthor(options.cluster),
    ...(authorization ? { authorization } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

function authorizationOf(
  auth: AlertmanagerConfig['auth'],
  env: Record<string, string | undefined>,
): (() => Promise<string>) | undefined {
  if (auth?.bearerToken) {
    const token = secret(auth.bearerToken, env, 'alertmanager.auth.bearerToken');
    return async () => `Bearer ${await token()}`;
  }
  if (auth?.basic) {
    const { username } = auth.basic;
    const password = secret(auth.basic.password, env, 'alertmanager.auth.basic.password');
    return async () => `Basic ${Buffer.from(`${username}:${await password()}`).toString('base64')}`;
  }
  return undefined;
}

function secret(
  source: SecretSourceConfig,
  env: Record<string, string | undefined>,
  path: string,
): () => Promise<string> {
  if (source.env !== undefined) {
    const value = env[source.env];
    if (!value)
      throw new KubemaintError('config_invalid', `${path}: ${source.env} is not set`, {
        hint: `set ${source.env} in the environment, or read the secret from a file (file: /path)`,
      });
    return () => Promise.resolve(value);
  }
  const file = source.file ?? '';
  return async () => {
    try {
      return (await readFile(file, 'utf8')).trim();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`${path}: could not read ${file}: ${why}`, { cause: error });
    }
  };
}
