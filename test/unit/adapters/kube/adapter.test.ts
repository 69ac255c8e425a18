/**
 * The kube adapter against a loopback node:http server speaking the API's Status errors: error
 * mapping, what is retried (and what is not), Retry-After, merge-patch content type, pagination.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  createKubeClient,
  kubeConfigFor,
  type KubeClient,
} from '../../../../src/adapters/kube/client.js';
import { isKubeError, KubeError } from '../../../../src/adapters/kube/errors.js';
import { createLease, replaceLease } from '../../../../src/adapters/kube/leases.js';
import { getNode, kubeNodesPort } from '../../../../src/adapters/kube/nodes.js';
import { evictPod, listPodsOnNode } from '../../../../src/adapters/kube/pods.js';
import { DEFAULT_RETRY } from '../../../../src/adapters/kube/retry.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}

const status = (
  res: ServerResponse,
  code: number,
  reason: string,
  extra: object = {},
  headers: object = {},
) => {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: `${reason} happened`,
      reason,
      code,
      ...extra,
    }),
  );
};
const json = (res: ServerResponse, code: number, body: object) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

let handler: Handler = (_req, _body, res) => json(res, 200, {});
const seen: Seen[] = [];
const sleeps: number[] = [];
let client: KubeClient;
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({
      method: req.method!,
      url: req.url!,
      contentType: req.headers['content-type'],
      body,
    });
    handler(req, body, res);
  });
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  client = createKubeClient(kubeConfigFor(`http://127.0.0.1:${port}`), {
    ...DEFAULT_RETRY,
    attempts: 3,
    random: () => 0.5,
    sleep: async (ms) => void sleeps.push(ms),
  });
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const reset = (h: Handler) => {
  handler = h;
  seen.length = 0;
  sleeps.length = 0;
};

const node = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: { name: 'n1', uid: 'u1', resourceVersion: '7' },
  status: {
    nodeInfo: { bootID: 'b1', kubeletVersion: 'v1.31.4' },
    conditions: [{ type: 'Ready', status: 'True' }],
  },
};

describe('error mapping', () => {
  const cases = [
    { code: 409, reason: 'Conflict', kind: 'conflict', errorCode: 'conflict' },
    { code: 409, reason: 'AlreadyExists', kind: 'already-exists', errorCode: 'conflict' },
    { code: 403, reason: 'Forbidden', kind: 'forbidden', errorCode: 'unexpected' },
    { code: 422, reason: 'Invalid', kind: 'invalid', errorCode: 'unexpected' },
    { code: 400, reason: 'BadRequest', kind: 'invalid', errorCode: 'unexpected' },
    { code: 410, reason: 'Expired', kind: 'expired', errorCode: 'unexpected' },
  ] as const;
  for (const c of cases) {
    it(`maps ${c.code} ${c.reason} to ${c.kind} without retrying`, async () => {
      reset((_req, _body, res) => status(res, c.code, c.reason));
      const error = await kubeNodesPort(client)
        .setUnschedulable('n1', true)
        .catch((e: unknown) => e);
      assert.ok(error instanceof KubeError, String(error));
      assert.equal(error.kind, c.kind);
      assert.equal(error.code, c.errorCode);
      assert.equal(error.status, c.code);
      assert.match(error.message, /patch node n1: .* happened/);
      assert.equal(seen.length, 1, 'not retried');
    });
  }

  it('maps 404 on a GET to undefined', async () => {
    reset((_req, _body, res) => status(res, 404, 'NotFound'));
    assert.equal(await getNode(client, 'gone'), undefined);
  });

  it('names a forbidden error with a hint about RBAC', async () => {
    reset((_req, _body, res) => status(res, 403, 'Forbidden'));
    const error = (await getNode(client, 'n1').catch((e: unknown) => e)) as KubeError;
    assert.match(error.hint ?? '', /RBAC/);
  });
});

describe('retry', () => {
  it('retries a 429 after its Retry-After, then succeeds', async () => {
    let calls = 0;
    reset((_req, _body, res) =>
      ++calls === 1
        ? status(res, 429, 'TooManyRequests', {}, { 'retry-after': '3' })
        : json(res, 200, node),
    );
    const got = await getNode(client, 'n1');
    assert.equal(got?.bootId, 'b1');
    assert.deepEqual(sleeps, [3_000]);
    assert.equal(seen.length, 2);
  });

  it('retries 503 with jittered backoff and gives up after the attempts', async () => {
    reset((_req, _body, res) => status(res, 503, 'ServiceUnavailable'));
    const error = await getNode(client, 'n1').catch((e: unknown) => e);
    assert.ok(isKubeError(error, 'unavailable'));
    assert.equal(seen.length, 3);
    // random 0.5 of a ceiling 200·2^attempt
    assert.deepEqual(sleeps, [100, 200]);
  });

  it('retries a 403 whose RBAC roles are "not found" (an apiserver just started), and no other 403', async () => {
    const pod = { namespace: 'shop', name: 'web-0', uid: 'pu0' };
    // kube-apiserver's words right after a restart, before its authorizer has read the roles.
    const unsynced =
      'pods "web-0" is forbidden: User "system:serviceaccount:kubemaint:kubemaint-executor" cannot create resource "pods/eviction" in API group "" in the namespace "shop": RBAC: [clusterrole.rbac.authorization.k8s.io "system:discovery" not found, clusterrole.rbac.authorization.k8s.io "kubemaint-executor" not found]';
    let calls = 0;
    reset((_req, _body, res) =>
      ++calls === 1
        ? status(res, 403, 'Forbidden', { message: unsynced })
        : json(res, 201, { kind: 'Status', status: 'Success', code: 201 }),
    );
    assert.deepEqual(await evictPod(client, pod, {}), { outcome: 'evicting' });
    assert.equal(seen.length, 2, 'asked again');

    reset((_req, _body, res) =>
      status(res, 403, 'Forbidden', {
        message:
          'pods "web-0" is forbidden: User "x" cannot create resource "pods/eviction" in API group "" in the namespace "shop"',
      }),
    );
    const refused = await evictPod(client, pod, {});
    assert.equal(refused.outcome, 'failed');
    assert.equal(seen.length, 1, 'a refusal by roles that were read is final');

    reset((_req, _body, res) => status(res, 403, 'Forbidden', { message: unsynced }));
    const still = await evictPod(client, pod, {});
    assert.equal(still.outcome, 'failed', 'a role still missing after the retries fails');
    assert.match((still as { message: string }).message, /"kubemaint-executor" not found/);
    assert.equal(seen.length, 3);
  });

  it('maps a refused connection to unavailable', async () => {
    const dead = createKubeClient(kubeConfigFor('http://127.0.0.1:9'), {
      ...DEFAULT_RETRY,
      attempts: 1,
    });
    const error = await getNode(dead, 'n1').catch((e: unknown) => e);
    assert.ok(isKubeError(error, 'unavailable'), String(error));
  });
});

describe('a write fence', () => {
  let held: string | undefined;
  let fenced: KubeClient;
  before(() => {
    const port = (server.address() as AddressInfo).port;
    fenced = createKubeClient(
      kubeConfigFor(`http://127.0.0.1:${port}`),
      {
        ...DEFAULT_RETRY,
        attempts: 3,
        random: () => 0.5,
        // Leadership ends while the write backs off.
        sleep: async () => void (held = 'this serve does not hold the leader Lease now'),
      },
      { refusal: () => held },
    );
  });

  it('sends writes while open, and reads whatever it says', async () => {
    held = undefined;
    reset((_req, _body, res) => json(res, 200, node));
    await kubeNodesPort(fenced).setUnschedulable('n1', true);
    held = 'held';
    assert.equal((await getNode(fenced, 'n1'))?.bootId, 'b1');
    assert.deepEqual(
      seen.map((s) => s.method),
      ['PATCH', 'GET'],
    );
  });

  it('sends no write while it holds, and names why', async () => {
    held = 'this serve does not hold the leader Lease now';
    reset((_req, _body, res) => json(res, 200, node));
    const error = await kubeNodesPort(fenced)
      .setUnschedulable('n1', true)
      .catch((e: unknown) => e);
    assert.ok(isKubeError(error, 'fenced'), String(error));
    assert.match(
      error.message,
      /PATCH \/api\/v1\/nodes\/n1 not sent: this serve does not hold the leader Lease now/,
    );
    assert.equal(seen.length, 0);
  });

  it('asks again before each retry: a write that began while open is not sent again once it holds', async () => {
    held = undefined;
    reset((_req, _body, res) => status(res, 503, 'ServiceUnavailable'));
    const error = await kubeNodesPort(fenced)
      .setUnschedulable('n1', true)
      .catch((e: unknown) => e);
    assert.ok(isKubeError(error, 'fenced'), String(error));
    assert.equal(seen.length, 1, 'the first attempt only');
  });
});

describe('writes', () => {
  it('patches nodes as a merge patch carrying the resourceVersion it read', async () => {
    reset((_req, _body, res) => json(res, 200, node));
    await kubeNodesPort(client).writeNodeMeta('n1', '7', {
      annotations: { a: 'b' },
      labels: { c: null },
    });
    assert.equal(seen[0]?.method, 'PATCH');
    assert.equal(seen[0]?.contentType, 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(seen[0].body), {
      metadata: { annotations: { a: 'b' }, labels: { c: null }, resourceVersion: '7' },
    });
  });

  it('uncordons with null, as kubectl does', async () => {
    reset((_req, _body, res) => json(res, 200, node));
    await kubeNodesPort(client).setUnschedulable('n1', false);
    assert.deepEqual(JSON.parse(seen[0]!.body), { spec: { unschedulable: null } });
  });

  it('writes Lease times with six fractional digits and the resourceVersion', async () => {
    reset((_req, body, res) =>
      json(res, 200, {
        ...(JSON.parse(body) as object),
        metadata: { name: 's', resourceVersion: '9' },
      }),
    );
    const at = new Date('2026-11-22T01:02:03.456Z');
    await replaceLease(client, 'kubemaint', 's', '8', {
      holder: 'n1/r-1',
      durationSeconds: 60,
      acquiredAt: at,
      renewedAt: at,
      transitions: 2,
    });
    const sent = JSON.parse(seen[0]!.body) as {
      metadata: { resourceVersion: string };
      spec: { renewTime: string };
    };
    assert.equal(sent.metadata.resourceVersion, '8');
    assert.equal(sent.spec.renewTime, '2026-11-22T01:02:03.456000Z');
  });

  it('turns AlreadyExists on a Lease create into a conflict', async () => {
    reset((_req, _body, res) => status(res, 409, 'AlreadyExists'));
    const at = new Date();
    const error = await createLease(client, 'kubemaint', 's', {
      holder: 'x/y',
      durationSeconds: 1,
      acquiredAt: at,
      renewedAt: at,
      transitions: 0,
    }).catch((e: unknown) => e);
    assert.ok(isKubeError(error, 'conflict'));
  });
});

describe('evictions', () => {
  const pod = { namespace: 'shop', name: 'api-1', uid: 'pu1' };
  const pdb = {
    details: {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget api-pdb needs 2 healthy pods and has 2 currently',
        },
      ],
    },
  };

  it('posts a policy/v1 Eviction with a UID precondition', async () => {
    reset((_req, _body, res) => json(res, 201, { kind: 'Status', status: 'Success', code: 201 }));
    assert.deepEqual(await evictPod(client, pod, { gracePeriodSeconds: 10 }), {
      outcome: 'evicting',
    });
    assert.equal(seen[0]?.url, '/api/v1/namespaces/shop/pods/api-1/eviction');
    const body = JSON.parse(seen[0].body) as { apiVersion: string; deleteOptions: object };
    assert.equal(body.apiVersion, 'policy/v1');
    assert.deepEqual(body.deleteOptions, { preconditions: { uid: 'pu1' }, gracePeriodSeconds: 10 });
  });

  it('returns a PDB refusal at once, without retrying it', async () => {
    reset((_req, _body, res) => status(res, 429, 'TooManyRequests', pdb));
    const result = await evictPod(client, pod, {});
    assert.deepEqual(result, {
      outcome: 'refused',
      message: pdb.details.causes[0]!.message,
      pdbBlocked: true,
    });
    assert.equal(seen.length, 1);
  });

  it('treats a missing pod as gone and a multi-PDB 500 as failed', async () => {
    reset((_req, _body, res) => status(res, 404, 'NotFound'));
    assert.deepEqual(await evictPod(client, pod, {}), { outcome: 'gone' });
    reset((_req, _body, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          status: 'Failure',
          code: 500,
          message:
            'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        }),
      );
    });
    const result = await evictPod(client, pod, {});
    assert.equal(result.outcome, 'failed');
    assert.equal(seen.length, 1, 'a 500 without a reason is not an outage: not retried');
  });

  it('answers unavailable, not failed, when the apiserver is down past the retries (a restart)', async () => {
    const dead = createKubeClient(kubeConfigFor('http://127.0.0.1:9'), {
      ...DEFAULT_RETRY,
      attempts: 2,
      sleep: async () => undefined,
    });
    const result = await evictPod(dead, pod, {});
    assert.equal(result.outcome, 'unavailable');
    assert.match(
      (result as { message: string }).message,
      /^evict pod shop\/api-1: (ECONNREFUSED|connection failed)$/,
    );
  });

  it('answers unavailable for an outage 5xx (etcd away) after retrying it', async () => {
    reset((_req, _body, res) => status(res, 503, 'ServiceUnavailable'));
    const result = await evictPod(client, pod, {});
    assert.equal(result.outcome, 'unavailable');
    assert.equal(seen.length, 3, 'retried by the adapter first');
  });
});

describe('pagination', () => {
  it('follows continue tokens with the node field selector', async () => {
    reset((req, _body, res) => {
      const url = new URL(req.url!, 'http://x');
      const page = url.searchParams.get('continue') ?? '0';
      const next = page === '0' ? '1' : page === '1' ? '2' : '';
      json(res, 200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { continue: next },
        items: [
          {
            metadata: { name: `p${page}`, namespace: 'd', uid: page },
            spec: { nodeName: 'n1', containers: [] },
          },
        ],
      });
    });
    const pods = await listPodsOnNode(client, 'n1');
    assert.deepEqual(
      pods.map((p) => p.name),
      ['p0', 'p1', 'p2'],
    );
    const first = new URL(seen[0]!.url, 'http://x');
    assert.equal(first.searchParams.get('fieldSelector'), 'spec.nodeName=n1');
    assert.equal(first.searchParams.get('limit'), '500');
  });

  it('restarts the list once when a continue token expired', async () => {
    let calls = 0;
    reset((req, _body, res) => {
      calls++;
      const cont = new URL(req.url!, 'http://x').searchParams.get('continue');
      if (cont === 'old') return status(res, 410, 'Expired');
      json(res, 200, {
        kind: 'PodList',
        metadata: { continue: calls === 1 ? 'old' : '' },
        items: [
          {
            metadata: { name: `p${calls}`, namespace: 'd', uid: String(calls) },
            spec: { containers: [] },
          },
        ],
      });
    });
    const pods = await listPodsOnNode(client, 'n1');
    assert.deepEqual(
      pods.map((p) => p.name),
      ['p3'],
    );
  });
});
