/**
 * Which cluster a button's value reaches (issue 22, ADR 0032): the one it names, else the one
 * cluster that has its request; refused when it names no cluster of the app, or when two clusters
 * have the bare id; a cluster that does not answer the lookup is left out, not fatal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeValue, type Has } from '../../../src/adapters/slack/routes.js';
import type { SlackRoutes, SlackRuntime } from '../../../src/adapters/slack/runtime.js';
import { silentLogger } from '../../../src/log.js';

const runtime = (cluster: string): SlackRuntime =>
  ({
    settings: { cluster, command: '/maint', allowedChannels: [] },
    several: true,
    log: silentLogger(),
  }) as unknown as SlackRuntime;

const routesOf = (...names: string[]): SlackRoutes => {
  const all = names.map(runtime);
  return {
    all,
    several: names.length > 1,
    names,
    command: '/maint',
    named: (name) => all.find((rt) => rt.settings.cluster === name),
    defer: () => undefined,
    inline: async () => undefined,
    log: silentLogger(),
  };
};

/** Each cluster holds the ids listed for it; `down` throws like an unreachable apiserver. */
const holding =
  (ids: Record<string, string[] | 'down'>): Has =>
  async (rt, value) => {
    const held = ids[rt.settings.cluster];
    if (held === 'down') throw new Error('connect ECONNREFUSED');
    return (held ?? []).includes(value);
  };

const clusterOf = (routed: Awaited<ReturnType<typeof routeValue>>) =>
  'problem' in routed ? routed.problem : `${routed.rt.settings.cluster} ${routed.value}`;

describe('routeValue', () => {
  const routes = routesOf('staging', 'production');

  it('goes to the cluster the value names, without asking any cluster', async () => {
    const never: Has = () => assert.fail('no lookup when the value names its cluster');
    assert.equal(
      clusterOf(await routeValue(routes, 'production/r-000001', never)),
      'production r-000001',
    );
  });

  it('refuses a cluster the app does not serve, naming those it does', async () => {
    assert.equal(
      clusterOf(await routeValue(routes, 'mars/r-000001', holding({}))),
      'no cluster named mars: the clusters are staging, production',
    );
  });

  it('finds a bare id in the one cluster that has it', async () => {
    const has = holding({ staging: [], production: ['r-000001'] });
    assert.equal(clusterOf(await routeValue(routes, 'r-000001', has)), 'production r-000001');
  });

  it('refuses a bare id two clusters have, naming both', async () => {
    const has = holding({ staging: ['r-000001'], production: ['r-000001'] });
    assert.match(
      clusterOf(await routeValue(routes, 'r-000001', has)),
      /^r-000001 is in 2 clusters \(staging, production\); nothing was done: name the cluster, e\.g\. staging\/r-000001$/,
    );
  });

  it('leaves out a cluster that does not answer', async () => {
    const has = holding({ staging: 'down', production: ['r-000001'] });
    assert.equal(clusterOf(await routeValue(routes, 'r-000001', has)), 'production r-000001');
  });

  it('with one cluster, takes a bare value there without a lookup', async () => {
    const never: Has = () => assert.fail('no lookup with one cluster');
    assert.equal(clusterOf(await routeValue(routesOf('sim'), 'r-000001', never)), 'sim r-000001');
  });

  it('with one cluster, reads a campaign named with a slash whole (its pool), not as a cluster', async () => {
    const never: Has = () => assert.fail('no lookup with one cluster');
    assert.equal(
      clusterOf(await routeValue(routesOf('sim'), 'kernel-june/blue', never)),
      'sim kernel-june/blue',
    );
  });
});
