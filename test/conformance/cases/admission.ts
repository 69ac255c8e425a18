/**
 * ValidatingAdmissionPolicy as kubemaint's policies use it: a Deny binding refuses with the policy's
 * message (or messageExpression) and reason in kube-apiserver's words, Warn answers with a Warning
 * header, selectors and matchConditions skip; `request`, `object` and `oldObject` per operation;
 * evaluation errors follow failurePolicy; kubemaint's own policies (infra/k8s/admission-policy.yaml,
 * and the approval model's, test/real/fixtures/approval-model.yaml) refuse what they should. Each
 * case installs its policies under names of its own (and, where a manifest's policy is used, a copy
 * renamed) and removes them; a new policy takes a moment to act upstream, so the first refusal is
 * waited for.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Backend, Reply } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  clusterRole,
  clusterRoleBinding,
  created,
  role,
  roleBinding,
  until,
  user,
  userSubject,
} from '../access-fixtures.js';
import { installModel, requestBody } from '../crd-fixtures.js';
import { assertStatus, MERGE } from '../fixtures.js';

type Obj = Record<string, unknown>;
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const INFRA_POLICIES = new URL('../../../infra/k8s/admission-policy.yaml', import.meta.url);
const INFRA_RBAC = (file: string) => new URL(`../../../infra/k8s/${file}`, import.meta.url);
const MODEL = new URL('../../real/fixtures/approval-model.yaml', import.meta.url);

const documents = (url: URL): Obj[] =>
  parseAllDocuments(readFileSync(url, 'utf8'))
    .map((d) => d.toJSON() as Obj | null)
    .filter((d): d is Obj => d !== null);

const nameOf = (o: Obj): string => (o['metadata'] as Obj)['name'] as string;

/** Creates a policy and a binding for it (removed by the case's cleanup). */
async function policy(b: Backend, name: string, spec: Obj, binding: Obj = {}): Promise<void> {
  await created(b, `${ADMISSION}/validatingadmissionpolicies`, { metadata: { name }, spec });
  await created(b, `${ADMISSION}/validatingadmissionpolicybindings`, {
    metadata: { name: `${name}-binding` },
    spec: { policyName: name, validationActions: ['Deny'], ...binding },
  });
}

/** The policies (and bindings) of a manifest, renamed `<name>-<suffix>` so a case owns its copies. */
async function installRenamed(
  b: Backend,
  docs: Obj[],
  suffix: string,
  edit: (policy: Obj) => void = () => undefined,
): Promise<Map<string, { policy: string; binding: string }>> {
  const names = new Map<string, { policy: string; binding: string }>();
  for (const doc of docs.filter((d) => d['kind'] === 'ValidatingAdmissionPolicy')) {
    const original = nameOf(doc);
    const copy = structuredClone(doc);
    (copy['metadata'] as Obj)['name'] = `${original}-${suffix}`;
    edit(copy);
    await created(b, `${ADMISSION}/validatingadmissionpolicies`, copy);
  }
  for (const doc of docs.filter((d) => d['kind'] === 'ValidatingAdmissionPolicyBinding')) {
    const copy = structuredClone(doc);
    const spec = copy['spec'] as Obj;
    const original = spec['policyName'] as string;
    spec['policyName'] = `${original}-${suffix}`;
    (copy['metadata'] as Obj)['name'] = `${nameOf(doc)}-${suffix}`;
    await created(b, `${ADMISSION}/validatingadmissionpolicybindings`, copy);
    names.set(original, { policy: `${original}-${suffix}`, binding: nameOf(copy) });
  }
  return names;
}

/** The message of a manifest policy's validation `index` (manifests may be reworded). */
function manifestMessage(docs: Obj[], policyName: string, index: number): string {
  const found = docs.find(
    (d) => d['kind'] === 'ValidatingAdmissionPolicy' && nameOf(d) === policyName,
  );
  const validations = (found?.['spec'] as Obj | undefined)?.['validations'] as Obj[] | undefined;
  const message = validations?.[index]?.['message'];
  assert.equal(typeof message, 'string', `${policyName} validation ${index} has a message`);
  return message as string;
}

const denied = (resource: string, name: string, p: string, binding: string, message: string) =>
  `${resource} "${name}" is forbidden: ValidatingAdmissionPolicy '${p}' with binding '${binding}' denied request: ${message}`;

const cm = (ns: string, name = '') =>
  `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const configMap = (name: string, data: Obj = {}, meta: Obj = {}) => ({
  metadata: { name, ...meta },
  data,
});

export const admissionCases: CaseGroup = {
  name: 'ValidatingAdmissionPolicy',
  cases: [
    {
      id: 'VAP: Deny refuses with message or messageExpression and the reason; Warn is a header; selectors and matchConditions skip',
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const other = await b.namespace();
        const tag = b.unique('vap');
        await b.request('PATCH', `/api/v1/namespaces/${ns}`, {
          body: { metadata: { labels: { 'conf-vap': tag } } },
          contentType: MERGE,
        });
        const p = b.unique('deny');
        await policy(b, p, {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['CREATE', 'UPDATE'],
                resources: ['configmaps'],
              },
            ],
            namespaceSelector: { matchLabels: { 'conf-vap': tag } },
            objectSelector: { matchExpressions: [{ key: 'conf-skip', operator: 'DoesNotExist' }] },
          },
          matchConditions: [
            {
              name: 'not-exempt',
              expression:
                "!has(object.metadata.annotations) || !('conf-exempt' in object.metadata.annotations)",
            },
          ],
          validations: [
            {
              expression: "!has(object.data) || !('forbidden' in object.data)",
              message: 'no forbidden key',
              reason: 'Forbidden',
            },
            {
              expression: "object.metadata.name != 'bad-name'",
              messageExpression: "'name ' + object.metadata.name + ' is not allowed'",
            },
            { expression: "object.metadata.name != 'plain'" },
          ],
        });
        const refused = await until(403, 'the policy to act', () =>
          b.request('POST', cm(ns), { body: configMap('c1', { forbidden: 'x' }) }),
        );
        const message = denied('configmaps', 'c1', p, `${p}-binding`, 'no forbidden key');
        assertStatus(refused, {
          code: 403,
          reason: 'Forbidden',
          message,
          details: {
            name: 'c1',
            kind: 'configmaps',
            causes: [
              {
                message: `ValidatingAdmissionPolicy '${p}' with binding '${p}-binding' denied request: no forbidden key`,
              },
            ],
          },
        });
        assertStatus(await b.request('POST', cm(ns), { body: configMap('bad-name') }), {
          code: 422,
          reason: 'Invalid',
          message: denied(
            'configmaps',
            'bad-name',
            p,
            `${p}-binding`,
            'name bad-name is not allowed',
          ),
        });
        assertStatus(await b.request('POST', cm(ns), { body: configMap('plain') }), {
          code: 422,
          reason: 'Invalid',
          message: denied(
            'configmaps',
            'plain',
            p,
            `${p}-binding`,
            "failed expression: object.metadata.name != 'plain'",
          ),
        });
        const skipped = [
          b.request('POST', cm(ns), {
            body: configMap('c2', { forbidden: 'x' }, { labels: { 'conf-skip': 'y' } }),
          }),
          b.request('POST', cm(ns), {
            body: configMap('c3', { forbidden: 'x' }, { annotations: { 'conf-exempt': 'y' } }),
          }),
          b.request('POST', cm(other), { body: configMap('c4', { forbidden: 'x' }) }),
        ];
        for (const reply of await Promise.all(skipped)) assert.equal(reply.code, 201, reply.text);

        const w = b.unique('warn');
        await policy(
          b,
          w,
          {
            matchConstraints: {
              resourceRules: [
                {
                  apiGroups: [''],
                  apiVersions: ['v1'],
                  operations: ['CREATE'],
                  resources: ['configmaps'],
                },
              ],
              namespaceSelector: { matchLabels: { 'conf-vap': tag } },
            },
            validations: [{ expression: "object.metadata.name != 'warn-me'", message: 'warned' }],
          },
          { validationActions: ['Warn'] },
        );
        const warned = await until(201, 'a warned create', async () => {
          const reply = await b.request('POST', cm(ns), { body: configMap(`warn-me`) });
          if (reply.code === 201 && reply.headers['warning'] === undefined) {
            await b.request('DELETE', cm(ns, 'warn-me'));
            return { ...reply, code: 0 };
          }
          return reply;
        });
        assert.equal(
          warned.headers['warning'],
          `299 - "Validation failed for ValidatingAdmissionPolicy '${w}' with binding '${w}-binding': warned"`,
        );
      },
    },
    {
      id: 'VAP: request, object and oldObject per operation; subResource absent on the main resource; errors follow failurePolicy',
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const p = b.unique('ops');
        const rules = [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE', 'DELETE'],
            resources: ['configmaps'],
          },
        ];
        const inNs = {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [ns] }],
        };
        await policy(b, p, {
          matchConstraints: { resourceRules: rules, namespaceSelector: inNs },
          validations: [
            { expression: '!has(request.subResource)', message: 'subResource present' },
            {
              expression: `request.namespace == '${ns}' && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps' && request.kind.version == 'v1'`,
              message: 'request names the wrong thing',
            },
            {
              expression: "request.operation != 'CREATE' || oldObject == null",
              message: 'oldObject on create',
            },
            {
              expression: "request.operation != 'DELETE' || object == null",
              message: 'object on delete',
            },
            {
              expression: "request.operation == 'DELETE' || request.name == object.metadata.name",
              message: 'request.name is not the object',
            },
            {
              expression: "request.operation != 'DELETE' || oldObject.metadata.name != 'keep'",
              message: 'keep stays',
              reason: 'Forbidden',
            },
            {
              expression:
                "request.operation != 'UPDATE' || oldObject.data.locked == object.data.locked",
              message: 'locked is immutable',
            },
            { expression: 'request.dryRun == false', message: 'a dry run' },
          ],
        });
        await until(403, 'the policy to act', async () => {
          await b.request('POST', cm(ns), { body: configMap('keep', { locked: 'a', free: '1' }) });
          return b.request('DELETE', cm(ns, 'keep'));
        });
        const update = (data: Obj) =>
          b.request('PATCH', cm(ns, 'keep'), { body: { data }, contentType: MERGE });
        assertStatus(await update({ locked: 'b' }), {
          code: 422,
          reason: 'Invalid',
          message: denied('configmaps', 'keep', p, `${p}-binding`, 'locked is immutable'),
        });
        assert.equal((await update({ free: '2' })).code, 200);
        assertStatus(await b.request('DELETE', cm(ns, 'keep')), {
          code: 403,
          reason: 'Forbidden',
          message: denied('configmaps', 'keep', p, `${p}-binding`, 'keep stays'),
        });
        assert.equal((await b.request('POST', cm(ns), { body: configMap('gone') })).code, 201);
        assert.equal((await b.request('DELETE', cm(ns, 'gone'))).code, 200);
        assertStatus(await b.request('POST', `${cm(ns)}?dryRun=All`, { body: configMap('dry') }), {
          code: 422,
          reason: 'Invalid',
          message: denied('configmaps', 'dry', p, `${p}-binding`, 'a dry run'),
        });

        // An expression that fails to evaluate: Fail refuses with the error, Ignore admits.
        const failing = (name: string, failurePolicy: string, value: string) =>
          policy(b, name, {
            failurePolicy,
            matchConstraints: {
              resourceRules: [{ ...rules[0], operations: ['CREATE'] }],
              namespaceSelector: inNs,
              objectSelector: { matchLabels: { 'conf-error': value } },
            },
            validations: [{ expression: "object.data.missing == 'x'", message: 'unreachable' }],
          });
        const f = b.unique('fail');
        await failing(f, 'Fail', 'fail');
        await failing(b.unique('ignore'), 'Ignore', 'ignore');
        const errored = await until(422, 'the failing policy to act', () =>
          b.request('POST', cm(ns), {
            body: configMap(b.unique('e'), { a: 'b' }, { labels: { 'conf-error': 'fail' } }),
          }),
        );
        assert.match(
          String(errored.json['message']),
          new RegExp(
            `is forbidden: ValidatingAdmissionPolicy '${f}' with binding '${f}-binding' denied request: expression 'object\\.data\\.missing == 'x'' resulted in error: no such key: missing$`,
          ),
        );
        // Ignore admits; give it the same moment to be active, then it must still admit.
        await until(422, 'the failing policy to stay active', () =>
          b.request('POST', cm(ns), {
            body: configMap(b.unique('e'), { a: 'b' }, { labels: { 'conf-error': 'fail' } }),
          }),
        );
        const ignored = await b.request('POST', cm(ns), {
          body: configMap('ignored', { a: 'b' }, { labels: { 'conf-error': 'ignore' } }),
        });
        assert.equal(ignored.code, 201, ignored.text);
      },
    },
    {
      id: "VAP: a binding's matchResources narrows its policy; namespaceObject is the request's Namespace",
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const other = await b.namespace();
        const tag = b.unique('ns');
        for (const n of [ns, other]) {
          await b.request('PATCH', `/api/v1/namespaces/${n}`, {
            body: { metadata: { labels: { 'conf-tag': tag, 'conf-name': n } } },
            contentType: MERGE,
          });
        }
        const p = b.unique('nsobj');
        await policy(
          b,
          p,
          {
            matchConstraints: {
              resourceRules: [
                {
                  apiGroups: [''],
                  apiVersions: ['v1'],
                  operations: ['CREATE'],
                  resources: ['configmaps'],
                },
              ],
              namespaceSelector: { matchLabels: { 'conf-tag': tag } },
            },
            validations: [
              {
                expression: "namespaceObject.metadata.labels['conf-name'] != object.metadata.name",
                messageExpression: "'named after its namespace ' + namespaceObject.metadata.name",
                reason: 'Forbidden',
              },
            ],
          },
          // The binding applies the policy to one of the two namespaces the policy matches.
          { matchResources: { namespaceSelector: { matchLabels: { 'conf-name': ns } } } },
        );
        const refused = await until(403, 'the policy to act', () =>
          b.request('POST', cm(ns), { body: configMap(ns) }),
        );
        assertStatus(refused, {
          code: 403,
          reason: 'Forbidden',
          message: denied('configmaps', ns, p, `${p}-binding`, `named after its namespace ${ns}`),
        });
        const elsewhere = await b.request('POST', cm(other), { body: configMap(other) });
        assert.equal(elsewhere.code, 201, elsewhere.text);
      },
    },
    {
      id: "VAP: kubemaint's agent and control-plane policies (infra/k8s/admission-policy.yaml) as the agent and serve",
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const docs = documents(INFRA_POLICIES);
        const names = await installRenamed(b, docs, b.unique('x'));
        // The agent's and serve's RBAC from infra/k8s, under names of the case's own.
        for (const file of ['rbac-agent.yaml', 'rbac-serve.yaml']) {
          const suffix = b.unique('r');
          for (const doc of documents(INFRA_RBAC(file))) {
            const kind = doc['kind'] as string;
            if (kind !== 'ClusterRole' && kind !== 'ClusterRoleBinding') continue;
            const copy = structuredClone(doc);
            (copy['metadata'] as Obj)['name'] = `${nameOf(doc)}-${suffix}`;
            if (kind === 'ClusterRole') {
              await clusterRole(b, nameOf(copy), copy['rules'] as Obj[]);
            } else {
              const ref = copy['roleRef'] as Obj;
              await clusterRoleBinding(
                b,
                nameOf(copy),
                `${ref['name'] as string}-${suffix}`,
                copy['subjects'] as Obj[],
              );
            }
          }
        }
        const own = b.unique('own');
        const theirs = b.unique('their');
        for (const name of [own, theirs]) await created(b, '/api/v1/nodes', { metadata: { name } });
        const agentPolicy = names.get('kubemaint-agent-own-node-only');
        const servePolicy = names.get('kubemaint-serve-dry-run-evictions-only');
        assert.ok(agentPolicy && servePolicy, 'the manifest has both policies');
        const agent = {
          'Impersonate-User': 'system:serviceaccount:kubemaint:kubemaint-agent',
          'Impersonate-Extra-authentication.kubernetes.io%2Fnode-name': own,
        };
        const label = (node: string, labels: Obj, headers: Record<string, string>) =>
          b.request('PATCH', `/api/v1/nodes/${node}`, {
            body: { metadata: { labels } },
            contentType: MERGE,
            headers,
          });
        const foreign = await until(422, 'the agent policy to act', () =>
          label(theirs, { 'kubemaint.io/reboot-required': 'true' }, agent),
        );
        assertStatus(foreign, {
          code: 422,
          reason: 'Invalid',
          message: denied(
            'nodes',
            theirs,
            agentPolicy.policy,
            agentPolicy.binding,
            `the kubemaint agent on ${own} may not change node ${theirs}`,
          ),
        });
        assert.equal(
          (await label(own, { 'kubemaint.io/reboot-required': 'true' }, agent)).code,
          200,
        );
        const team = await label(own, { team: 'ops' }, agent);
        assert.equal(team.code, 422, team.text);
        assert.match(
          String(team.json['message']),
          /denied request: the kubemaint agent may only change /,
        );
        // A token without the node claim (it still has a credential id, as every real token does).
        const noClaim = await label(
          own,
          { 'kubemaint.io/reboot-required': 'false' },
          {
            'Impersonate-User': 'system:serviceaccount:kubemaint:kubemaint-agent',
            'Impersonate-Extra-authentication.kubernetes.io%2Fcredential-id': 'JTI=conformance',
          },
        );
        assertStatus(noClaim, {
          code: 422,
          reason: 'Invalid',
          message: denied(
            'nodes',
            own,
            agentPolicy.policy,
            agentPolicy.binding,
            manifestMessage(docs, 'kubemaint-agent-own-node-only', 1).trim(),
          ),
        });
        // No extras at all (only impersonation can do that): `request.userInfo.extra` is then absent,
        // which the policy reads as optional, so it refuses with its own message, not an error.
        const noExtra = await label(
          own,
          { 'kubemaint.io/reboot-required': 'false' },
          {
            'Impersonate-User': 'system:serviceaccount:kubemaint:kubemaint-agent',
          },
        );
        assert.equal(noExtra.code, 422, noExtra.text);
        assert.match(
          String(noExtra.json['message']),
          /denied request: the kubemaint agent's token has no authentication\.kubernetes\.io\/node-name claim/,
        );

        // serve evicts only as a dry run.
        await created(b, `/api/v1/namespaces/${ns}/pods`, {
          metadata: { name: 'victim' },
          spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        });
        const serve = { 'Impersonate-User': 'system:serviceaccount:kubemaint:kubemaint-serve' };
        const evict = (query: string) =>
          b.request('POST', `/api/v1/namespaces/${ns}/pods/victim/eviction${query}`, {
            body: {
              apiVersion: 'policy/v1',
              kind: 'Eviction',
              metadata: { name: 'victim', namespace: ns },
            },
            headers: serve,
          });
        const real = await until(422, 'the serve policy to act', () => evict(''));
        assertStatus(real, {
          code: 422,
          reason: 'Invalid',
          message: denied(
            'pods',
            'victim',
            servePolicy.policy,
            servePolicy.binding,
            manifestMessage(docs, 'kubemaint-serve-dry-run-evictions-only', 0),
          ),
        });
        assert.equal((await evict('?dryRun=All')).code, 201);
      },
    },
    {
      id: "VAP: the approval model's policies bind approvals to their authors and status to serve (approval-model.yaml)",
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const m = await installModel(b);
        const names = await installRenamed(b, documents(MODEL), b.unique('x'), (p) => {
          for (const rule of ((p['spec'] as Obj)['matchConstraints'] as Obj)[
            'resourceRules'
          ] as Obj[]) {
            rule['apiGroups'] = [m.group];
          }
        });
        const authors = names.get('kubemaint-approvals-name-their-author');
        const status = names.get('kubemaint-request-status-by-serve-only');
        assert.ok(authors && status, 'the fixture has both policies');
        const alice = user(b, 'alice', ['conf-approvers']);
        await role(b, ns, 'approver', [
          {
            apiGroups: [m.group],
            resources: ['maintenanceapprovals', 'maintenancerequests'],
            verbs: ['create', 'get'],
          },
          {
            apiGroups: [m.group],
            resources: ['maintenancerequests/status'],
            verbs: ['update', 'patch'],
          },
        ]);
        await roleBinding(b, ns, 'approver', { kind: 'Role', name: 'approver' }, [
          userSubject(alice.name),
        ]);
        const approve = (name: string, approver: string): Promise<Reply> =>
          alice.as.request('POST', m.approvals(ns), {
            body: {
              apiVersion: m.apiVersion,
              kind: 'MaintenanceApproval',
              metadata: { name },
              spec: { request: 'r1', approver, decision: 'approve' },
            },
          });
        const asBob = await until(403, 'the author policy to act', () => approve('a1', 'bob'));
        assertStatus(asBob, {
          code: 403,
          reason: 'Forbidden',
          message: denied(
            `maintenanceapprovals.${m.group}`,
            'a1',
            authors.policy,
            authors.binding,
            `${alice.name} may only record an approval in their own name, not as bob`,
          ),
        });
        assertStatus(await approve('a2', 'slack:T01/U02'), {
          code: 403,
          reason: 'Forbidden',
          message: denied(
            `maintenanceapprovals.${m.group}`,
            'a2',
            authors.policy,
            authors.binding,
            `${alice.name} may not record an approval for a Slack user (slack:T01/U02): only system:serviceaccount:kubemaint:kubemaint-serve may`,
          ),
        });
        assert.equal((await approve('a3', alice.name)).code, 201);

        const created1 = await alice.as.request('POST', m.requests(ns), {
          body: requestBody(m, 'r1', { node: 'n1', action: 'reboot' }),
        });
        assert.equal(created1.code, 201, created1.text);
        const statusWrite = await alice.as.request('PATCH', `${m.requests(ns, 'r1')}/status`, {
          body: { status: { phase: 'approved' } },
          contentType: MERGE,
        });
        assert.equal(statusWrite.code, 403, statusWrite.text);
        assert.match(
          String(statusWrite.json['message']),
          new RegExp(
            `^maintenancerequests\\.${m.group.replace(/\./g, '\\.')} "r1" is forbidden: ValidatingAdmissionPolicy '${status.policy}' with binding '${status.binding}' denied request: ${alice.name} may not write a MaintenanceRequest's status`,
          ),
        );
      },
    },
  ],
};
