/**
 * The pure pieces of attach mode and what it shares with the embedded kubelets: the status patch an
 * attached kubelet sends, resourceVersion ordering, impersonation as the sim's API applies it, the
 * Node it registers, the nodeInfo it starts from, and which ConfigMaps and Secrets a container needs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNotOlder, statusPatch } from '../../src/attach/status-patch.js';
import { impersonate, nodeNameOf, SIM_ADMIN } from '../../src/api/identity.js';
import { createAuthorizer } from '../../src/authz/index.js';
import { createStore } from '../../src/store.js';
import { envSources, resolveEnv } from '../../src/jobs-runner-env.js';
import { initialNodeInfo } from '../../src/kubelet-node-status.js';
import { ATTACHED_KUBELET_ANNOTATION, registeredNode } from '../../src/kubelet-objects.js';
import type { StatusError } from '../../src/types.js';

describe('statusPatch', () => {
  it('sends only what changed, and null for what the kubelet dropped', () => {
    const before = { phase: 'Pending', reason: 'Unschedulable', startTime: 't0', qosClass: 'X' };
    const after = { phase: 'Running', startTime: 't0', qosClass: 'X' };
    assert.deepEqual(statusPatch(before, after), { phase: 'Running', reason: null });
  });

  it('replaces podIPs and hostIPs whole, and lets conditions merge by type', () => {
    const conditions = [{ type: 'Ready', status: 'True' }];
    const patch = statusPatch(
      { podIPs: [{ ip: '10.64.0.2' }], conditions: [] },
      { podIPs: [{ ip: '10.64.0.3' }], conditions },
    );
    assert.deepEqual(patch['podIPs'], [{ ip: '10.64.0.3' }, { $patch: 'replace' }]);
    assert.deepEqual(patch['conditions'], conditions);
  });

  it("sends only the conditions that changed: another writer's, kept or removed, are not sent back", () => {
    const ready = { type: 'Ready', status: 'True', lastHeartbeatTime: 't0' };
    // An admin tool's condition (KEP-5683) the kubelet's copy still has, the server maybe not.
    const drained = { type: 'Drained', status: 'True', reason: 'DrainCompleted' };
    const beat = { ...ready, lastHeartbeatTime: 't1' };
    assert.deepEqual(
      statusPatch({ conditions: [ready, drained] }, { conditions: [beat, drained] }),
      {
        conditions: [beat],
      },
    );
  });

  it("sends null for a condition's field the kubelet dropped, which a merge by type would keep", () => {
    const patch = statusPatch(
      { conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }] },
      { conditions: [{ type: 'Ready', status: 'True' }] },
    );
    assert.deepEqual(patch['conditions'], [{ type: 'Ready', status: 'True', reason: null }]);
  });

  it('is empty when nothing changed, and whole for a status the server has not got yet', () => {
    assert.deepEqual(statusPatch({ phase: 'Running' }, { phase: 'Running' }), {});
    assert.deepEqual(statusPatch(undefined, { phase: 'Running' }), { phase: 'Running' });
  });
});

describe('isNotOlder', () => {
  it('orders integer resourceVersions numerically, not as text', () => {
    assert.equal(isNotOlder('10', '9'), true);
    assert.equal(isNotOlder('9', '10'), false);
    assert.equal(isNotOlder('12', '12'), true);
  });

  it('takes anything opaque or missing as new, as an informer does', () => {
    assert.equal(isNotOlder('abc', '10'), true);
    assert.equal(isNotOlder(undefined, '10'), true);
  });
});

describe('impersonate (the sim API)', () => {
  const asNode = { 'impersonate-user': 'system:node:n1', 'impersonate-group': 'system:nodes' };
  // No RBAC objects: only system:masters (the privileged-group authorizer) may impersonate.
  const authz = createAuthorizer(createStore({ now: () => new Date() }));

  it('makes the administrator the impersonated node, authenticated', () => {
    const user = impersonate(SIM_ADMIN, asNode, authz);
    assert.equal(user.username, 'system:node:n1');
    assert.deepEqual(user.groups, ['system:nodes', 'system:authenticated']);
    assert.equal(nodeNameOf(user), 'n1');
  });

  it('leaves a request without headers as its caller', () => {
    assert.equal(impersonate(SIM_ADMIN, {}, authz), SIM_ADMIN);
  });

  it('refuses groups without a user (500) and anyone RBAC does not let impersonate (403)', () => {
    assert.throws(
      () => impersonate(SIM_ADMIN, { 'impersonate-group': 'system:nodes' }, authz),
      (e: StatusError) => e.code === 500 && /without impersonating a user/.test(e.message),
    );
    const account = { username: 'system:serviceaccount:ns:sa', groups: ['system:authenticated'] };
    assert.throws(
      () => impersonate(account, asNode, authz),
      (e: StatusError) => e.code === 403 && /cannot impersonate resource "users"/.test(e.message),
    );
  });

  it('is a node only in group system:nodes', () => {
    assert.equal(nodeNameOf({ username: 'system:node:n1', groups: [] }), undefined);
  });
});

describe('what an attached kubelet registers and starts from', () => {
  it('registers its Node with the kubelet labels, the caller labels, and the attached annotation', () => {
    const node = registeredNode('sim-node-0', { 'topology.kubernetes.io/zone': 'z1' });
    assert.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'sim-node-0');
    assert.equal(node.metadata.labels?.['topology.kubernetes.io/zone'], 'z1');
    assert.equal(node.metadata.annotations?.[ATTACHED_KUBELET_ANNOTATION], 'attached');
    assert.equal(node.status, undefined, 'the kubelet reports the rest once it runs');
  });

  it('registers the pods it takes when started with max pods, as capacity and allocatable', () => {
    const node = registeredNode('sim-node-0', {}, 300);
    assert.deepEqual(node.status, { capacity: { pods: '300' }, allocatable: { pods: '300' } });
  });

  it('ignores the empty nodeInfo a fresh Node reads back with, keeps what a scenario set', () => {
    const fresh = initialNodeInfo(
      { metadata: { name: 'n' }, status: { nodeInfo: { bootID: '', kubeletVersion: '' } } },
      'v1.34.4',
    );
    assert.equal(fresh.kubeletVersion, 'v1.34.4');
    assert.match(fresh.bootID, /^[0-9a-f-]{36}$/);
    const seeded = initialNodeInfo(
      { metadata: { name: 'n' }, status: { nodeInfo: { kubeletVersion: 'v1.33.7' } } },
      'v1.34.4',
    );
    assert.equal(seeded.kubeletVersion, 'v1.33.7');
  });

  it('names each ConfigMap and Secret a container env refers to, once', () => {
    const sources = envSources({
      name: 'c',
      env: [
        { name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'a' } } },
        { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm', key: 'b' } } },
        { name: 'C', valueFrom: { secretKeyRef: { name: 'cm', key: 'c' } } },
        { name: 'D', value: 'plain' },
        { name: 'E', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      ],
    });
    assert.deepEqual(sources, [
      { kind: 'configmap', name: 'cm' },
      { kind: 'secret', name: 'cm' },
    ]);
  });

  it('names those an envFrom takes whole, too', () => {
    const sources = envSources({
      name: 'c',
      envFrom: [{ secretRef: { name: 'slack' } }, { configMapRef: { name: 'cm' }, prefix: 'X_' }],
      env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'a' } } }],
    });
    assert.deepEqual(sources, [
      { kind: 'secret', name: 'slack' },
      { kind: 'configmap', name: 'cm' },
    ]);
  });
});

describe('resolveEnv with envFrom', () => {
  const pod = { metadata: { name: 'p', namespace: 'ns' } };
  const objects: Record<string, Record<string, string>> = {
    'secret/slack': { SLACK_BOT_TOKEN: Buffer.from('xoxb-1').toString('base64') },
    'configmap/cm': { A: 'from-cm', 'not a name': 'x' },
    'secret/empty': {},
  };
  const lookup = (kind: string, _ns: string | undefined, name: string) =>
    objects[`${kind}/${name}`];

  it('takes every key (Secret values decoded, a prefix before each), env winning a name both give', () => {
    const env = resolveEnv(lookup, pod, {
      name: 'c',
      envFrom: [{ secretRef: { name: 'slack' } }, { configMapRef: { name: 'cm' }, prefix: 'CM_' }],
      env: [{ name: 'CM_A', value: 'from-env' }],
    });
    assert.deepEqual(env, { SLACK_BOT_TOKEN: 'xoxb-1', CM_A: 'from-env' });
  });

  it('an empty Secret adds nothing; a missing one stops the container unless optional', () => {
    assert.deepEqual(
      resolveEnv(lookup, pod, { name: 'c', envFrom: [{ secretRef: { name: 'empty' } }] }),
      {},
    );
    assert.throws(
      () => resolveEnv(lookup, pod, { name: 'c', envFrom: [{ secretRef: { name: 'gone' } }] }),
      /secret "gone" not found \(envFrom\)/,
    );
    assert.deepEqual(
      resolveEnv(lookup, pod, {
        name: 'c',
        envFrom: [{ secretRef: { name: 'gone', optional: true } }],
      }),
      {},
    );
  });
});
