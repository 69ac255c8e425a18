/**
 * `alertmanager:`: silence the node's alerts while kubemaint maintains it. Where Alertmanager is,
 * how to authenticate (a bearer token or basic auth, read from the environment or a mounted file,
 * never from this file), which silences to make (each a set of matchers naming the node), how far
 * ahead a silence ends, and whether a silence that cannot be made stops the work or only warns.
 */
import { z } from 'zod';
import { nodeSilenceProblem, parseMatchers } from '../core/silence.js';
import { checkedText, describeValue, duration, httpUrl } from './fields.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A secret's source: an environment variable, or a file (a mounted Secret; read on every use). */
const SecretSource = z
  .strictObject({
    env: checkedText((text) =>
      ENV_NAME.test(text)
        ? undefined
        : {
            message: `${describeValue(text)} is not an environment variable name`,
            hint: 'e.g. ALERTMANAGER_TOKEN',
          },
    ).optional(),
    file: z.string().min(1).optional(),
  })
  .refine((source) => (source.env === undefined) !== (source.file === undefined), {
    message: 'give exactly one of env (a variable name) or file (a path)',
    params: {
      hint: 'e.g. { env: ALERTMANAGER_TOKEN } or { file: /var/run/secrets/alertmanager/token }',
    },
  });

export type SecretSourceConfig = z.output<typeof SecretSource>;

const AuthSchema = z
  .strictObject({
    bearerToken: SecretSource.optional(),
    basic: z.strictObject({ username: z.string().min(1), password: SecretSource }).optional(),
  })
  .refine((auth) => !(auth.bearerToken && auth.basic), {
    message: 'give bearerToken or basic, not both',
  });

/** One silence: matchers as amtool writes them, naming the node with `<node>`. */
const silenceMatchers = checkedText((text) => {
  const parsed = parseMatchers(text);
  const problem = parsed.ok ? nodeSilenceProblem(parsed.matchers) : parsed.error;
  return problem === undefined
    ? undefined
    : {
        message: problem,
        hint: 'e.g. node="<node>" or instance=~"<node>:.*" (one silence per entry; all its matchers must match)',
      };
});

export const AlertmanagerSchema = z.strictObject({
  url: httpUrl(),
  auth: AuthSchema.optional(),
  silences: z.array(silenceMatchers).min(1).default(['node="<node>"']),
  /** A silence ends this long after the expected end of the work, and is extended to stay so. */
  margin: duration()
    .refine((ms) => ms >= 60_000, 'must be at least 1m (silences are extended once a tick)')
    .default(15 * 60_000),
  /** `block`: no silence, no start (the reason says why). `warn`: start anyway and say so. */
  onFailure: z.enum(['block', 'warn']).default('block'),
});

export type AlertmanagerConfig = z.output<typeof AlertmanagerSchema>;
