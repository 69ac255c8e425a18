/**
 * Who may do what, as kubemaint's attack suite relies on: client-certificate users and ServiceAccount
 * tokens are who they say (SelfSubjectReview, with the pod and node extras of a pod-bound token); RBAC
 * refusals read exactly as kube-apiserver's (cluster scope, namespace, subresource, non-resource
 * path, a binding to a missing role); Roles grant in their namespace only, resourceNames and
 * subresources narrow; impersonation needs the `impersonate` verb; access reviews (kubectl auth
 * can-i) answer from the same authorizer.
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  canI,
  clusterRole,
  clusterRoleBinding,
  created,
  role,
  roleBinding,
  until,
  user,
  userSubject,
  whoami,
} from '../access-fixtures.js';
import { assertStatus, fakeNode, MERGE, STRATEGIC } from '../fixtures.js';

type Obj = Record<string, unknown>;

const cannot = (who: string, verb: string, resource: string, group: string, ns?: string) =>
  `User "${who}" cannot ${verb} resource "${resource}" in API group "${group}" ${
    ns ? `in the namespace "${ns}"` : 'at the cluster scope'
  }`;

async function aNode(b: Backend): Promise<string> {
  const name = b.unique('node');
  await created(b, '/api/v1/nodes', { metadata: { name } });
  return name;
}

export const accessCases: CaseGroup = {
  name: 'Authentication, RBAC and impersonation',
  cases: [
    {
      id: 'RBAC: a user without rights is refused in kube-apiserver words (scope, namespace, subresource, path)',
      async run(b) {
        const ns = await b.namespace();
        const node = await aNode(b);
        const m = user(b, 'mallory', ['conf-devs']);
        const patch = { body: { metadata: { labels: { x: 'y' } } }, contentType: MERGE };
        assertStatus(await m.as.request('PATCH', `/api/v1/nodes/${node}`, patch), {
          code: 403,
          reason: 'Forbidden',
          message: `nodes "${node}" is forbidden: ${cannot(m.name, 'patch', 'nodes', '')}`,
          details: { name: node, kind: 'nodes' },
        });
        assertStatus(await m.as.request('PATCH', `/api/v1/nodes/${node}/status`, patch), {
          code: 403,
          reason: 'Forbidden',
          message: `nodes "${node}" is forbidden: ${cannot(m.name, 'patch', 'nodes/status', '')}`,
        });
        assertStatus(await m.as.request('GET', `/api/v1/namespaces/${ns}/configmaps`), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps is forbidden: ${cannot(m.name, 'list', 'configmaps', '', ns)}`,
          details: { kind: 'configmaps' },
        });
        assertStatus(await m.as.request('DELETE', `/api/v1/namespaces/${ns}/configmaps`), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps is forbidden: ${cannot(m.name, 'deletecollection', 'configmaps', '', ns)}`,
        });
        const lease = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l1`;
        assertStatus(await m.as.request('GET', lease), {
          code: 403,
          reason: 'Forbidden',
          message: `leases.coordination.k8s.io "l1" is forbidden: ${cannot(m.name, 'get', 'leases', 'coordination.k8s.io', ns)}`,
          details: { name: 'l1', group: 'coordination.k8s.io', kind: 'leases' },
        });
        assertStatus(await m.as.request('GET', '/api/v1/nodes?watch=true'), {
          code: 403,
          reason: 'Forbidden',
          message: `nodes is forbidden: ${cannot(m.name, 'watch', 'nodes', '')}`,
        });
        assertStatus(await m.as.request('GET', '/logs'), {
          code: 403,
          reason: 'Forbidden',
          message: `forbidden: User "${m.name}" cannot get path "/logs"`,
          details: {},
        });
        // Discovery and whoami are everyone's (system:discovery, system:basic-user).
        assert.equal((await m.as.request('GET', '/api/v1')).code, 200);
        assert.equal((await whoami(m.as)).code, 201);
      },
    },
    {
      id: 'RBAC: a Role grants in its namespace only, resourceNames and subresources narrow, a missing role is named',
      async run(b) {
        const ns = await b.namespace();
        const other = await b.namespace();
        const node = await aNode(b);
        const d = user(b, 'dave');
        for (const n of [ns, other]) {
          await created(b, `/api/v1/namespaces/${n}/configmaps`, { metadata: { name: 'allowed' } });
        }
        await role(b, ns, 'reader', [
          {
            apiGroups: [''],
            resources: ['configmaps'],
            verbs: ['get'],
            resourceNames: ['allowed'],
          },
        ]);
        await roleBinding(b, ns, 'reader', { kind: 'Role', name: 'reader' }, [userSubject(d.name)]);
        const statusPatcher = b.unique('status');
        await clusterRole(b, statusPatcher, [
          { apiGroups: ['*'], resources: ['nodes/status'], verbs: ['patch'] },
        ]);
        await clusterRoleBinding(b, statusPatcher, statusPatcher, [userSubject(d.name)]);
        const cm = (n: string, name: string) => `/api/v1/namespaces/${n}/configmaps/${name}`;
        await until(200, 'the Role to take effect', () => d.as.request('GET', cm(ns, 'allowed')));
        assertStatus(await d.as.request('GET', cm(ns, 'other')), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps "other" is forbidden: ${cannot(d.name, 'get', 'configmaps', '', ns)}`,
        });
        assertStatus(await d.as.request('GET', cm(other, 'allowed')), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps "allowed" is forbidden: ${cannot(d.name, 'get', 'configmaps', '', other)}`,
        });
        const patch = { body: { metadata: { labels: { x: 'y' } } }, contentType: MERGE };
        await until(200, 'the ClusterRole to take effect', () =>
          d.as.request('PATCH', `/api/v1/nodes/${node}/status`, patch),
        );
        assertStatus(await d.as.request('PATCH', `/api/v1/nodes/${node}`, patch), {
          code: 403,
          reason: 'Forbidden',
          message: `nodes "${node}" is forbidden: ${cannot(d.name, 'patch', 'nodes', '')}`,
        });
        // A binding whose role does not exist grants nothing, and says so in every refusal there.
        const missing = b.unique('missing');
        await roleBinding(b, ns, 'dangling', { kind: 'ClusterRole', name: missing }, [
          userSubject(d.name),
        ]);
        const refused = await until(403, 'the dangling binding to be seen', async () => {
          const reply = await d.as.request('GET', cm(ns, 'other'));
          return String(reply.json['message']).includes('RBAC:') ? reply : { ...reply, code: 0 };
        });
        assertStatus(refused, {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps "other" is forbidden: ${cannot(d.name, 'get', 'configmaps', '', ns)}: RBAC: clusterrole.rbac.authorization.k8s.io "${missing}" not found`,
        });
      },
    },
    {
      id: 'RBAC: a list or watch with fieldSelector metadata.name=X is a request for X (resourceNames allow it)',
      async run(b) {
        const ns = await b.namespace();
        const collection = `/api/v1/namespaces/${ns}/configmaps`;
        for (const name of ['allowed', 'other'])
          await created(b, collection, { metadata: { name } });
        const w = user(b, 'wanda');
        const rule = { apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'] };
        await role(b, ns, 'one-name', [{ ...rule, verbs: ['list', 'watch'] }]);
        await roleBinding(b, ns, 'one-name', { kind: 'Role', name: 'one-name' }, [
          userSubject(w.name),
        ]);
        const list = (selector: string) =>
          w.as.request('GET', `${collection}?fieldSelector=${encodeURIComponent(selector)}`);
        const listed = await until(200, 'the Role to take effect', () =>
          list('metadata.name=allowed'),
        );
        const names = (listed.json['items'] as { metadata: { name: string } }[]).map(
          (i) => i.metadata.name,
        );
        assert.deepEqual(names, ['allowed']);
        // `==`, and an exact name ANDed with another field, name the object too.
        assert.equal((await list('metadata.name==allowed')).code, 200);
        assert.equal((await list(`metadata.name=allowed,metadata.namespace=${ns}`)).code, 200);
        const watched = await w.as.watch(
          `${collection}?watch=1&fieldSelector=${encodeURIComponent('metadata.name=allowed')}`,
          {
            until: (events) => events.some((e) => e.type === 'MODIFIED'),
            onOpen: async () => {
              const patch = { body: { data: { k: 'v' } }, contentType: MERGE };
              await b.request('PATCH', `${collection}/allowed`, patch);
            },
          },
        );
        assert.equal(watched.code, 200);
        assert.ok(
          watched.events.some(
            (e) => e.type === 'MODIFIED' && e.object.metadata?.name === 'allowed',
          ),
          JSON.stringify(watched.events.map((e) => e.type)),
        );
        // Another name is a request for that object; no name or a `!=` is one for the collection.
        assertStatus(await list('metadata.name=other'), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps "other" is forbidden: ${cannot(w.name, 'list', 'configmaps', '', ns)}`,
          details: { name: 'other', kind: 'configmaps' },
        });
        assertStatus(await list('metadata.name!=other'), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps is forbidden: ${cannot(w.name, 'list', 'configmaps', '', ns)}`,
        });
        assertStatus(await w.as.request('GET', `${collection}?watch=1`), {
          code: 403,
          reason: 'Forbidden',
          message: `configmaps is forbidden: ${cannot(w.name, 'watch', 'configmaps', '', ns)}`,
        });
      },
    },
    {
      id: 'RBAC escalation: a Role or binding may grant only what its writer holds, unless escalate or bind',
      async run(b) {
        const ns = await b.namespace();
        const g = user(b, 'gina');
        await role(b, ns, 'rbac-writer', [
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['roles', 'rolebindings'],
            verbs: ['create'],
          },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
        ]);
        await roleBinding(b, ns, 'rbac-writer', { kind: 'Role', name: 'rbac-writer' }, [
          userSubject(g.name),
        ]);
        const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
        const bindings = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
        const held = await until(201, 'the writer Role to take effect', () =>
          g.as.request('POST', roles, {
            body: {
              metadata: { name: 'held' },
              rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
            },
          }),
        );
        assert.equal(held.code, 201);
        const groups = '["system:authenticated"]';
        assertStatus(
          await g.as.request('POST', roles, {
            body: {
              metadata: { name: 'more' },
              rules: [
                { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'delete', 'watch'] },
                { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
              ],
            },
          }),
          {
            code: 403,
            reason: 'Forbidden',
            message: `roles.rbac.authorization.k8s.io "more" is forbidden: user "${g.name}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete" "watch"]}\n{APIGroups:[""], Resources:["pods"], Verbs:["list"]}`,
            details: { name: 'more', group: 'rbac.authorization.k8s.io', kind: 'roles' },
          },
        );
        const bind = (name: string, roleRef: Obj) =>
          g.as.request('POST', bindings, {
            body: {
              metadata: { name },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
              subjects: [userSubject(g.name)],
            },
          });
        assertStatus(await bind('admin', { kind: 'ClusterRole', name: 'cluster-admin' }), {
          code: 403,
          reason: 'Forbidden',
          message: `rolebindings.rbac.authorization.k8s.io "admin" is forbidden: user "${g.name}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
        });
        assert.equal((await bind('held', { kind: 'Role', name: 'held' })).code, 201);
        // With `escalate` on roles, the same Role goes through.
        await role(b, ns, 'escalator', [
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] },
        ]);
        await roleBinding(b, ns, 'escalator', { kind: 'Role', name: 'escalator' }, [
          userSubject(g.name),
        ]);
        await until(201, 'escalate to take effect', () =>
          g.as.request('POST', roles, {
            body: {
              metadata: { name: 'more' },
              rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
            },
          }),
        );
      },
    },
    {
      id: 'Impersonation: refused without the impersonate verb (users, groups, serviceaccounts); granted, the request acts as them',
      async run(b) {
        const ns = await b.namespace();
        const eve = user(b, 'eve');
        const bob = b.unique('bob');
        assertStatus(await whoami(eve.as, { 'Impersonate-User': bob }), {
          code: 403,
          reason: 'Forbidden',
          message: `users "${bob}" is forbidden: ${cannot(eve.name, 'impersonate', 'users', '')}`,
          details: { name: bob, kind: 'users' },
        });
        assertStatus(
          await whoami(eve.as, { 'Impersonate-User': `system:serviceaccount:${ns}:robot` }),
          {
            code: 403,
            reason: 'Forbidden',
            message: `serviceaccounts "robot" is forbidden: ${cannot(eve.name, 'impersonate', 'serviceaccounts', '', ns)}`,
          },
        );
        const grant = b.unique('imp');
        await clusterRole(b, grant, [
          { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: [bob] },
          {
            apiGroups: [''],
            resources: ['groups'],
            verbs: ['impersonate'],
            resourceNames: ['conf-g1'],
          },
        ]);
        await clusterRoleBinding(b, grant, grant, [userSubject(eve.name)]);
        const asBob = await until(201, 'the impersonation grant', () =>
          whoami(eve.as, { 'Impersonate-User': bob, 'Impersonate-Group': 'conf-g1' }),
        );
        assert.deepEqual((asBob.json['status'] as Obj)['userInfo'], {
          username: bob,
          groups: ['conf-g1', 'system:authenticated'],
        });
        assertStatus(
          await whoami(eve.as, { 'Impersonate-User': bob, 'Impersonate-Group': 'conf-g2' }),
          {
            code: 403,
            reason: 'Forbidden',
            message: `groups "conf-g2" is forbidden: ${cannot(eve.name, 'impersonate', 'groups', '')}`,
          },
        );
        // Acting as bob, the request has bob's rights (none), not eve's.
        assertStatus(
          await eve.as.request('GET', `/api/v1/namespaces/${ns}/pods`, {
            headers: { 'Impersonate-User': bob },
          }),
          {
            code: 403,
            reason: 'Forbidden',
            message: `pods is forbidden: ${cannot(bob, 'list', 'pods', '', ns)}`,
          },
        );
      },
    },
    {
      id: 'Node authorizer and NodeRestriction: a node changes only its own Node, its pods and its Lease',
      async run(b) {
        const ns = await b.namespace();
        const n1 = await aNode(b);
        const n2 = await aNode(b);
        const asN1 = {
          'Impersonate-User': `system:node:${n1}`,
          'Impersonate-Group': 'system:nodes',
        };
        const send = (method: string, path: string, body?: Obj, contentType = MERGE) =>
          b.request(method, path, {
            ...(body ? { body, contentType } : {}),
            headers: asN1,
          });
        const labels = (l: Obj) => ({ metadata: { labels: l } });
        assertStatus(await send('PATCH', `/api/v1/nodes/${n2}`, labels({ a: 'b' })), {
          code: 403,
          reason: 'Forbidden',
          message: `nodes "${n2}" is forbidden: node "${n1}" is not allowed to modify node "${n2}"`,
          details: { name: n2, kind: 'nodes' },
        });
        assert.equal(
          (await send('PATCH', `/api/v1/nodes/${n1}`, labels({ 'kubemaint.io/x': 'y' }))).code,
          200,
        );
        assertStatus(
          await send('PATCH', `/api/v1/nodes/${n1}`, labels({ 'foo.kubernetes.io/x': 'y' })),
          {
            code: 403,
            reason: 'Forbidden',
            message: `nodes "${n1}" is forbidden: is not allowed to modify labels: foo.kubernetes.io/x`,
          },
        );
        const taint = { spec: { taints: [{ key: 'conf', value: 'x', effect: 'NoSchedule' }] } };
        assertStatus(await send('PATCH', `/api/v1/nodes/${n1}`, taint), {
          code: 403,
          reason: 'Forbidden',
          message: `nodes "${n1}" is forbidden: node "${n1}" is not allowed to modify taints`,
        });
        await created(b, `/api/v1/namespaces/${ns}/pods`, {
          metadata: { name: 'theirs' },
          spec: {
            nodeName: n2,
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        });
        const status = { status: { conditions: [{ type: 'Ready', status: 'False' }] } };
        assertStatus(
          await send('PATCH', `/api/v1/namespaces/${ns}/pods/theirs/status`, status, STRATEGIC),
          {
            code: 403,
            reason: 'Forbidden',
            message: `pods "theirs" is forbidden: node "${n1}" can only update pod status for pods with spec.nodeName set to itself`,
          },
        );
        assertStatus(await send('DELETE', `/api/v1/namespaces/${ns}/pods/theirs`), {
          code: 403,
          reason: 'Forbidden',
          message: `pods "theirs" is forbidden: node "${n1}" can only delete pods with spec.nodeName set to itself`,
        });
        const pod = {
          metadata: { name: 'mine' },
          spec: {
            nodeName: n1,
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        };
        assertStatus(await send('POST', `/api/v1/namespaces/${ns}/pods`, pod, 'application/json'), {
          code: 403,
          reason: 'Forbidden',
          message: `pods "mine" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "${n1}" can only create mirror pods`,
        });
        const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
        assertStatus(await send('GET', `${leases}/${n2}`), {
          code: 403,
          reason: 'Forbidden',
          message: `leases.coordination.k8s.io "${n2}" is forbidden: ${cannot(`system:node:${n1}`, 'get', 'leases', 'coordination.k8s.io', 'kube-node-lease')}: can only access node lease with the same name as the requesting node`,
        });
        const lease = { metadata: { name: n2 }, spec: { holderIdentity: n1 } };
        assertStatus(await send('POST', leases, lease, 'application/json'), {
          code: 403,
          reason: 'Forbidden',
          message: `leases.coordination.k8s.io "${n2}" is forbidden: can only access node lease with the same name as the requesting node`,
        });
      },
    },
    {
      id: 'SelfSubjectReview (kubectl auth whoami): a client certificate, a ServiceAccount token, a pod-bound token',
      async run(b) {
        const ns = await b.namespace();
        const u = user(b, 'carol', ['conf-a', 'conf-b']);
        const me = await whoami(u.as);
        assert.equal(me.code, 201, me.text);
        const mine = (me.json['status'] as { userInfo: Obj }).userInfo;
        assert.equal(mine['username'], u.name);
        assert.deepEqual(mine['groups'], ['conf-a', 'conf-b', 'system:authenticated']);
        // The certificate is the credential: named by its SHA-256 (kube-apiserver 1.34).
        const id = (mine['extra'] as Record<string, string[]>)[
          'authentication.kubernetes.io/credential-id'
        ];
        assert.match(id?.[0] ?? '', /^X509SHA256=[0-9a-f]{64}$/);
        assert.deepEqual(Object.keys(mine).sort(), ['extra', 'groups', 'username']);
        assert.match(
          String((me.json['metadata'] as Obj)['creationTimestamp']),
          /^\d{4}-\d\d-\d\dT/,
        );
        const account = await created(b, `/api/v1/namespaces/${ns}/serviceaccounts`, {
          metadata: { name: 'robot' },
        });
        const saUid = (account['metadata'] as Obj)['uid'];
        const sa = b.as(b.identities.serviceAccountKubeconfig(ns, 'robot'));
        const info = (await whoami(sa)).json['status'] as { userInfo: Obj };
        const groups = [
          'system:serviceaccounts',
          `system:serviceaccounts:${ns}`,
          'system:authenticated',
        ];
        assert.equal(info.userInfo['username'], `system:serviceaccount:${ns}:robot`);
        assert.equal(info.userInfo['uid'], saUid);
        assert.deepEqual(info.userInfo['groups'], groups);
        const extra = info.userInfo['extra'] as Record<string, string[]>;
        assert.deepEqual(Object.keys(extra), ['authentication.kubernetes.io/credential-id']);
        assert.match(extra['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^JTI=/);

        const node = await fakeNode(b);
        const nodeUid = ((await b.request('GET', `/api/v1/nodes/${node}`)).json['metadata'] as Obj)[
          'uid'
        ];
        const pod = await created(b, `/api/v1/namespaces/${ns}/pods`, {
          metadata: { name: 'bound' },
          spec: {
            nodeName: node,
            serviceAccountName: 'robot',
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        });
        const bound = b.as(b.identities.serviceAccountKubeconfig(ns, 'robot', 'bound'));
        const boundInfo = (await whoami(bound)).json['status'] as { userInfo: Obj };
        const boundExtra = boundInfo.userInfo['extra'] as Record<string, string[]>;
        assert.deepEqual(Object.keys(boundExtra).sort(), [
          'authentication.kubernetes.io/credential-id',
          'authentication.kubernetes.io/node-name',
          'authentication.kubernetes.io/node-uid',
          'authentication.kubernetes.io/pod-name',
          'authentication.kubernetes.io/pod-uid',
        ]);
        assert.deepEqual(boundExtra['authentication.kubernetes.io/node-name'], [node]);
        assert.deepEqual(boundExtra['authentication.kubernetes.io/node-uid'], [nodeUid]);
        assert.deepEqual(boundExtra['authentication.kubernetes.io/pod-name'], ['bound']);
        assert.deepEqual(boundExtra['authentication.kubernetes.io/pod-uid'], [
          (pod['metadata'] as Obj)['uid'],
        ]);
        assert.deepEqual(boundInfo.userInfo['groups'], groups);
      },
    },
    {
      id: 'Access reviews (kubectl auth can-i): SelfSubjectAccessReview answers from RBAC; SubjectAccessReview needs its own right',
      async run(b) {
        const ns = await b.namespace();
        const f = user(b, 'frank');
        const attributes = { namespace: ns, verb: 'create', resource: 'configmaps' };
        assert.deepEqual(await canI(f.as, attributes), { allowed: false });
        assert.deepEqual(await canI(b, attributes), { allowed: true });
        await role(b, ns, 'writer', [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
        ]);
        await roleBinding(b, ns, 'writer', { kind: 'Role', name: 'writer' }, [userSubject(f.name)]);
        let status: Obj = {};
        await until(201, 'the Role to take effect', async () => {
          status = await canI(f.as, attributes);
          return {
            code: status['allowed'] === true ? 201 : 0,
            headers: {},
            json: status,
            text: '',
            raw: Buffer.alloc(0),
          };
        });
        assert.deepEqual(status, {
          allowed: true,
          reason: `RBAC: allowed by RoleBinding "writer/${ns}" of Role "writer" to User "${f.name}"`,
        });
        const review = {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: f.name, resourceAttributes: { ...attributes, verb: 'delete' } },
        };
        const sar = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
        assertStatus(await f.as.request('POST', sar, { body: review }), {
          code: 403,
          reason: 'Forbidden',
          message: `subjectaccessreviews.authorization.k8s.io is forbidden: ${cannot(f.name, 'create', 'subjectaccessreviews', 'authorization.k8s.io')}`,
        });
        const answer = await b.request('POST', sar, { body: review });
        assert.equal(answer.code, 201, answer.text);
        assert.deepEqual(answer.json['status'], { allowed: false });
      },
    },
  ],
};
