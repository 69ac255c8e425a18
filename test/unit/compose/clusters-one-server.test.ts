/**
 * Two entries of `clusters:` whose contexts differ but name one apiserver (issue 22): the config
 * alone cannot see it, so openClusters compares the servers once connected and refuses, rather
 * than run two control loops on one cluster's requests, each with its own approvers and windows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openClusters } from '../../../src/compose/clusters.js';
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
