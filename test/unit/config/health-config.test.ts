/**
 * The config of issue 18's health gates and silences: `blockers.prometheus.queries`,
 * `.alertSeverities`, `.alerts`, `blockers.flapping`, `blockers.soak` and `alertmanager:` parse,
 * map onto the control plane's settings, and bad values say what is wrong and how to write it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig } from '../../../src/compose/control-settings.js';
import { validate } from '../../../src/config/parse.js';
import type { Problem } from '../../../src/config/problems.js';

const problemsOf = (doc: unknown): Problem[] => {
  const result = validate(doc, {});
  return result.ok ? [] : result.problems;
};
const configOf = (doc: unknown) => {
  const result = validate(doc, {});
  assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.problems));
  return result.config;
};
const said = (p: Problem | undefined) => `${p?.path}: ${p?.message} (${p?.hint ?? ''})`;

describe('blockers: query gates, flapping, soak', () => {
  it('maps every key onto the settings', () => {
    const settings = controlSettingsFromConfig(
      configOf({
        blockers: {
          prometheus: {
            url: 'http://prometheus:9090',
            alertSeverities: ['critical'],
            queries: [
              { name: 'ratio', query: 'x', expect: 'below:0.02', for: '5m' },
              { query: 'y', expect: 'empty' },
            ],
          },
          flapping: { times: 2, within: '6h' },
          soak: '10m',
        },
      }),
    );
    assert.deepEqual(settings.blockers.queries, [
      { name: 'ratio', query: 'x', expect: { kind: 'below', value: 0.02 }, forMs: 300_000 },
      { query: 'y', expect: { kind: 'empty' } },
    ]);
    assert.deepEqual(settings.blockers.flapping, { times: 2, withinMs: 6 * 3_600_000 });
    assert.equal(settings.blockers.soakMs, 600_000);
    assert.equal(settings.silences, undefined);
  });

  it('defaults: no queries, no flapping gate, no soak, the alert gate on', () => {
    const config = configOf({ blockers: { prometheus: { url: 'http://p:9090' } } });
    assert.equal(config.blockers.prometheus?.alerts, true);
    assert.deepEqual(config.blockers.prometheus?.queries, []);
    assert.equal(config.blockers.flapping, undefined);
    assert.equal(config.blockers.soak, 0);
  });

  it('names a bad expectation and the ones there are', () => {
    const [problem] = problemsOf({
      blockers: { prometheus: { url: 'http://p', queries: [{ query: 'x', expect: 'less:3' }] } },
    });
    assert.match(
      said(problem),
      /^blockers\.prometheus\.queries\[0\]\.expect: "less:3" is not an expectation \(use empty, nonEmpty, below:N or above:N/,
    );
  });

  it('refuses an empty query, a flapping span of 0 and a negative count', () => {
    assert.match(
      said(
        problemsOf({
          blockers: { prometheus: { url: 'http://p', queries: [{ query: ' ', expect: 'empty' }] } },
        })[0],
      ),
      /queries\[0\]\.query: must not be empty/,
    );
    assert.match(
      said(problemsOf({ blockers: { flapping: { times: 1, within: '0s' } } })[0]),
      /flapping\.within: must be longer than 0/,
    );
    assert.match(
      said(problemsOf({ blockers: { flapping: { times: -1, within: '1h' } } })[0]),
      /flapping\.times/,
    );
  });
});

describe('alertmanager', () => {
  it('maps url, silences (parsed), margin and onFailure; defaults one node="<node>" silence', () => {
    const settings = controlSettingsFromConfig(
      configOf({
        alertmanager: {
          url: 'http://am:9093',
          auth: { bearerToken: { env: 'AM_TOKEN' } },
          silences: ['node="<node>"', '{instance=~"<node>:.*"}'],
          margin: '20m',
          onFailure: 'warn',
        },
      }),
    );
    assert.deepEqual(settings.silences, {
      matchers: [
        [{ name: 'node', value: '<node>', isRegex: false, isEqual: true }],
        [{ name: 'instance', value: '<node>:.*', isRegex: true, isEqual: true }],
      ],
      marginMs: 1_200_000,
      onFailure: 'warn',
    });
    const defaults = configOf({ alertmanager: { url: 'http://am:9093' } }).alertmanager;
    assert.deepEqual(defaults?.silences, ['node="<node>"']);
    assert.equal(defaults?.margin, 900_000);
    assert.equal(defaults?.onFailure, 'block');
  });

  it('refuses a silence that does not name the node, or is not a matcher', () => {
    assert.match(
      said(
        problemsOf({ alertmanager: { url: 'http://am', silences: ['severity="critical"'] } })[0],
      ),
      /^alertmanager\.silences\[0\]: no matcher names the node: .*every node's alerts \(e\.g\. node="<node>"/,
    );
    assert.match(
      said(problemsOf({ alertmanager: { url: 'http://am', silences: ['node=<node>'] } })[0]),
      /alertmanager\.silences\[0\]: "node=<node>" is not a matcher like name="value"/,
    );
  });

  it('takes a secret from env or file, exactly one, and never both auth kinds', () => {
    assert.match(
      said(problemsOf({ alertmanager: { url: 'http://am', auth: { bearerToken: {} } } })[0]),
      /bearerToken: give exactly one of env \(a variable name\) or file \(a path\)/,
    );
    assert.match(
      said(
        problemsOf({
          alertmanager: { url: 'http://am', auth: { bearerToken: { env: 'not a name' } } },
        })[0],
      ),
      /bearerToken\.env: "not a name" is not an environment variable name/,
    );
    const both = {
      bearerToken: { env: 'T' },
      basic: { username: 'u', password: { file: '/p' } },
    };
    assert.match(
      said(problemsOf({ alertmanager: { url: 'http://am', auth: both } })[0]),
      /bearerToken or basic, not both/,
    );
  });

  it('refuses a margin under a minute and an unknown onFailure', () => {
    assert.match(
      said(problemsOf({ alertmanager: { url: 'http://am', margin: '30s' } })[0]),
      /margin: must be at least 1m/,
    );
    assert.match(
      said(problemsOf({ alertmanager: { url: 'http://am', onFailure: 'ignore' } })[0]),
      /^alertmanager\.onFailure/,
    );
  });
});
