/**
 * Two entries of `clusters:` whose contexts differ but name one apiserver (issue 22): the config
 * alone cannot see it, so openClusters compares the servers once connected and refuses, rather
 * than run two control loops on one cluster's requests, each with its own approvers and windows.
 * And one cluster of the list opened alone (`serve --cluster`, `tick --cluster`) reads no other
 * cluster: the gate across them holds its starts rather than being skipped.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { clusterGateReasons, readPeers } from '../../../src/app/control/cluster-gate.js';
import { openControl } from '../../../src/compose.js';
import { openClusters } from '../../../src/compose/clusters.js';
import { clusterConfigNamed } from '../../../src/config/cluster-configs.js';
import { KubemaintError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { configOf } from '../../support/config.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-one-server-'));
const kubeconfig = join(dir, 'kubeconfig');
// Nothing listens on these ports: opening a cluster connects to nothing yet.
const cluster = (name: string, port: number) =>
  `- name: ${name}\n  cluster: {server: "https://127.0.0.1:${port}/"}`;
const context = (name: string, clusterName: string) =>
  `- name: ${name}\n  context: {cluster: ${clusterName}, user: me}`;
writeFileSync(
  kubeconfig,
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    cluster('prod', 1),
    cluster('prod-again', 1),
    cluster('staging', 2),
    'contexts:',
    context('prod', 'prod'),
    context('prod-alias', 'prod-again'),
    context('staging', 'staging'),
    'current-context: staging',
    'users:',
    '- name: me\n  user: {token: t}',
  ].join('\n'),
);
after(() => rmSync(dir, { recursive: true, force: true }));

const open = (contexts: [string, string]) =>
  openClusters(
    configOf({
      clusters: [
        { name: 'staging', kubeconfig: { path: kubeconfig, context: contexts[0] } },
        { name: 'production', kubeconfig: { path: kubeconfig, context: contexts[1] } },
      ],
    }),
    { log: silentLogger() },
  );

describe('clusters that are one apiserver', () => {
  it('are refused at start, naming both and the server', async () => {
    await assert.rejects(
      open(['prod', 'prod-alias']),
      (e: unknown) =>
        e instanceof KubemaintError &&
        e.code === 'config_invalid' &&
        e.message.startsWith(
          'clusters staging and production reach the same apiserver (https://127.0.0.1:1)',
        ) &&
        /list each cluster once/.test(e.hint ?? ''),
    );
  });
  it('while two apiservers open as two clusters', async () => {
    const set = await open(['staging', 'prod']);
    assert.deepEqual(set.names, ['staging', 'production']);
    await set.close();
  });
});

describe('a cluster of the list opened alone', () => {
  const config = (gate: object) =>
    configOf({
      clusters: [
        { name: 'staging', kubeconfig: { path: kubeconfig, context: 'staging' } },
        { name: 'production', kubeconfig: { path: kubeconfig, context: 'prod' } },
      ],
      blockers: { clusters: gate },
    });
  const reasonsAlone = async (gate: object, name: string) => {
    const runtime = await openControl(clusterConfigNamed(config(gate), name), {
      log: silentLogger(),
    });
    try {
      const now = new Date();
      return clusterGateReasons(runtime.deps, await readPeers(runtime.deps), [], now);
    } finally {
      await runtime.close();
    }
  };
  it('holds every start the gate would judge, saying how to run it', async () => {
    const order = { order: ['staging', 'production'] };
    assert.deepEqual(await reasonsAlone(order, 'production'), [
      'blockers.clusters judges production from the other clusters, and this control plane works production alone (--cluster production): work every cluster of clusters: in one serve (no --cluster)',
    ]);
    assert.equal((await reasonsAlone({ maxInMaintenance: 1 }, 'staging')).length, 1, 'the cap');
  });
  it('lets the first wave start when no cap is set: the gate has nothing to say there', async () => {
    assert.deepEqual(await reasonsAlone({ order: ['staging', 'production'] }, 'staging'), []);
  });
});
