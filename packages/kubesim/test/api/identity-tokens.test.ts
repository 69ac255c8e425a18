/**
 * Who the sim's API says a request is: impersonation headers on the admin token (recorded in the
 * audit log as the impersonated user), refused for anyone else; the TokenRequest API minting pod-bound
 * service-account tokens with kube-apiserver 1.34's checks and messages (a node only for pods bound to
 * it), tokens that log in as their service account until their pod is gone; and a uid in a patch that
 * names another object refused.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startSimApi, type SimApi } from '../support.js';
import { R } from '../../src/types.js';

interface Answer {
  code: number;
  body: Record<string, unknown>;
}

const NODE_A = { 'Impersonate-User': 'system:node:node-a', 'Impersonate-Group': 'system:nodes' };

describe('sim API: identities, impersonation and the TokenRequest API', () => {
  let sim: SimApi;
  let podUid = '';

  /** One raw request with the admin token (or `token`) and extra headers. */
  const call = (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; token?: string } = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      const req = request(
        new URL(path, sim.api.url),
        {
          method,
          ca: sim.api.caPem,
          headers: {
            Authorization: `Bearer ${options.token ?? sim.api.token}`,
            'User-Agent': 'identity-test',
            'Content-Type':
              method === 'PATCH' ? 'application/strategic-merge-patch+json' : 'application/json',
            ...options.headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve({
              code: res.statusCode ?? 0,
              body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const tokenRequest = (sa: string, spec: Record<string, unknown>, headers = {}) =>
    call('POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
      headers,
    });

  before(async () => {
    sim = await startSimApi();
    const actor = { actor: 'test/setup' };
    sim.store.create(
      R.serviceaccounts,
      { metadata: { name: 'runner', namespace: 'default' } },
      actor,
    );
    sim.store.create(R.nodes, { metadata: { name: 'node-a' } }, actor);
    const pod = sim.store.create(
      R.pods,
      {
        metadata: { name: 'job-pod', namespace: 'default' },
        spec: {
          nodeName: 'node-a',
          serviceAccountName: 'runner',
          containers: [{ name: 'c', image: 'x' }],
        },
      },
      actor,
    );
    podUid = pod.metadata.uid ?? '';
    // What the tests write as the node and as the service account, granted as a real cluster needs it.
    const rbac = 'rbac.authorization.k8s.io';
    sim.store.create(
      `clusterroles.${rbac}`,
      {
        metadata: { name: 'identity-test' },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
        ],
      },
      actor,
    );
    sim.store.create(
      `clusterrolebindings.${rbac}`,
      {
        metadata: { name: 'identity-test' },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'identity-test' },
        subjects: [
          { apiGroup: rbac, kind: 'Group', name: 'system:nodes' },
          { kind: 'ServiceAccount', name: 'runner', namespace: 'default' },
        ],
      },
      actor,
    );
  });
  after(async () => sim.close());

  it('records an impersonated write as the impersonated user, the admin token as itself', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'as-node' } },
      headers: NODE_A,
    });
    assert.equal(created.code, 201);
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'as-admin' } },
    });
    const actors = Object.fromEntries(
      sim.store
        .audit()
        .filter((e) => e.resource === R.configmaps)
        .map((e) => [e.name, e.actor]),
    );
    assert.equal(actors['as-node'], 'http:identity-test as system:node:node-a');
    assert.equal(actors['as-admin'], 'http:identity-test');
  });

  it('refuses a group without a user as kube-apiserver does (500)', async () => {
    const answer = await call('GET', '/api/v1/nodes', {
      headers: { 'Impersonate-Group': 'system:nodes' },
    });
    assert.equal(answer.code, 500);
    assert.match(String(answer.body['message']), /without impersonating a user/);
  });

  it('mints a pod-bound token for a node, which logs in as the service account', async () => {
    const answer = await tokenRequest(
      'runner',
      { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'job-pod', uid: podUid } },
      NODE_A,
    );
    assert.equal(answer.code, 201, JSON.stringify(answer.body));
    const status = answer.body['status'] as { token: string; expirationTimestamp: string };
    const claims = JSON.parse(Buffer.from(status.token.split('.')[1]!, 'base64url').toString()) as {
      sub: string;
      'kubernetes.io': { pod: { uid: string }; node: { name: string } };
    };
    assert.equal(claims.sub, 'system:serviceaccount:default:runner');
    assert.equal(claims['kubernetes.io'].pod.uid, podUid);
    assert.equal(claims['kubernetes.io'].node.name, 'node-a');

    const write = await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'by-token' } },
      token: status.token,
    });
    assert.equal(write.code, 201);
    const entry = sim.store.audit().find((e) => e.name === 'by-token');
    assert.equal(entry?.actor, 'http:identity-test as system:serviceaccount:default:runner');

    const impersonating = await call('GET', '/api/v1/nodes', {
      token: status.token,
      headers: NODE_A,
    });
    assert.equal(impersonating.code, 403, 'a service account may not impersonate');
    assert.match(String(impersonating.body['message']), /cannot impersonate resource "users"/);
  });

  it('refuses a node a token for a pod that is not its own, or not bound to a pod at all', async () => {
    const other = await tokenRequest(
      'runner',
      { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'job-pod', uid: podUid } },
      { 'Impersonate-User': 'system:node:node-b', 'Impersonate-Group': 'system:nodes' },
    );
    assert.equal(other.code, 403);
    assert.match(
      String(other.body['message']),
      /no relationship found between node 'node-b' and this object/,
    );
    const unbound = await tokenRequest('runner', {}, NODE_A);
    assert.equal(unbound.code, 403);
    assert.equal(
      unbound.body['message'],
      'serviceaccounts "runner" is forbidden: node requested token not bound to a pod',
    );
    const stale = await tokenRequest(
      'runner',
      { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'job-pod', uid: 'old-uid' } },
      NODE_A,
    );
    assert.equal(stale.code, 403);
    assert.match(String(stale.body['message']), /does not match the UID in record/);
  });

  it('checks the bound pod and the service account as kube-apiserver does', async () => {
    const ref = { kind: 'Pod', apiVersion: 'v1', name: 'job-pod', uid: podUid };
    const cases: [string, Record<string, unknown>, number, RegExp][] = [
      ['default', { boundObjectRef: ref }, 404, /serviceaccounts "default" not found/],
      ['runner', { boundObjectRef: { ...ref, uid: 'x' } }, 409, /Operation cannot be fulfilled/],
      ['runner', { boundObjectRef: { ...ref, name: 'ghost' } }, 404, /pods "ghost" not found/],
      ['runner', { expirationSeconds: 60 }, 422, /less than 10 minutes/],
    ];
    for (const [sa, spec, code, message] of cases) {
      const answer = await tokenRequest(sa, spec);
      assert.equal(answer.code, code, `${sa} ${JSON.stringify(spec)}`);
      assert.match(String(answer.body['message']), message);
    }
    sim.store.create(R.serviceaccounts, { metadata: { name: 'default', namespace: 'default' } });
    const wrongSa = await tokenRequest('default', { boundObjectRef: ref });
    assert.equal(wrongSa.code, 400);
    assert.match(String(wrongSa.body['message']), /pod running with different serviceaccount/);
  });

  it('stops honouring a pod-bound token once its pod is gone', async () => {
    const pod = sim.store.create(R.pods, {
      metadata: { name: 'short-lived', namespace: 'default' },
      spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'x' }] },
    });
    const answer = await tokenRequest('runner', {
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'short-lived', uid: pod.metadata.uid },
    });
    const token = (answer.body['status'] as { token: string }).token;
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods', { token })).code, 200);
    sim.store.delete(R.pods, 'default', 'short-lived');
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods', { token })).code, 401);
  });

  it('refuses a status patch whose metadata.uid names another pod (422), as a kubelet relies on', async () => {
    const path = '/api/v1/namespaces/default/pods/job-pod/status';
    const wrong = await call('PATCH', path, {
      body: { metadata: { uid: 'another-pod' }, status: { phase: 'Running' } },
    });
    assert.equal(wrong.code, 422);
    assert.match(String(wrong.body['message']), /metadata\.uid: Invalid value: "another-pod"/);
    const right = await call('PATCH', path, {
      body: { metadata: { uid: podUid }, status: { phase: 'Running' } },
    });
    assert.equal(right.code, 200);
  });
});
