/**
 * `serve.statusPage` (issue 19): on in the demo, off elsewhere unless the config or the flag says so;
 * anything but a boolean is a config problem that says what to write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { parseConfig } from '../../../src/config/parse.js';
import { statusPageEnabled } from '../../../src/compose/status-page.js';

function configOf(doc: object) {
  const result = parseConfig(stringify(doc), 'test.yaml');
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.problems));
  return result.config;
}

describe('serve.statusPage', () => {
  const sim = { cluster: { type: 'sim' } };
  const real = { cluster: { type: 'kubeconfig', kubeconfig: { path: '/dev/null' } } };
  const table: [string, object, boolean | undefined, boolean][] = [
    ['the demo (the embedded sim), unset', sim, undefined, true],
    ['a real cluster, unset', real, undefined, false],
    ['a real cluster, turned on', { ...real, serve: { statusPage: true } }, undefined, true],
    ['the demo, turned off', { ...sim, serve: { statusPage: false } }, undefined, false],
    ['--status-page over the config', { ...real, serve: { statusPage: false } }, true, true],
    ['--no-status-page over the demo', sim, false, false],
  ];
  for (const [what, doc, flag, want] of table) {
    it(`${what}: ${want ? 'on' : 'off'}`, () => {
      assert.equal(statusPageEnabled(configOf(doc), flag), want);
    });
  }

  it('anything but true or false is a problem that says what to write', () => {
    const result = parseConfig(stringify({ serve: { statusPage: 'yes' } }), 'test.yaml');
    assert.equal(result.ok, false);
    const problem = result.ok
      ? undefined
      : result.problems.find((p) => p.path === 'serve.statusPage');
    assert.match(problem?.message ?? '', /expected true or false/);
  });
});
