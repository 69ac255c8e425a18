import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { validate } from '../../../src/config/parse.js';
import { formatPath } from '../../../src/config/problems.js';
import { ConfigSchema } from '../../../src/config/schema.js';

interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
}

/** Every path in the schema that holds a strict object (arrays entered at index 0). */
function objectPaths(
  schema: z.core.$ZodType,
  path: (string | number)[] = [],
): (string | number)[][] {
  const def = schema._zod.def as unknown as Def;
  if (def.innerType) return objectPaths(def.innerType, path);
  if (def.type === 'pipe' && def.in) return objectPaths(def.in, path);
  if (def.type === 'array' && def.element) return objectPaths(def.element, [...path, 0]);
  if (def.type !== 'object' || !def.shape) return [];
  return [
    path,
    ...Object.entries(def.shape).flatMap(([key, field]) => objectPaths(field, [...path, key])),
  ];
}

/** A document with `{ zzBogus: 1 }` at `path`, creating the maps and lists on the way. */
function docWithBogusAt(path: (string | number)[]): unknown {
  const build = (rest: (string | number)[]): unknown => {
    const [head, ...tail] = rest;
    if (head === undefined) return { zzBogus: 1 };
    return typeof head === 'number' ? [build(tail)] : { [head]: build(tail) };
  };
  return build(path);
}

describe('unknown keys are errors at every level', () => {
  const paths = objectPaths(ConfigSchema);
  it('the schema walk finds every section (so this suite cannot pass vacuously)', () => {
    assert.ok(paths.length >= 23, `only ${paths.length} object paths`);
    const names = paths.map((p) => formatPath(p));
    for (const expected of [
      '(top level)',
      'cluster.eks',
      'windows[0]',
      'freezes[0]',
      'approval.approvers',
      'notify.templates',
    ]) {
      assert.ok(names.includes(expected), `${expected} missing from ${names.join(', ')}`);
    }
  });
  for (const path of paths) {
    const where = formatPath([...path, 'zzBogus']);
    it(where, () => {
      const result = validate(docWithBogusAt(path));
      assert.equal(result.ok, false);
      const problem = result.ok ? undefined : result.problems.find((p) => p.path === where);
      assert.ok(problem, `no problem at ${where}: ${JSON.stringify(result)}`);
      assert.equal(problem.message, 'unknown key');
    });
  }
});

describe('unknown keys suggest the key that was meant', () => {
  const cases: { doc: unknown; path: string; hint: string }[] = [
    { doc: { clustr: {} }, path: 'clustr', hint: 'did you mean `cluster`?' },
    {
      doc: { cluster: { kubeConfig: {} } },
      path: 'cluster.kubeConfig',
      hint: 'did you mean `kubeconfig`?',
    },
    {
      doc: { drain: { grace_period_seconds: 30 } },
      path: 'drain.grace_period_seconds',
      hint: 'did you mean `gracePeriodSeconds`?',
    },
    {
      doc: { windows: [{ timeZone: 'UTC' }] },
      path: 'windows[0].timeZone',
      hint: 'did you mean `timezone`?',
    },
    {
      doc: { approval: { approvers: { user: [] } } },
      path: 'approval.approvers.user',
      hint: 'did you mean `users`?',
    },
    {
      doc: { blockers: { maxUnhealthy: 1 } },
      path: 'blockers.maxUnhealthy',
      hint: 'allowed here: prometheus, pods, maxUnhealthyNodes, flapping, soak, clusters',
    },
    {
      doc: { slack: { token: 'x' } },
      path: 'slack.token',
      hint: 'secrets come from the environment (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN)',
    },
  ];
  for (const c of cases) {
    it(c.path, () => {
      const result = validate(c.doc);
      const problem = result.ok ? undefined : result.problems.find((p) => p.path === c.path);
      assert.equal(problem?.message, 'unknown key');
      assert.equal(problem.hint, c.hint);
    });
  }
});
