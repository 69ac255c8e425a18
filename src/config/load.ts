/**
 * Finds, reads and validates the config once at start (DESIGN §3): the path from `--config`, else
 * `KUBEMAINT_CONFIG`, else no file — the embedded demo (the sim with its demo fleet). A bad config
 * throws one error listing every problem; nothing falls back to a default silently.
 */
import { readFileSync } from 'node:fs';
import { KubemaintError } from '../errors.js';
import { DEMO_CONFIG_SOURCE, DEMO_CONFIG_TEXT } from './defaults.js';
import type { Env } from './env-secrets.js';
import { parseConfig } from './parse.js';
import { formatProblems, type Problem } from './problems.js';
import type { Config } from './schema.js';

/** A config that failed validation; `problems` holds each one, the message lists them all. */
export class ConfigInvalidError extends KubemaintError {
  readonly problems: readonly Problem[];

  constructor(source: string, problems: readonly Problem[]) {
    super('config_invalid', formatProblems(source, problems), {
      hint: 'every option is explained in docs/configuration.md and kubemaint.example.yaml',
    });
    this.problems = problems;
  }
}

export interface LoadOptions {
  /** The file to read; defaults to `$KUBEMAINT_CONFIG`; neither → the embedded demo config. */
  path?: string | undefined;
  /** The environment: `KUBEMAINT_CONFIG`, `HOME` and the Slack secrets are read from it. */
  env: Env;
  /** Reads a file as UTF-8 text; tests pass their own. @default node:fs readFileSync */
  readFile?: (path: string) => string;
}

/** The file `loadConfig` would read, or undefined for the embedded demo config. */
export function configPath(options: Pick<LoadOptions, 'path' | 'env'>): string | undefined {
  const fromEnv = options.env.KUBEMAINT_CONFIG?.trim();
  return options.path ?? (fromEnv === '' ? undefined : fromEnv);
}

/** @throws ConfigInvalidError (code `config_invalid`, exit 2) listing every problem. */
export function loadConfig(options: LoadOptions): Config {
  const path = configPath(options);
  const source = path ?? DEMO_CONFIG_SOURCE;
  const text = path === undefined ? DEMO_CONFIG_TEXT : readText(path, options.readFile);
  const result = parseConfig(text, source, options.env);
  if (!result.ok) throw new ConfigInvalidError(source, result.problems);
  return expandHome(result.config, options.env);
}

function readText(path: string, readFile = (p: string) => readFileSync(p, 'utf8')): string {
  try {
    return readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : String(code ?? error);
    throw new KubemaintError('config_invalid', `cannot read the config file ${path}: ${why}`, {
      hint: 'check --config or KUBEMAINT_CONFIG; without either, kubemaint runs the embedded demo',
      cause: error,
    });
  }
}

/** `~/.kube/prod` → `$HOME/.kube/prod`, as a shell would have done for the same path on a flag. */
function expandHome(config: Config, env: Env): Config {
  const home = env.HOME;
  if (home === undefined) return config;
  const expand = <C extends Config['cluster']>(cluster: C): C =>
    cluster.type !== 'kubeconfig' || !cluster.kubeconfig.path?.startsWith('~/')
      ? cluster
      : {
          ...cluster,
          kubeconfig: {
            ...cluster.kubeconfig,
            path: `${home.replace(/\/$/, '')}/${cluster.kubeconfig.path.slice(2)}`,
          },
        };
  const cluster = expand(config.cluster);
  const clusters = config.clusters?.map((entry) => ({ ...entry, cluster: expand(entry.cluster) }));
  if (cluster === config.cluster && clusters === undefined) return config;
  return { ...config, cluster, ...(clusters ? { clusters } : {}) };
}
