/**
 * Issue 21, "nothing is written to the real cluster (a test proves it: the real cluster's audit log
 * shows only reads)": simulated nodes attached to kube-apiserver, one marked reboot-required, and
 * `kubemaint rehearse` run as the CLI with a kubeconfig of its own identity, a user bound to a
 * ClusterRole that may only get, list and watch. The report names the marked node; the audit log
 * then holds that user's every request, and each one is a read. (The read-only role alone would not
 * prove it: a refused write is still a write attempted, and the audit log shows those too.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { attachSim, type AttachedSim } from '@kubemaint/kubesim/attach';
import type { RehearsalReport } from '../../src/app/control/rehearsal.js';
import { LABEL_REBOOT_REQUIRED } from '../../src/core/names.js';
import { applyAll, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { runCli } from '../support/cli-process.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';
import { waitFor } from '../support/sim.js';

const NODES = ['rehearse-0', 'rehearse-1', 'rehearse-2'];
const MARKED = 'rehearse-1';
const FLEET_USER = 'rehearse-fleet';
const REHEARSER = 'rehearser';
const READS = ['get', 'list', 'watch'];
const MARKER = 'kube-public';

interface AuditEntry {
  verb: string;
  requestURI: string;
  user: { username: string };
  requestReceivedTimestamp: string;
}

describe('kubemaint rehearse on the real control plane', { timeout: 600_000 }, () => {
  let cluster: RealCluster;
  let attached: AttachedSim | undefined;
  let dir: string;
  let rehearserKubeconfig: string;

  before(async () => {
    cluster = await realCluster();
    // The CRDs and namespace only, so the snapshot reads kubemaint's requests and slots too; not
    // the admission policies, which would judge the attached fleet's writes for nothing.
    await applyAll(cluster.admin, manifests(INFRA_K8S, ['crds.yaml', 'namespace.yaml']));
    cluster.kubectl([
      'wait',
      '--for=condition=Established',
      'crd/maintenancerequests.kubemaint.io',
      '--timeout=60s',
    ]);
    const rbac = 'rbac.authorization.k8s.io';
    cluster.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: `${rbac}/v1`,
            kind: 'ClusterRole',
            metadata: { name: REHEARSER },
            rules: [{ apiGroups: ['*'], resources: ['*'], verbs: READS }],
          },
          {
            apiVersion: `${rbac}/v1`,
            kind: 'ClusterRoleBinding',
            metadata: { name: REHEARSER },
            roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: REHEARSER },
            subjects: [{ apiGroup: rbac, kind: 'User', name: REHEARSER }],
          },
        ],
      }),
    });
    rehearserKubeconfig = cluster.userKubeconfig(REHEARSER);
    attached = await attachSim({
      kubeconfig: cluster.fleetKubeconfig(FLEET_USER, NODES),
      nodes: NODES.length,
      prefix: 'rehearse-',
      // A zone of their own, as in sim-attach.test.ts: other suites' NotReady nodes stay out of it.
      labels: { 'topology.kubernetes.io/zone': 'rehearse' },
    });
    cluster.kubectl(['label', 'node', MARKED, `${LABEL_REBOOT_REQUIRED}=true`, '--overwrite']);
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-real-'));
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      [
        'cluster:',
        '  type: kubeconfig',
        '  name: rehearse-real',
        '  kubeconfig:',
        `    path: ${rehearserKubeconfig}`,
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await attached?.stop();
    cluster.kubectl(['delete', 'node', ...NODES, '--ignore-not-found']);
    cluster.kubectl([
      'delete',
      'clusterrolebinding,clusterrole',
      REHEARSER,
      FLEET_USER,
      '--ignore-not-found',
    ]);
    await cleanKubemaint(cluster.admin, { nodes: NODES });
  });

  it('names the marked node, and the audit log shows its identity only reading', async () => {
    const started = new Date().toISOString();
    const result = await runCli(['rehearse', '--json', '--kubeconfig', rehearserKubeconfig], {
      cwd: dir,
    });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as RehearsalReport;
    // Other suites share the cluster and may leave marked nodes of their own: ours are what count.
    const rehearsed = report.nodes.map((n) => n.node);
    assert.deepEqual(
      NODES.filter((n) => rehearsed.includes(n)),
      [MARKED],
      'the marked node is rehearsed, its unmarked neighbours are not',
    );
    assert.deepEqual(
      report.skipped.filter((s) => /may not/.test(s.why)),
      [],
      'the read-only role lets it read everything it wants',
    );

    // The apiserver logs a request once its response is sent, so the CLI's last ones may land a
    // moment after it exits: a read of our own, made after it, marks where its requests end.
    cluster.kubectl(['get', 'namespace', MARKER], { kubeconfig: rehearserKubeconfig });
    const entries = () =>
      readFileSync(join(cluster.dir, 'logs', 'audit.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEntry)
        .filter((e) => e.user.username === REHEARSER && e.requestReceivedTimestamp >= started);
    const marked = await waitFor(
      'the marker read in the audit log',
      () => {
        const all = entries();
        return all.some((e) => e.requestURI === `/api/v1/namespaces/${MARKER}`) && all;
      },
      30_000,
    );
    const mine = marked.filter((e) => e.requestURI !== `/api/v1/namespaces/${MARKER}`);
    assert.ok(mine.length > 0, 'the rehearsal read the cluster as its own identity');
    const writes = mine.filter((e) => !READS.includes(e.verb));
    assert.deepEqual(
      writes.map((e) => `${e.verb} ${e.requestURI}`),
      [],
      'every request of the rehearsal is a get, list or watch',
    );
  });
});
