/**
 * `clusters:` (issue 22): names, how each cluster is reached, what an entry sets for itself and
 * inherits, `blockers.clusters` against the list, and each cluster's config as the control plane
 * runs it. Bad input is refused with a path and a hint.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clusterConfigNamed,
  clusterConfigs,
  clusterNames,
} from '../../../src/config/cluster-configs.js';
import { chooseCluster } from '../../../src/cli/cluster-choice.js';
import { KubemaintError } from '../../../src/errors.js';
import { configOf, problemsOf } from '../../support/config.js';

const staging = { name: 'staging', kubeconfig: { context: 'staging' } };
const production = {
  name: 'production',
  eks: {
    name: 'prod',
    region: 'eu-central-1',
    endpoint: 'https://ABC.gr7.eu-central-1.eks.amazonaws.com',
    caData: Buffer.from('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----').toString(
      'base64',
    ),
  },
};

const pathsOf = (doc: unknown) => problemsOf(doc).map((p) => p.path);

describe('clusters:', () => {
  it('without it there is one cluster: the file itself, unchanged', () => {
    const config = configOf({ cluster: { type: 'in-cluster' } });
    assert.equal(config.clusters, undefined);
    assert.deepEqual(clusterConfigs(config), [config]);
    assert.deepEqual(clusterNames(config), []);
  });

  it('each entry is reached as cluster: says, the type read from its one block', () => {
    const config = configOf({
      clusters: [staging, production, { name: 'home', type: 'in-cluster' }],
    });
    assert.deepEqual(
      clusterConfigs(config).map((c) => [c.cluster.type, c.cluster.name]),
      [
        ['kubeconfig', 'staging'],
        ['eks', 'production'],
        ['in-cluster', 'home'],
      ],
    );
    const [first] = clusterConfigs(config);
    assert.ok(first?.cluster.type === 'kubeconfig');
    assert.deepEqual(first.cluster.kubeconfig, { path: undefined, context: 'staging' });
  });

  it('a sim entry writes a kubeconfig of its own', () => {
    const config = configOf({
      clusters: [
        { name: 'a', type: 'sim' },
        { name: 'b', sim: {} },
      ],
    });
    assert.deepEqual(
      clusterConfigs(config).map((c) => (c.cluster.type === 'sim' ? c.cluster.kubeconfigPath : '')),
      ['.kubemaint/sim-a.kubeconfig', '.kubemaint/sim-b.kubeconfig'],
    );
  });

  it('an entry inherits the top-level sections it does not set, key by key; a list replaces', () => {
    const config = configOf({
      slot: { concurrency: 2, releaseDelay: '5m' },
      windows: [{ days: ['sat'], start: '02:00', end: '06:00' }],
      slack: { channel: 'C0000AAAA', allowedChannels: ['C0000AAAA'], command: '/ops' },
      clusters: [
        {
          ...staging,
          slot: { concurrency: 3 },
          slack: { channel: 'C0000BBBB', allowedChannels: ['C0000BBBB'] },
        },
        { ...production, windows: [{ days: ['sun'], start: '01:00', end: '03:00' }] },
      ],
    });
    const [a, b] = clusterConfigs(config);
    assert.equal(a?.slot.concurrency, 3);
    assert.equal(a?.slot.releaseDelay, 300_000, 'releaseDelay is inherited');
    assert.equal(a?.windows.length, 1);
    assert.deepEqual(
      JSON.stringify(a?.windows[0]),
      JSON.stringify({ days: ['sat'], start: '02:00', end: '06:00', timezone: 'UTC' }),
    );
    assert.equal(a?.slack.channel, 'C0000BBBB');
    assert.equal(a?.slack.command, '/ops', 'the slash command is the app’s');
    assert.equal(b?.slot.concurrency, 2);
    assert.match(JSON.stringify(b?.windows[0]), /"sun"/);
    assert.equal(b?.slack.channel, 'C0000AAAA');
  });

  it('an entry’s approvers replace the top-level ones for that cluster only', () => {
    const config = configOf({
      people: [{ name: 'alice', kubernetes: ['alice'] }],
      approval: { approvers: { kubernetes: { users: ['bob'] } }, twoPerson: true },
      clusters: [staging, { ...production, approval: { approvers: { people: ['alice'] } } }],
    });
    const [a, b] = clusterConfigs(config);
    assert.deepEqual(a?.approval.approvers.kubernetes.users, ['bob']);
    assert.deepEqual(b?.approval.approvers.people, ['alice']);
    assert.equal(b?.approval.twoPerson, true, 'twoPerson is inherited');
  });

  it('refuses an empty list, a bad or repeated name, and an entry that says not how to reach it', () => {
    assert.deepEqual(pathsOf({ clusters: [] }), ['clusters']);
    assert.deepEqual(pathsOf({ clusters: [{ ...staging, name: 'Prod_EU' }] }), [
      'clusters[0].name',
    ]);
    const twice = problemsOf({ clusters: [staging, { ...production, name: 'staging' }] });
    assert.deepEqual(
      twice.map((p) => [p.path, p.message]),
      [['clusters[1].name', '"staging" is already the name of clusters[0]']],
    );
    // Shaped like a request id: `r-0a1b2c/r-7f3a9c` on a button would be read as a bare id.
    const idLike = problemsOf({ clusters: [{ ...staging, name: 'r-0a1b2c' }] });
    assert.deepEqual(
      idLike.map((p) => p.path),
      ['clusters[0].name'],
    );
    assert.match(idLike[0]?.message ?? '', /shaped like a request or campaign id/);
    const nowhere = problemsOf({ clusters: [{ name: 'lost' }] });
    assert.equal(nowhere[0]?.path, 'clusters[0]');
    assert.match(nowhere[0]?.message ?? '', /does not say how to reach cluster lost/);
    assert.match(nowhere[0]?.hint ?? '', /kubeconfig: \{context: …\}/);
    const both = problemsOf({ clusters: [{ name: 'x', kubeconfig: {}, eks: production.eks }] });
    assert.match(both[0]?.message ?? '', /has kubeconfig and eks: a cluster is reached one way/);
  });

  it('refuses two entries that reach one cluster under two names', () => {
    const twice = (a: object, b: object) =>
      problemsOf({
        clusters: [
          { name: 'staging', ...a },
          { name: 'production', ...b },
        ],
      }).map((p) => [p.path, p.message.replace(/\): .*/, ')')]);
    const context = { kubeconfig: { path: '/k', context: 'prod' } };
    assert.deepEqual(twice(context, context), [
      ['clusters[1]', 'reaches the cluster clusters[0] reaches (context "prod" of kubeconfig /k)'],
    ]);
    assert.deepEqual(twice({ kubeconfig: {} }, { kubeconfig: {} }), [
      [
        'clusters[1]',
        'reaches the cluster clusters[0] reaches (the current context of the default kubeconfig)',
      ],
    ]);
    const endpoint = production.eks.endpoint;
    assert.equal(
      twice({ eks: production.eks }, { eks: { ...production.eks, endpoint: `${endpoint}/` } })
        .length,
      1,
    );
    assert.equal(twice({ sim: { port: 7001 } }, { sim: { port: 7001 } }).length, 1);
    const problem = problemsOf({ clusters: [staging, { ...staging, name: 'prod' }] })[0];
    assert.match(problem?.message ?? '', /two control loops, each with its own approvers/);
    assert.match(problem?.hint ?? '', /list each cluster once/);
    // Different reaches, and sims on picked ports, are clusters of their own.
    assert.deepEqual(twice(context, { kubeconfig: { path: '/k', context: 'stage' } }), []);
    assert.deepEqual(twice({ sim: {} }, { sim: {} }), []);
  });

  it('refuses cluster: beside clusters:, two in-cluster entries, and an entry’s slash command', () => {
    assert.ok(
      pathsOf({ cluster: { type: 'in-cluster' }, clusters: [staging] }).includes('cluster'),
    );
    assert.deepEqual(
      pathsOf({
        clusters: [
          { name: 'a', type: 'in-cluster' },
          { name: 'b', type: 'in-cluster' },
        ],
      }),
      ['clusters[1].type'],
    );
    assert.deepEqual(pathsOf({ clusters: [{ ...staging, slack: { command: '/x' } }] }), [
      'clusters[0].slack.command',
    ]);
  });

  it('a mistake in an inherited key is said once, at the top-level key', () => {
    const problems = problemsOf({
      slot: { concurrency: 0 },
      clusters: [{ ...staging, slot: { releaseDelay: '1m' } }],
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      ['slot.concurrency'],
    );
  });

  it('holds a cluster’s own slack: to the same rules once Slack is on', () => {
    const env = {
      SLACK_BOT_TOKEN: `xoxb-${'1'.repeat(10)}-x`,
      SLACK_APP_TOKEN: `xapp-${'1'.repeat(10)}`,
    };
    const problems = problemsOf(
      {
        slack: { channel: 'C0000AAAA', allowedChannels: ['C0000AAAA'] },
        clusters: [{ ...staging, slack: { channel: 'C0000BBBB' } }],
      },
      env,
    );
    assert.deepEqual(
      problems.map((p) => p.path),
      ['clusters[0].slack.allowedChannels'],
    );
  });
});

describe('blockers.clusters', () => {
  it('takes waves, a cap and a soak', () => {
    const config = configOf({
      clusters: [staging, production, { name: 'dev', type: 'in-cluster' }],
      blockers: {
        clusters: { order: [['dev', 'staging'], 'production'], maxInMaintenance: 1, soak: '2h' },
      },
    });
    assert.deepEqual(config.blockers.clusters, {
      order: [['dev', 'staging'], ['production']],
      maxInMaintenance: 1,
      soak: 7_200_000,
    });
  });

  it('names only clusters of the list, each once, and needs the list', () => {
    const unknown = problemsOf({
      clusters: [staging, production],
      blockers: { clusters: { order: ['staging', 'prod'] } },
    });
    assert.deepEqual(
      unknown.map((p) => [p.path, p.message, p.hint]),
      [
        [
          'blockers.clusters.order[1]',
          '"prod" is not a cluster of clusters:',
          'the clusters: staging, production',
        ],
      ],
    );
    assert.deepEqual(
      pathsOf({
        clusters: [staging, production],
        blockers: { clusters: { order: [['staging', 'production'], 'staging'] } },
      }),
      ['blockers.clusters.order[1]'],
    );
    assert.deepEqual(pathsOf({ blockers: { clusters: { maxInMaintenance: 1 } } }), [
      'blockers.clusters',
    ]);
    assert.deepEqual(pathsOf({ clusters: [staging], blockers: { clusters: { soak: '1h' } } }), [
      'blockers.clusters.soak',
    ]);
  });
});

describe('--cluster', () => {
  const config = configOf({ clusters: [staging, production] });
  it('names a cluster of the list; a name not there lists the names there are', () => {
    assert.equal(
      chooseCluster(config, { cluster: 'production' }).config.cluster.name,
      'production',
    );
    assert.throws(
      () => clusterConfigNamed(config, 'prod'),
      (e: unknown) =>
        e instanceof KubemaintError &&
        e.code === 'usage' &&
        /staging, production/.test(e.hint ?? ''),
    );
  });
  it('is needed when the list has several clusters', () => {
    assert.throws(
      () => chooseCluster(config, {}),
      (e: unknown) => e instanceof KubemaintError && /2 clusters: say which/.test(e.message),
    );
  });
  it('with --kubeconfig still reaches the named cluster: its context, never the file’s current one', () => {
    // A kubeconfig whose current context is production, and --cluster staging: staging it is.
    const chosen = chooseCluster(config, {
      cluster: 'staging',
      kubeconfig: '/home/me/.kube/config',
    });
    assert.deepEqual(chosen.config.cluster, {
      type: 'kubeconfig',
      name: 'staging',
      kubeconfig: { path: '/home/me/.kube/config', context: 'staging' },
    });
    assert.equal(chosen.kubeconfigPath, undefined, 'nothing wins over the entry');
    const only = configOf({ clusters: [staging] });
    assert.equal(chooseCluster(only, { kubeconfig: '/k' }).config.cluster.type, 'kubeconfig');
    assert.equal(chooseCluster(only, { kubeconfig: '/k' }).kubeconfigPath, undefined);
    for (const entry of [production, { name: 'production', kubeconfig: { path: '/p' } }]) {
      const listed = configOf({ clusters: [staging, entry] });
      assert.throws(
        () => chooseCluster(listed, { cluster: 'production', kubeconfig: '/k' }),
        (e: unknown) =>
          e instanceof KubemaintError &&
          e.code === 'usage' &&
          /--kubeconfig cannot say which cluster is "production"/.test(e.message) &&
          /leave --kubeconfig out/.test(e.hint ?? ''),
      );
    }
  });
  it('without a list it is a kubectl context of the kubeconfig kubectl would read', () => {
    const one = configOf({
      cluster: { type: 'kubeconfig', kubeconfig: { path: '/k', context: 'a' } },
    });
    const chosen = chooseCluster(one, { cluster: 'b' });
    assert.deepEqual(chosen.config.cluster, {
      type: 'kubeconfig',
      name: 'b',
      kubeconfig: { path: '/k', context: 'b' },
    });
    assert.equal(chooseCluster(one, {}).config, one);
  });
});
