/**
 * The kube adapter keeps its connections (issue 20): client-node 2.0 alone opens a new TLS
 * connection for every API request; through createKubeClient, twenty requests, one after another
 * or twenty at once, share a pool of kept-alive connections, and a kubeconfig whose certificate
 * authority changes gets a pool of its own instead of the stale one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

describe('API connections', () => {
  let sim: SimApi;
  let connections = 0;
  before(async () => {
    sim = await startSimApi();
    sim.api.server.on('secureConnection', () => void (connections += 1));
  });
  after(() => sim.close());

  const fresh = () => {
    const config = new KubeConfig();
    config.loadFromFile(sim.kubeconfigPath);
    return config;
  };

  it('twenty requests in a row use one or two connections, not twenty', async () => {
    const client = createKubeClient(fresh());
    connections = 0;
    for (let i = 0; i < 20; i++) await client.core.listNamespace();
    assert.ok(connections <= 2, `${connections} connections`);
  });

  it('twenty at once open at most a connection each, and mostly reuse them afterwards', async () => {
    const client = createKubeClient(fresh());
    connections = 0;
    await Promise.all(Array.from({ length: 20 }, () => client.core.listNamespace()));
    const opened = connections;
    assert.ok(opened <= 20, `${opened} connections`);
    await Promise.all(Array.from({ length: 20 }, () => client.core.listNamespace()));
    assert.ok(connections - opened <= 2, `the second round opened ${connections - opened}`);
  });

  it('a changed certificate authority is a new pool (the old connections are not reused)', async () => {
    const config = fresh();
    const client = createKubeClient(config);
    await client.core.listNamespace();
    connections = 0;
    const cluster = config.getCurrentCluster()!;
    // The same CA, spelled differently (a trailing newline): new TLS options, so a new pool.
    const ca = Buffer.from(cluster.caData!, 'base64').toString('utf8');
    Object.assign(cluster, { caData: Buffer.from(`${ca}\n`).toString('base64') });
    await client.core.listNamespace();
    assert.equal(connections, 1);
  });
});
