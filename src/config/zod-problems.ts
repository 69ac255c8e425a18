/**
 * Turns zod's issues into problems people can act on: the path in the file, what is wrong in
 * words (not "Invalid input"), and a hint — for an unknown key, the allowed key it most likely
 * meant. Values are only ever quoted through `describeValue`, which masks secret-looking text.
 */
import type { z } from 'zod';
import { describeValue } from './fields.js';
import { formatPath, type Problem } from './problems.js';
import { secretKeyHint } from './secrets.js';
import { suggestionHint } from './suggest.js';

type Issue = z.core.$ZodIssue;

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a map of keys',
  array: 'a list',
};

const WRAPPERS = new Set([
  'optional',
  'default',
  'prefault',
  'nullable',
  'readonly',
  'catch',
  'nonoptional',
]);

interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def;

/** Peels defaults, optionals and pipes off a schema, down to the object/array/record inside. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    const next = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
    if (next === undefined) return current;
    current = next;
  }
}

/** The keys an object at `path` allows (empty when the path does not lead to an object). */
export function keysAt(root: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.core.$ZodType | undefined = unwrap(root);
  for (const segment of path) {
    if (current === undefined) return [];
    const def = defOf(current);
    const next: z.core.$ZodType | undefined =
      def.type === 'object'
        ? def.shape?.[String(segment)]
        : def.type === 'array'
          ? def.element
          : def.type === 'record'
            ? def.valueType
            : undefined;
    current = next === undefined ? undefined : unwrap(next);
  }
  const shape = current === undefined ? undefined : defOf(current).shape;
  return shape === undefined ? [] : Object.keys(shape);
}

export function issuesToProblems(issues: readonly Issue[], root: z.core.$ZodType): Problem[] {
  return issues.flatMap((issue) => issueToProblems(issue, root, []));
}

function issueToProblems(issue: Issue, root: z.core.$ZodType, base: PropertyKey[]): Problem[] {
  const path = [...base, ...issue.path];
  const at = formatPath(path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const hint = secretKeyHint(key) ?? suggestionHint(key, keysAt(root, path));
        return {
          path: formatPath([...path, key]),
          message: 'unknown key',
          ...(hint ? { hint } : {}),
        };
      });
    case 'invalid_type':
      return [invalidType(at, issue.expected, issue.input)];
    case 'too_small':
      return [{ path: at, message: tooSmall(issue.origin, Number(issue.minimum), issue.input) }];
    case 'too_big':
      return [{ path: at, message: tooBig(issue.origin, Number(issue.maximum), issue.input) }];
    case 'invalid_value': {
      const allowed = issue.values.map(String);
      const hint = suggestionHint(String(issue.input), allowed);
      const message = `${describeValue(issue.input)} is not one of ${allowed.join(', ')}`;
      return [{ path: at, message, ...(hint?.startsWith('did') ? { hint } : {}) }];
    }
    case 'invalid_union':
      return invalidUnion(issue, root, path);
    case 'custom': {
      const hint: unknown = issue.params?.hint;
      return [
        { path: at, message: issue.message, ...(typeof hint === 'string' && hint ? { hint } : {}) },
      ];
    }
    case 'invalid_format':
    case 'invalid_key':
    case 'invalid_element':
    case 'not_multiple_of':
      // Not produced by this schema's own checks; zod's wording is the best there is.
      return [{ path: at, message: issue.message }];
  }
}

function invalidType(path: string, expected: string, input: unknown): Problem {
  const want = TYPE_NAMES[expected] ?? expected;
  if (input === undefined) return { path, message: 'is required' };
  const problem = { path, message: `expected ${want}, got ${describeValue(input)}` };
  if (typeof input !== 'string') return problem;
  if ((expected === 'number' || expected === 'int') && /^-?\d+(\.\d+)?$/.test(input.trim())) {
    return { ...problem, hint: `write ${input.trim()} without quotes` };
  }
  if (expected === 'boolean') return { ...problem, hint: 'write true or false, without quotes' };
  return problem;
}

function tooSmall(origin: string, minimum: number, input: unknown): string {
  if (origin === 'string') return 'must not be empty';
  if (origin === 'array') return `needs at least ${minimum} ${minimum === 1 ? 'entry' : 'entries'}`;
  return `must be at least ${minimum}, got ${describeValue(input)}`;
}

function tooBig(origin: string, maximum: number, input: unknown): string {
  if (origin === 'string') return `must be at most ${maximum} characters long`;
  if (origin === 'array') return `allows at most ${maximum} entries`;
  return `must be at most ${maximum}, got ${describeValue(input)}`;
}

/**
 * A union failed every branch. When each branch only disagreed about the type ("text or a list"),
 * say so in one line; otherwise report the branch that got furthest (fewest problems).
 */
function invalidUnion(
  issue: Issue & { code: 'invalid_union' },
  root: z.core.$ZodType,
  path: PropertyKey[],
): Problem[] {
  const branches = issue.errors;
  const typeOnly = branches.every(
    (branch) =>
      branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0,
  );
  if (typeOnly || branches.length === 0) {
    const wants = branches.map((b) => {
      const first = b[0];
      return first?.code === 'invalid_type' ? (TYPE_NAMES[first.expected] ?? first.expected) : '';
    });
    const message =
      issue.input === undefined
        ? 'is required'
        : `expected ${wants.join(' or ')}, got ${describeValue(issue.input)}`;
    return [{ path: formatPath(path), message }];
  }
  const best = [...branches]
    .filter((b) => !(b.length === 1 && b[0]?.code === 'invalid_type' && b[0].path.length === 0))
    .sort((a, b) => a.length - b.length)[0];
  return (best ?? []).flatMap((inner) => issueToProblems(inner, root, path));
}
