/**
 * A config document checked as `config check` checks it, for tests of one section: its problems
 * (none when valid), or the parsed config of a document that must be valid.
 */
import assert from 'node:assert/strict';
import { validate } from '../../src/config/parse.js';
import type { Problem } from '../../src/config/problems.js';

export function problemsOf(doc: unknown, env: Record<string, string> = {}): Problem[] {
  const result = validate(doc, env);
  return result.ok ? [] : result.problems;
}

export function configOf(doc: unknown, env: Record<string, string> = {}) {
  const result = validate(doc, env);
  assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.problems));
  return result.config;
}
