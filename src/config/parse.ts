/**
 * `kubemaint.yaml` text → a typed `Config`, or every problem in it: YAML syntax (with line and
 * column), secret-looking values, schema problems (unknown keys, types, formats, cross-field
 * rules) and the Slack secrets in the environment. Pure apart from reading `env` it is given.
 */
import { LineCounter, parseDocument } from 'yaml';
import { readSlackSecrets, type Env } from './env-secrets.js';
import { formatPath, uniqueProblems, type Problem } from './problems.js';
import { ConfigSchema, type Config } from './schema.js';
import { slackProblems } from './schema-people.js';
import { inFileTerms, renameKeys, renamedWarning } from './renamed-keys.js';
import {
  clusterKeyProblems,
  inheritClusterSections,
  withoutInherited,
} from './cluster-sections.js';
import { findSecretsInFile, maskSecrets } from './secrets.js';
import { issuesToProblems } from './zod-problems.js';

export type ParseResult = { ok: true; config: Config } | { ok: false; problems: Problem[] };

/**
 * Parses and validates a config file's text. `sourceName` names the file in messages; `env`
 * supplies the Slack secrets (none by default, so a plain parse needs no environment).
 */
export function parseConfig(text: string, sourceName: string, env: Env = {}): ParseResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error): Problem => {
      // Without prettyErrors the error has no linePos; the counter maps its offset instead.
      const where = lineCounter.linePos(error.pos[0]);
      return {
        path: `line ${where.line}, column ${where.col}`,
        // The parser reports nesting deeper than its stack as a RangeError's message; say what it means.
        message: /call stack/i.test(error.message)
          ? 'nested too deeply; a config file is only a few levels deep'
          : maskSecrets(error.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '')),
        hint: 'YAML syntax: check the indentation and quoting there',
      };
    });
    return { ok: false, problems: uniqueProblems(problems) };
  }
  const plain = toPlain(document);
  if (!plain.ok) return { ok: false, problems: [plain.problem] };
  return validate(plain.value ?? {}, env);
}

/** YAML aliases beyond this many expanded nodes are refused (a "billion laughs" file). */
const MAX_ALIAS_COUNT = 100;

/**
 * The document as plain data, or the one problem that stops it: too many aliases (yaml throws a
 * ReferenceError for those) or an alias to its own ancestor (a cycle no setting can hold). Both
 * used to escape as a bare error, which the CLI printed as "unexpected" with a stack (issue 9).
 */
function toPlain(
  document: ReturnType<typeof parseDocument>,
): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  const aliases = 'YAML aliases (*name): write the values out instead; a config needs no aliases';
  try {
    return { ok: true, value: dropNulls(document.toJS({ maxAliasCount: MAX_ALIAS_COUNT })) };
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message))
      return {
        ok: false,
        problem: {
          path: formatPath([]),
          message: 'refused: its aliases expand to too many values (a "billion laughs" file)',
          hint: aliases,
        },
      };
    if (error instanceof CycleError)
      return {
        ok: false,
        problem: {
          path: formatPath(error.path),
          message: 'refers to itself through an alias',
          hint: aliases,
        },
      };
    throw error;
  }
}

class CycleError extends Error {
  readonly path: PropertyKey[];

  constructor(path: PropertyKey[]) {
    super('an alias refers to its own ancestor');
    this.path = path;
  }
}

/** Validates an already-parsed document (what a YAML or JSON parser returned). */
export function validate(document: unknown, env: Env = {}): ParseResult {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return {
      ok: false,
      problems: [
        {
          path: formatPath([]),
          message: 'expected a map of settings',
          hint: 'start with `cluster:`',
        },
      ],
    };
  }
  const secretProblems = findSecretsInFile(document);
  // A value that looks like a secret is reported once, as a secret, and never quoted again.
  const secretPaths = secretProblems.map((p) => p.path);
  const renaming = renameKeys(document as Record<string, unknown>);
  // An entry of clusters: inherits the top-level sections it does not set (cluster-sections.ts).
  const inherited = inheritClusterSections(renaming.document);
  const parsed = ConfigSchema.safeParse(inherited.document, { reportInput: true });
  const schemaProblems = parsed.success
    ? []
    : withoutInherited(
        inFileTerms(issuesToProblems(parsed.error.issues, ConfigSchema), renaming.applied),
        inherited.inheritedPaths,
      ).filter(
        (p) =>
          !secretPaths.some(
            (s) => p.path === s || p.path.startsWith(`${s}.`) || p.path.startsWith(`${s}[`),
          ),
      );
  const { secrets, problems: envProblems } = readSlackSecrets(env);
  const slackOn = secrets.botToken !== undefined;
  const crossProblems = parsed.success
    ? [
        ...slackProblems(parsed.data.slack, slackOn),
        // A cluster's own slack: (its channel) is held to the same rules, at its own path.
        ...(parsed.data.clusters ?? []).flatMap((entry, i) =>
          entry.overrides.slack
            ? slackProblems({ ...parsed.data.slack, ...entry.overrides.slack }, slackOn).map(
                (p) => ({ ...p, path: `clusters[${i}].${p.path}` }),
              )
            : [],
        ),
      ]
    : [];
  const problems = uniqueProblems([
    ...renaming.problems,
    ...clusterKeyProblems(renaming.document),
    ...secretProblems,
    ...schemaProblems,
    ...envProblems,
    ...crossProblems,
  ]);
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  const deprecated = renaming.applied.map(renamedWarning);
  return {
    ok: true,
    config: { ...parsed.data, secrets, ...(deprecated.length > 0 ? { deprecated } : {}) },
  };
}

/**
 * An empty value (`slot:` with every option commented out) means "the defaults", as people
 * expect when they trim the example file; inside lists an empty entry stays an error.
 */
function dropNulls(
  value: unknown,
  path: PropertyKey[] = [],
  ancestors = new Set<object>(),
): unknown {
  if (value === null || typeof value !== 'object') return value ?? undefined;
  // An anchor aliased inside itself makes yaml return a circular object: refuse it here, or the
  // walk below (and the schema after it) would recurse until the stack overflows.
  if (ancestors.has(value)) throw new CycleError(path);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item: unknown, i) =>
        item === null ? item : dropNulls(item, [...path, i], ancestors),
      );
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== null && item !== undefined)
        out[key] = dropNulls(item, [...path, key], ancestors);
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}
