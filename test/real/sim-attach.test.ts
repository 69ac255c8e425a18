/**
 * `attachSim` on the real control plane: three simulated nodes join kube-apiserver 1.34 through a
 * kubeconfig that may do nothing but impersonate them and list and watch pods (their one shared pod
 * watch, ADR 0058), each acting as `system:node:<name>`, so the real Node authorizer and
 * NodeRestriction judge every write (a node may not touch another's status).
 * kubectl shows them Ready; the real scheduler and Job controller run a Job on one of them as a local
 * process whose credentials are a token bound to its pod (SelfSubjectReview says so); a reboot through
 * the host endpoint outlasts the controller-manager's node-monitor grace (20 s here), so the real node
 * lifecycle controller taints the silent node `unreachable:NoExecute`; it comes back with a new bootID.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import {
  attachSim,
  isApiError,
  kubeConfigAs,
  kubeJson,
  nodeIdentity,
  type AttachedSim,
} from '@kubemaint/kubesim/attach';
import { realCluster, type RealCluster } from '../support/real-cluster.js';
import { waitFor } from '../support/sim.js';

const NS = 'sim-attach';
const NODES = ['attach-0', 'attach-1', 'attach-2'];
const FLEET_USER = 'sim-attach-fleet';
// The "image": asks the apiserver who it is, with the credentials its KUBECONFIG holds.
const WHOAMI = `
const fs = require('node:fs'); const https = require('node:https');
const kc = fs.readFileSync(process.env.KUBECONFIG, 'utf8');
const pick = (key) => (new RegExp(key + ': (.+)').exec(kc) || [])[1]?.trim();
const url = new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', pick('server'));
const req = https.request(url, { method: 'POST', ca: Buffer.from(pick('certificate-authority-data'), 'base64'),
  headers: { Authorization: 'Bearer ' + pick('token'), 'Content-Type': 'application/json' } }, (res) => {
  let body = ''; res.on('data', (c) => (body += c));
  res.on('end', () => { console.log(body.replace(/\\s+/g, ' ')); process.exit(res.statusCode === 201 ? 0 : 7); });
});
req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
`;

interface NodeJson {
  spec?: { taints?: { key: string; effect: string }[] };
  status: { conditions: { type: string; status: string }[]; nodeInfo: { bootID: string } };
}

describe('simulated nodes attached to the real control plane', { timeout: 600_000 }, () => {
  let cluster: RealCluster;
  let attached: AttachedSim | undefined;
  let fleetKubeconfig: string;

  const node = (name: string) =>
    JSON.parse(cluster.kubectl(['get', 'node', name, '-o', 'json'])) as NodeJson;
  const ready = (name: string) => node(name).status.conditions.find((c) => c.type === 'Ready');

  before(async () => {
    cluster = await realCluster();
    // The fleet's kubeconfig may impersonate exactly its nodes and their group, and list and watch
    // pods, nothing else.
    fleetKubeconfig = cluster.fleetKubeconfig(FLEET_USER, NODES);
    cluster.kubectl(['create', 'namespace', NS]);
    attached = await attachSim({
      kubeconfig: fleetKubeconfig,
      nodes: 3,
      prefix: 'attach-',
      // A zone of their own: nodes other suites left NotReady in the default zone would put it in
      // partial disruption, where the node lifecycle controller adds no NoExecute taints.
      labels: { 'topology.kubernetes.io/zone': 'sim-attach' },
      images: { 'sim.test/whoami:*': { command: [process.execPath, '-e', WHOAMI] } },
      // Longer than the controller-manager's --node-monitor-grace-period=20s (ADR 0008).
      delays: { rebootDowntimeMs: 40_000 },
    });
  });
  after(async () => {
    await attached?.stop();
    cluster.kubectl(['delete', 'node', ...NODES, '--ignore-not-found']);
    cluster.kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=false']);
  });

  it('kubectl get nodes shows them Ready, with the kubelet version of the server', () => {
    const table = cluster.kubectl(['get', 'nodes', ...NODES, '--no-headers']);
    for (const name of NODES) {
      assert.match(
        table,
        new RegExp(`^${name}\\s+Ready\\s+<none>\\s+\\S+\\s+${cluster.version}`, 'm'),
      );
    }
    const leases = cluster.kubectl([
      'get',
      'lease',
      '-n',
      'kube-node-lease',
      ...NODES,
      '-o',
      'name',
    ]);
    assert.equal(leases.trim().split('\n').length, 3, 'a Lease per node in kube-node-lease');
  });

  it("acts as the node: the Node authorizer refuses it another node's status", async () => {
    const base = new KubeConfig();
    base.loadFromFile(fleetKubeconfig);
    const asNode0 = kubeJson(kubeConfigAs(base, nodeIdentity('attach-0')));
    const own = await asNode0.request<{ metadata: { name: string } }>(
      'GET',
      '/api/v1/nodes/attach-0',
    );
    assert.equal(own.metadata.name, 'attach-0');
    await assert.rejects(
      asNode0.request('PATCH', '/api/v1/nodes/attach-1/status', {
        body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
        contentType: 'application/strategic-merge-patch+json',
      }),
      (error: unknown) =>
        isApiError(error, 'forbidden') &&
        error.status === 403 &&
        /node "attach-0" is not allowed to modify node "attach-1"/.test(error.message),
    );
  });

  it('runs a Job on an attached node as a local process with a pod-bound token; the Job completes', async () => {
    cluster.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'whoami', namespace: NS },
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              nodeSelector: { 'kubernetes.io/hostname': 'attach-1' },
              containers: [{ name: 'whoami', image: 'sim.test/whoami:1' }],
            },
          },
        },
      }),
    });
    await waitFor(
      'Job whoami Complete',
      () =>
        cluster
          .kubectl([
            'get',
            'job',
            'whoami',
            '-n',
            NS,
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Complete")].status}',
          ])
          .trim() === 'True',
      120_000,
    );
    const pod = cluster
      .kubectl([
        'get',
        'pods',
        '-n',
        NS,
        '-l',
        'job-name=whoami',
        '-o',
        'jsonpath={.items[0].metadata.name}',
      ])
      .trim();
    assert.equal(
      cluster.kubectl(['get', 'pod', pod, '-n', NS, '-o', 'jsonpath={.spec.nodeName}']).trim(),
      'attach-1',
      'the real scheduler bound it to the attached node',
    );
    const review = JSON.parse(attached!.admin.logs(NS, pod).trim()) as {
      status: { userInfo: { username: string; extra: Record<string, string[]> } };
    };
    const user = review.status.userInfo;
    assert.equal(user.username, `system:serviceaccount:${NS}:default`);
    assert.deepEqual(user.extra['authentication.kubernetes.io/pod-name'], [pod]);
    assert.deepEqual(user.extra['authentication.kubernetes.io/node-name'], ['attach-1']);
  });

  it('reboots through the host endpoint: the real controller taints it unreachable, it returns with a new bootID', async () => {
    const before = node('attach-2').status.nodeInfo.bootID;
    const answer = await fetch(`${attached!.hostUrl}/_sim/nodes/attach-2/reboot`, {
      method: 'POST',
    });
    assert.equal(answer.status, 202);
    await waitFor(
      'the unreachable NoExecute taint',
      () =>
        (node('attach-2').spec?.taints ?? []).some(
          (t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute',
        ),
      60_000,
    );
    assert.equal(ready('attach-2')?.status, 'Unknown');
    await waitFor('attach-2 Ready again', () => ready('attach-2')?.status === 'True', 240_000);
    const after = node('attach-2').status.nodeInfo.bootID;
    assert.ok(after && after !== before, `a new bootID (${before} → ${after})`);
    await waitFor(
      'the controller lifts the taints',
      () => (node('attach-2').spec?.taints ?? []).length === 0,
      30_000,
    );
  });
});
