/**
 * Where `serve` listens (issue 15): `serve.ops` and `serve.slack` in the config, checked like every
 * other key; an unset host is 127.0.0.1 outside a cluster and 0.0.0.0 inside one; flags win over
 * `PORT`, `PORT` over the file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { serveListen } from '../../../src/config/listen.js';
import { parseConfig } from '../../../src/config/parse.js';
import type { Config } from '../../../src/config/schema.js';

function configOf(doc: object): Config {
  const result = parseConfig(stringify(doc), 'test.yaml');
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.problems));
  return result.config;
}

describe('serve: in the config', () => {
  it('takes IPv4, IPv6 (without brackets) and localhost', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '10.1.2.3', '::1', '::', 'fe80::1', 'localhost']) {
      const config = configOf({ serve: { ops: { host, port: 0 }, slack: { host } } });
      assert.deepEqual(config.serve.ops, { host, port: 0 });
      assert.deepEqual(config.serve.slack, { host, port: 3000 });
    }
  });

  const bad: [string, object, string, RegExp][] = [
    ['a host name', { ops: { host: 'metrics.example.com' } }, 'serve.ops.host', /not an address/],
    ['a bracketed IPv6', { slack: { host: '[::1]' } }, 'serve.slack.host', /not an address/],
    ['five octets', { ops: { host: '10.0.0.0.1' } }, 'serve.ops.host', /not an address/],
    ['an address with a port', { ops: { host: '127.0.0.1:9090' } }, 'serve.ops.host', /not an/],
    ['a port past 65535', { slack: { port: 70_000 } }, 'serve.slack.port', /65535/],
    ['an unknown key', { ops: { address: '127.0.0.1' } }, 'serve.ops.address', /unknown key/],
  ];
  for (const [what, serve, path, message] of bad) {
    it(`${what} is a config problem at ${path}`, () => {
      const result = parseConfig(stringify({ serve }), 'test.yaml');
      assert.equal(result.ok, false);
      const problem = result.ok ? undefined : result.problems.find((p) => p.path === path);
      assert.ok(problem, JSON.stringify(result));
      assert.match(problem.message, message);
      if (path.endsWith('.host')) assert.match(problem.hint ?? '', /127\.0\.0\.1.*0\.0\.0\.0/);
    });
  }
});

describe('serve: where it listens', () => {
  const sim = configOf({});

  it('outside a cluster: this machine only, 9090 and 3000', () => {
    assert.deepEqual(serveListen(sim, {}), {
      ops: { host: '127.0.0.1', port: 9090 },
      slack: { host: '127.0.0.1', port: 3000 },
    });
  });

  it('in a pod (KUBERNETES_SERVICE_HOST) or with cluster.type in-cluster: every interface', () => {
    for (const [config, env] of [
      [sim, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }],
      [configOf({ cluster: { type: 'in-cluster' } }), {}],
    ] as const) {
      const listen = serveListen(config, env);
      assert.equal(listen.ops.host, '0.0.0.0');
      assert.equal(listen.slack.host, '0.0.0.0');
    }
  });

  it('a host in the file wins over the default, in a cluster too', () => {
    const config = configOf({ serve: { ops: { host: '10.0.0.7', port: 9100 } } });
    const listen = serveListen(config, { KUBERNETES_SERVICE_HOST: '10.96.0.1' });
    assert.deepEqual(listen.ops, { host: '10.0.0.7', port: 9100 });
    assert.equal(listen.slack.host, '0.0.0.0');
  });

  it('flags win over PORT, PORT over the file', () => {
    const config = configOf({ serve: { slack: { host: '::1', port: 3100 } } });
    assert.deepEqual(serveListen(config, { PORT: '8080' }).slack, { host: '::1', port: 8080 });
    assert.deepEqual(
      serveListen(config, { PORT: '8080' }, { slackHost: '0.0.0.0', slackPort: 0, opsPort: 1 }),
      { ops: { host: '127.0.0.1', port: 1 }, slack: { host: '0.0.0.0', port: 0 } },
    );
  });

  it('a PORT that is not a port is a config error', () => {
    assert.throws(() => serveListen(sim, { PORT: 'http' }), /PORT="http" is not a port/);
  });
});
