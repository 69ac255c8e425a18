/**
 * `attachSim` against the embedded sim's own HTTPS API (the sim plays the apiserver, its controllers
 * the controller-manager): three nodes register as `system:node:<name>`, turn Ready, renew their
 * Leases; a Job pinned to one runs its mapped image as a local process with a token bound to the pod
 * (never the admin's) and Succeeds; a deleted pod's process is stopped and the pod removed by the
 * node; a reboot through the host endpoint takes the node down (unreachable taint) and brings it back
 * with a new bootID. The same suite runs on a real control plane in test/real/sim-attach.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { attachSim, type AttachedSim } from '../../src/attach/index.js';
import { findCondition, type Condition, type Taint } from '../../src/controllers/shapes.js';
import { R, type KObject } from '../../src/types.js';
import { startTestSim, waitFor, type TestSim } from '../support.js';

const NS = 'attach';
const NODES = ['att-0', 'att-1', 'att-2'];
// The "image": reads its KUBECONFIG (server, CA, token) and, as whatever that token is, creates a
// ConfigMap naming itself; prints what it saw; exits 0 if the API took the write.
const PROVE = `
const fs = require('node:fs'); const https = require('node:https');
const kc = fs.readFileSync(process.env.KUBECONFIG, 'utf8');
const pick = (key) => (new RegExp(key + ': (.+)').exec(kc) || [])[1]?.trim();
const token = pick('token');
const url = new URL('/api/v1/namespaces/' + process.env.POD_NAMESPACE + '/configmaps', pick('server'));
const req = https.request(url, { method: 'POST', ca: Buffer.from(pick('certificate-authority-data'), 'base64'),
  headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json', 'User-Agent': 'prove' } },
  (res) => { res.resume(); res.on('end', () => {
    console.log(JSON.stringify({ node: process.env.NODE_NAME, greeting: process.env.GREETING,
      secret: process.env.SECRET, file: fs.readFileSync(process.env.GREETING_FILE, 'utf8'),
      secretFile: fs.readFileSync(process.env.SECRET_DIR + '/pw', 'utf8'), kubeconfig: process.env.KUBECONFIG, jwt: token.startsWith('eyJ'),
      code: res.statusCode }));
    process.exit(res.statusCode === 201 ? 0 : 7); }); });
req.end(JSON.stringify({ metadata: { name: 'proof-' + process.argv.at(-1) } }));
`;
const POLITE = `console.log('started ' + process.pid);
process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(0); });
setInterval(() => {}, 1000);`;

const ready = (node: KObject | undefined) =>
  findCondition(node?.status?.['conditions'] as Condition[] | undefined, 'Ready');
const taints = (node: KObject | undefined) => (node?.spec?.['taints'] ?? []) as Taint[];
const bootId = (node: KObject | undefined) =>
  (node?.status?.['nodeInfo'] as { bootID?: string } | undefined)?.bootID;

describe('sim kubelets attached to an apiserver (the embedded sim)', () => {
  let sim: TestSim;
  let attached: AttachedSim;
  const node = (name: string) => sim.store.get(R.nodes, undefined, name);
  const writesBy = (user: string, resource: string) =>
    sim.store.audit().filter((e) => e.resource === resource && e.actor.endsWith(` as ${user}`));

  before(async () => {
    sim = await startTestSim({ scenario: 'empty', scale: 20 });
    const setup = { actor: 'test/setup' };
    sim.store.create(R.namespaces, { metadata: { name: NS } }, setup);
    // The sim has no serviceaccount controller: make the `default` account a real cluster would have.
    for (const name of ['default', 'runner']) {
      sim.store.create(R.serviceaccounts, { metadata: { name, namespace: NS } }, setup);
    }
    // The PROVE image writes a ConfigMap as the runner account: RBAC must allow it, as on a real cluster.
    const rbac = 'rbac.authorization.k8s.io';
    sim.store.create(
      `roles.${rbac}`,
      {
        metadata: { name: 'prove', namespace: NS },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }],
      },
      setup,
    );
    sim.store.create(
      `rolebindings.${rbac}`,
      {
        metadata: { name: 'prove', namespace: NS },
        roleRef: { apiGroup: rbac, kind: 'Role', name: 'prove' },
        subjects: [{ kind: 'ServiceAccount', name: 'runner', namespace: NS }],
      },
      setup,
    );
    sim.store.create(
      R.configmaps,
      { metadata: { name: 'greetings', namespace: NS }, data: { hello: 'hi from a configmap' } },
      setup,
    );
    sim.store.create(
      R.secrets,
      {
        metadata: { name: 'creds', namespace: NS },
        data: { password: Buffer.from('s3cret').toString('base64') },
      },
      setup,
    );
    attached = await attachSim({
      kubeconfig: sim.kubeconfigPath,
      nodes: 3,
      prefix: 'att-',
      kubeletVersion: 'v1.31.2',
      clock: sim.clock,
      images: {
        'sim.test/prove:*': { command: [process.execPath, '-e', PROVE] },
        'sim.test/polite:*': { command: [process.execPath, '-e', POLITE] },
      },
    });
  });
  after(async () => {
    await attached?.stop();
    await sim?.close();
  });

  it('registers each node as system:node:<name>, Ready, with the nodeInfo its kubelet reports', () => {
    assert.deepEqual(attached.nodes, NODES);
    for (const name of NODES) {
      const n = node(name);
      assert.equal(ready(n)?.status, 'True', `${name} Ready`);
      const info = n?.status?.['nodeInfo'] as Record<string, string>;
      assert.equal(info['kubeletVersion'], 'v1.31.2');
      assert.equal(info['bootID'], attached.admin.host(name).bootID);
      assert.equal(n?.metadata.labels?.['kubernetes.io/hostname'], name);
      const created = writesBy(`system:node:${name}`, R.nodes).find((e) => e.verb === 'create');
      assert.ok(created, `${name} created by its own node identity`);
    }
    // The embedded sim runs no kubelet of its own for an attached node.
    assert.equal(
      sim.store.audit().some((e) => e.actor.startsWith('kubelet/att-')),
      false,
    );
  });

  it('renews each Lease in kube-node-lease as the node, owned by the Node', async () => {
    const lease = () => sim.store.get(R.leases, 'kube-node-lease', 'att-0');
    const first = lease()?.spec?.['renewTime'] as string;
    assert.match(first, /\.\d{6}Z$/, 'MicroTime with six fractional digits');
    assert.equal(lease()?.metadata.ownerReferences?.[0]?.uid, node('att-0')?.metadata.uid);
    await waitFor('a renewal', () => (lease()?.spec?.['renewTime'] as string) > first);
    const renewals = writesBy('system:node:att-0', R.leases).filter((e) => e.verb === 'update');
    assert.ok(renewals.length >= 1, 'renewed by update, as the node');
  });

  it('runs a Job pod bound to an attached node as a local process with a pod-bound token', async () => {
    const job: V1Job = {
      metadata: { name: 'prove' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            nodeName: 'att-1',
            restartPolicy: 'Never',
            serviceAccountName: 'runner',
            containers: [
              {
                name: 'prove',
                image: 'sim.test/prove:1',
                args: ['prove', 'job'],
                env: [
                  {
                    name: 'GREETING',
                    valueFrom: { configMapKeyRef: { name: 'greetings', key: 'hello' } },
                  },
                  {
                    name: 'SECRET',
                    valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } },
                  },
                  // Paths under the volumes' mounts: the local process finds the kubelet's copy.
                  { name: 'GREETING_FILE', value: '/etc/greetings/hello' },
                  { name: 'SECRET_DIR', value: '/var/run/creds/' },
                ],
                volumeMounts: [
                  { name: 'greetings', mountPath: '/etc/greetings', readOnly: true },
                  { name: 'creds', mountPath: '/var/run/creds' },
                ],
              },
            ],
            volumes: [
              { name: 'greetings', configMap: { name: 'greetings' } },
              {
                name: 'creds',
                secret: { secretName: 'creds', items: [{ key: 'password', path: 'pw' }] },
              },
            ],
          },
        },
      },
    };
    await sim.batch.createNamespacedJob({ namespace: NS, body: job });
    const done = await waitFor('Job prove Complete', async () => {
      const j = await sim.batch.readNamespacedJob({ name: 'prove', namespace: NS });
      return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? j
        : undefined;
    });
    assert.equal(done.status?.succeeded, 1);
    const [pod] = sim.store.list(R.pods, { namespace: NS, labelSelector: 'job-name=prove' });
    assert.equal(pod?.status?.['phase'], 'Succeeded');
    const seen = JSON.parse(attached.admin.logs(NS, pod.metadata.name!).trim()) as Record<
      string,
      unknown
    >;
    assert.equal(seen['node'], 'att-1');
    assert.equal(seen['greeting'], 'hi from a configmap', 'ConfigMap env read from the API');
    assert.equal(seen['secret'], 's3cret', 'Secret env read from the API');
    assert.equal(seen['file'], 'hi from a configmap', 'a ConfigMap volume, its mount path rebased');
    assert.equal(seen['secretFile'], 's3cret', 'a Secret volume item, decoded');
    assert.equal(seen['jwt'], true, 'a service-account token, not the admin token');
    assert.notEqual(seen['kubeconfig'], sim.kubeconfigPath);
    const proof = sim.store.audit().find((e) => e.name === 'proof-job');
    assert.equal(proof?.actor, 'http:prove as system:serviceaccount:attach:runner');
    const statusWrites = sim.store
      .audit()
      .filter(
        (e) => e.resource === R.pods && e.subresource === 'status' && e.name === pod?.metadata.name,
      );
    assert.ok(statusWrites.length >= 2);
    assert.ok(statusWrites.every((e) => e.actor.endsWith(' as system:node:att-1')));
  });

  it("stops a deleted pod's process, then removes the pod as the node", async () => {
    await sim.core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'polite' },
        spec: {
          nodeName: 'att-0',
          terminationGracePeriodSeconds: 600,
          containers: [{ name: 'polite', image: 'sim.test/polite:1' }],
        },
      },
    });
    await waitFor('polite running', () => /started \d+/.test(attached.admin.logs(NS, 'polite')));
    await sim.core.deleteNamespacedPod({ name: 'polite', namespace: NS });
    await waitFor('polite removed', () => !sim.store.get(R.pods, NS, 'polite'), 10_000);
    assert.match(attached.admin.logs(NS, 'polite'), /got SIGTERM/);
    const removal = sim.store
      .audit()
      .filter((e) => e.name === 'polite' && e.verb === 'delete')
      .at(-1);
    assert.equal(removal?.actor, 'http:kubemaint-sim-kubelet as system:node:att-0');
  });

  it('reboots through the host endpoint: down, unreachable, back with a new bootID', async () => {
    const before = bootId(node('att-2'));
    const response = await fetch(`${attached.hostUrl}/_sim/nodes/att-2/reboot`, {
      method: 'POST',
    });
    assert.equal(response.status, 202);
    await waitFor('att-2 unreachable', () =>
      taints(node('att-2')).some(
        (t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute',
      ),
    );
    assert.equal(ready(node('att-2'))?.status, 'Unknown');
    await waitFor('att-2 back', () => ready(node('att-2'))?.status === 'True', 15_000);
    const after = bootId(node('att-2'));
    assert.ok(after && after !== before, `new bootID (${before} → ${after})`);
    assert.equal(after, attached.admin.host('att-2').bootID);
    await waitFor('taints lifted', () => taints(node('att-2')).length === 0);
    const rebooted = sim.store
      .list(R.events, { namespace: 'default' })
      .find((e) => e['reason'] === 'Rebooted' && String(e['message']).includes(after));
    assert.ok(rebooted, 'the kubelet recorded a Rebooted Event');
  });

  it('leaves its nodes behind when stopped without cleanup, and they go NotReady', async () => {
    await attached.stop();
    await waitFor('att-0 Unknown', () => ready(node('att-0'))?.status === 'Unknown', 10_000);
    assert.ok(node('att-0'), 'the node stays, as a lost machine would');
  });
});
