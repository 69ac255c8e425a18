/**
 * CustomResourceDefinitions and custom resources, as kubemaint's requests and approvals use them:
 * a CRD is Established and discovered; its objects are listed, selected, watched and patched (no
 * strategic merge); the status subresource splits spec from status; the schema prunes unknown
 * fields and refuses bad values in kube-apiserver's words; `x-kubernetes-validations` rules (a
 * transition rule makes an approval immutable) run after the schema; printer columns make the
 * Table; deleting a CRD deletes its objects. Multi-cause refusals are compared with their causes
 * sorted: kube-apiserver's order follows Go map iteration.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  causesOf,
  installGadgets,
  installModel,
  requestBody,
  type ModelCrds,
} from '../crd-fixtures.js';
import { assertStatus, field, JSON_PATCH, meta, MERGE, STRATEGIC } from '../fixtures.js';

type Obj = Record<string, unknown>;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

async function createRequest(b: Backend, m: ModelCrds, ns: string, name: string, extra: Obj = {}) {
  const reply = await b.request('POST', m.requests(ns), {
    body: requestBody(m, name, { node: 'n1', action: 'reboot' }, extra),
  });
  assert.equal(reply.code, 201, reply.text);
  return reply.json;
}

const approval = (m: ModelCrds, name: string, spec: Obj) => ({
  apiVersion: m.apiVersion,
  kind: 'MaintenanceApproval',
  metadata: { name },
  spec,
});

export const crdCases: CaseGroup = {
  name: 'Custom resources (CRDs)',
  cases: [
    {
      id: 'CRDs: a new CRD is Established with its names accepted and its resources discovered',
      async run(b) {
        const m = await installModel(b);
        const crd = await b.request(
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/maintenancerequests.${m.group}`,
        );
        assert.deepEqual(field(crd.json, 'status', 'acceptedNames'), {
          kind: 'MaintenanceRequest',
          listKind: 'MaintenanceRequestList',
          plural: 'maintenancerequests',
          singular: 'maintenancerequest',
          shortNames: ['mr'],
        });
        const conditions = (field(crd.json, 'status', 'conditions') as Obj[]).map((c) => [
          c['type'],
          c['status'],
          c['reason'],
        ]);
        assert.deepEqual(conditions.sort(), [
          ['Established', 'True', 'InitialNamesAccepted'],
          ['NamesAccepted', 'True', 'NoConflicts'],
        ]);
        const group = await b.request('GET', `/apis/${m.group}`);
        assert.deepEqual(group.json['preferredVersion'], {
          groupVersion: m.apiVersion,
          version: 'v1alpha1',
        });
        const list = await b.request('GET', m.base);
        const resources = (list.json['resources'] as Obj[]).map((r) => ({
          name: r['name'],
          singularName: r['singularName'],
          namespaced: r['namespaced'],
          kind: r['kind'],
          shortNames: r['shortNames'],
        }));
        assert.deepEqual(
          resources.sort((x, y) => String(x.name).localeCompare(String(y.name))),
          [
            {
              name: 'maintenanceapprovals',
              singularName: 'maintenanceapproval',
              namespaced: true,
              kind: 'MaintenanceApproval',
              shortNames: ['mra'],
            },
            {
              name: 'maintenancerequests',
              singularName: 'maintenancerequest',
              namespaced: true,
              kind: 'MaintenanceRequest',
              shortNames: ['mr'],
            },
            {
              name: 'maintenancerequests/status',
              singularName: '',
              namespaced: true,
              kind: 'MaintenanceRequest',
              shortNames: undefined,
            },
          ],
        );
      },
    },
    {
      id: 'custom resources: create, get, list by label and field selector, delete',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        const created = await createRequest(b, m, ns, 'r1', {
          metadata: { name: 'r1', labels: { tier: 'a' } },
        });
        assert.equal(created['kind'], 'MaintenanceRequest');
        assert.equal(created['apiVersion'], m.apiVersion);
        assert.equal(meta(created)['generation'], 1);
        await createRequest(b, m, ns, 'r2');
        const again = await b.request('POST', m.requests(ns), {
          body: requestBody(m, 'r2', { node: 'n1', action: 'reboot' }),
        });
        assertStatus(again, {
          code: 409,
          reason: 'AlreadyExists',
          message: `maintenancerequests.${m.group} "r2" already exists`,
        });
        const byLabel = await b.request('GET', `${m.requests(ns)}?labelSelector=tier%3Da`);
        assert.equal(byLabel.json['kind'], 'MaintenanceRequestList');
        assert.deepEqual(
          (byLabel.json['items'] as Obj[]).map((o) => meta(o)['name']),
          ['r1'],
        );
        const byName = await b.request('GET', `${m.requests(ns)}?fieldSelector=metadata.name%3Dr2`);
        assert.deepEqual(
          (byName.json['items'] as Obj[]).map((o) => meta(o)['name']),
          ['r2'],
        );
        const all = await b.request('GET', `${m.base}/maintenancerequests`);
        assert.ok((all.json['items'] as Obj[]).length >= 2);
        const gone = await b.request('DELETE', m.requests(ns, 'r1'));
        assert.equal(gone.code, 200, gone.text);
        assertStatus(await b.request('GET', m.requests(ns, 'r1')), {
          code: 404,
          reason: 'NotFound',
          message: `maintenancerequests.${m.group} "r1" not found`,
        });
      },
    },
    {
      id: 'custom resources: the main resource ignores .status, /status changes only .status; generation follows the spec',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        const created = await createRequest(b, m, ns, 'r', { status: { state: 'done' } });
        assert.equal(created['status'], undefined, 'status dropped on create');
        const main = await b.request('PATCH', m.requests(ns, 'r'), {
          contentType: MERGE,
          body: { spec: { reason: 'kernel' }, status: { state: 'done' } },
        });
        assert.equal(main.code, 200, main.text);
        assert.equal(field(main.json, 'spec', 'reason'), 'kernel');
        assert.equal(main.json['status'], undefined, 'status ignored on the main resource');
        assert.equal(meta(main.json)['generation'], 2);
        const status = await b.request('PATCH', `${m.requests(ns, 'r')}/status`, {
          contentType: MERGE,
          body: {
            metadata: { labels: { via: 'status' } },
            spec: { reason: 'changed' },
            status: { state: 'approved', approvals: 2 },
          },
        });
        assert.equal(status.code, 200, status.text);
        assert.deepEqual(status.json['status'], { state: 'approved', approvals: 2 });
        assert.equal(field(status.json, 'spec', 'reason'), 'kernel', 'spec ignored on /status');
        assert.equal(
          field(status.json, 'metadata', 'labels'),
          undefined,
          'metadata ignored on /status',
        );
        assert.equal(meta(status.json)['generation'], 2, 'a status write keeps the generation');
        assert.notEqual(meta(status.json).resourceVersion, meta(main.json).resourceVersion);
        const bad = await b.request('PATCH', `${m.requests(ns, 'r')}/status`, {
          contentType: MERGE,
          body: { status: { state: 'bogus' } },
        });
        assertStatus(bad, {
          code: 422,
          reason: 'Invalid',
          message: `MaintenanceRequest.${m.group} "r" is invalid: status.state: Unsupported value: "bogus": supported values: "pending", "approved", "rejected", "running", "done", "failed", "cancelled"`,
        });
      },
    },
    {
      id: 'custom resources: merge and JSON patch apply, strategic merge patch is refused (415)',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        await createRequest(b, m, ns, 'r');
        const strategic = await b.request('PATCH', m.requests(ns, 'r'), {
          contentType: STRATEGIC,
          body: { spec: { reason: 'x' } },
        });
        assertStatus(strategic, {
          code: 415,
          reason: 'UnsupportedMediaType',
          message:
            'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
        });
        const json = await b.request('PATCH', m.requests(ns, 'r'), {
          contentType: JSON_PATCH,
          body: [{ op: 'add', path: '/spec/reason', value: 'json' }],
        });
        assert.equal(json.code, 200, json.text);
        assert.equal(field(json.json, 'spec', 'reason'), 'json');
        const merge = await b.request('PATCH', m.requests(ns, 'r'), {
          contentType: MERGE,
          body: { spec: { reason: null, action: 'upgrade' } },
        });
        assert.deepEqual(merge.json['spec'], { node: 'n1', action: 'upgrade' });
      },
    },
    {
      id: 'custom resources: schema violations are 422 with every cause, in kube-apiserver words',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        const one = await b.request('POST', m.requests(ns), {
          body: requestBody(m, 'x', { node: 'n1', action: 'halt' }),
        });
        assertStatus(one, {
          code: 422,
          reason: 'Invalid',
          message: `MaintenanceRequest.${m.group} "x" is invalid: spec.action: Unsupported value: "halt": supported values: "reboot", "drain", "upgrade"`,
          details: {
            name: 'x',
            group: m.group,
            kind: 'MaintenanceRequest',
            causes: [
              {
                reason: 'FieldValueNotSupported',
                message:
                  'Unsupported value: "halt": supported values: "reboot", "drain", "upgrade"',
                field: 'spec.action',
              },
            ],
          },
        });
        const many = await b.request('POST', m.requests(ns), {
          body: requestBody(m, 'y', { node: '', reason: 7, extra: 'pruned' }),
        });
        assert.equal(many.code, 422, many.text);
        assert.deepEqual(causesOf(many.json), [
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.action' },
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "": spec.node in body should be at least 1 chars long',
            field: 'spec.node',
          },
          {
            reason: 'FieldValueTypeInvalid',
            message:
              'Invalid value: "integer": spec.reason in body must be of type string: "integer"',
            field: 'spec.reason',
          },
        ]);
        const long = await b.request('POST', m.requests(ns), {
          body: requestBody(m, 'z', { node: 'n'.repeat(254), action: 'reboot' }),
        });
        assertStatus(long, {
          code: 422,
          reason: 'Invalid',
          message: `MaintenanceRequest.${m.group} "z" is invalid: spec.node: Too long: may not be more than 253 bytes`,
        });
        const noSpec = await b.request('POST', m.requests(ns), {
          body: { apiVersion: m.apiVersion, kind: 'MaintenanceRequest', metadata: { name: 'w' } },
        });
        assertStatus(noSpec, {
          code: 422,
          reason: 'Invalid',
          message: `MaintenanceRequest.${m.group} "w" is invalid: spec: Required value`,
        });
      },
    },
    {
      id: 'custom resources: unknown fields are pruned (Warning headers), refused with fieldValidation=Strict',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        const body = requestBody(
          m,
          'p',
          { node: 'n1', action: 'reboot', color: 'red' },
          { top: 1 },
        );
        const strict = await b.request('POST', `${m.requests(ns)}?fieldValidation=Strict`, {
          body,
        });
        assertStatus(strict, {
          code: 400,
          reason: 'BadRequest',
          message:
            'MaintenanceRequest in version "v1alpha1" cannot be handled as a MaintenanceRequest: strict decoding error: unknown field "spec.color", unknown field "top"',
        });
        const warned = await b.request('POST', m.requests(ns), { body });
        assert.equal(warned.code, 201, warned.text);
        assert.deepEqual(warned.json['spec'], { node: 'n1', action: 'reboot' });
        assert.equal(warned.json['top'], undefined);
        const warnings = ([] as string[]).concat(warned.headers['warning'] ?? []).join('\n');
        assert.match(warnings, /299 - "unknown field \\"spec.color\\""/);
        assert.match(warnings, /299 - "unknown field \\"top\\""/);
        const ignored = await b.request('PUT', `${m.requests(ns, 'p')}?fieldValidation=Ignore`, {
          body: { ...warned.json, spec: { node: 'n2', action: 'reboot', color: 'blue' } },
        });
        assert.equal(ignored.code, 200, ignored.text);
        assert.equal(ignored.headers['warning'], undefined);
        assert.deepEqual(ignored.json['spec'], { node: 'n2', action: 'reboot' });
        const bogus = await b.request('POST', `${m.requests(ns)}?fieldValidation=Loud`, { body });
        assertStatus(bogus, {
          code: 422,
          reason: 'Invalid',
          message:
            'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
        });
      },
    },
    {
      id: 'x-kubernetes-validations: a transition rule keeps an approval immutable; schema errors skip the rules',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        const spec = { request: 'r1', approver: 'alice', decision: 'approve' };
        const created = await b.request('POST', m.approvals(ns), { body: approval(m, 'a', spec) });
        assert.equal(created.code, 201, created.text);
        const changed = await b.request('PATCH', m.approvals(ns, 'a'), {
          contentType: MERGE,
          body: { spec: { decision: 'reject' } },
        });
        assertStatus(changed, {
          code: 422,
          reason: 'Invalid',
          message: `MaintenanceApproval.${m.group} "a" is invalid: spec: Invalid value: "object": a MaintenanceApproval's spec is immutable`,
        });
        const labelled = await b.request('PATCH', m.approvals(ns, 'a'), {
          contentType: MERGE,
          body: { metadata: { labels: { seen: 'yes' } } },
        });
        assert.equal(labelled.code, 200, 'metadata may change');
        const invalid = await b.request('PATCH', m.approvals(ns, 'a'), {
          contentType: MERGE,
          body: { spec: { decision: 'maybe' } },
        });
        assert.equal(invalid.code, 422, invalid.text);
        assert.deepEqual((invalid.json['details'] as Obj)['causes'], [
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "maybe": supported values: "approve", "reject"',
            field: 'spec.decision',
          },
          {
            reason: 'FieldValueInvalid',
            message:
              'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
            field: '<nil>',
          },
        ]);
      },
    },
    {
      id: 'printer columns: the Table has Name, the CRD columns with their types, and typed cells',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        await createRequest(b, m, ns, 'r');
        await b.request('PATCH', `${m.requests(ns, 'r')}/status`, {
          contentType: MERGE,
          body: { status: { state: 'approved', approvals: 2 } },
        });
        await createRequest(b, m, ns, 's');
        const reply = await b.request('GET', m.requests(ns), { accept: TABLE });
        assert.equal(reply.json['kind'], 'Table', reply.text);
        const columns = (reply.json['columnDefinitions'] as Obj[]).map((c) => [
          c['name'],
          c['type'],
          c['format'],
          c['priority'],
          c['description'],
        ]);
        const described = (path: string) =>
          `Custom resource definition column (in JSONPath format): ${path}`;
        assert.deepEqual(columns.slice(1), [
          ['Node', 'string', '', 0, described('.spec.node')],
          ['Action', 'string', '', 0, described('.spec.action')],
          ['State', 'string', '', 0, described('.status.state')],
          ['Approvals', 'integer', '', 0, described('.status.approvals')],
          ['Age', 'date', '', 0, described('.metadata.creationTimestamp')],
        ]);
        assert.deepEqual(columns[0]?.slice(0, 4), ['Name', 'string', 'name', 0]);
        const cells = (reply.json['rows'] as Obj[]).map((r) =>
          (r['cells'] as unknown[]).slice(0, 5),
        );
        assert.deepEqual(cells, [
          ['r', 'n1', 'reboot', 'approved', 2],
          ['s', 'n1', 'reboot', null, null],
        ]);
        const ages = (reply.json['rows'] as Obj[]).map((r) => (r['cells'] as unknown[])[5]);
        for (const age of ages) assert.match(String(age), /^\d+s$/);
      },
    },
    {
      id: 'a cluster-scoped CRD without status subresource: defaults, rules with messageExpression, status through the main resource',
      async run(b) {
        const g = await installGadgets(b);
        const body = (name: string, spec: Obj, extra: Obj = {}) => ({
          apiVersion: `${g.group}/v1`,
          kind: 'Gadget',
          metadata: { name },
          spec,
          ...extra,
        });
        const created = await b.request('POST', g.path(), {
          body: body('g1', { size: 3, free: { any: { thing: 1 } } }, { status: { ready: true } }),
        });
        assert.equal(created.code, 201, created.text);
        assert.equal(meta(created.json)['namespace'], undefined);
        assert.deepEqual(created.json['spec'], {
          size: 3,
          mode: 'small',
          free: { any: { thing: 1 } },
        });
        assert.deepEqual(
          created.json['status'],
          { ready: true },
          'status kept without the subresource',
        );
        const big = await b.request('POST', g.path(), { body: body('g2', { size: 11 }) });
        assertStatus(big, {
          code: 422,
          reason: 'Invalid',
          message: `Gadget.${g.group} "g2" is invalid: spec.size: Invalid value: "object": size too big for mode small`,
        });
        const wrong = await b.request('POST', g.path(), {
          body: body('g3', { size: -1, mode: 'A', tags: ['a', 'b', 'c', 'd'], labels: { k: 1 } }),
        });
        assert.equal(wrong.code, 422, wrong.text);
        assert.deepEqual(causesOf(wrong.json), [
          {
            reason: 'FieldValueInvalid',
            message:
              'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
            field: '<nil>',
          },
          {
            reason: 'FieldValueTypeInvalid',
            message:
              'Invalid value: "integer": spec.labels.k in body must be of type string: "integer"',
            field: 'spec.labels.k',
          },
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "A": spec.mode in body should match '^[a-z]+$'`,
            field: 'spec.mode',
          },
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: -1: spec.size in body should be greater than or equal to 0',
            field: 'spec.size',
          },
          {
            reason: 'FieldValueTooMany',
            message: 'Too many: 4: must have at most 3 items',
            field: 'spec.tags',
          },
        ]);
        const status = await b.request('PATCH', g.path('g1'), {
          contentType: MERGE,
          body: { status: { ready: false } },
        });
        assert.equal(field(status.json, 'status', 'ready'), false);
        assert.equal(
          meta(status.json)['generation'],
          2,
          'any non-metadata change bumps generation',
        );
        assertStatus(await b.request('GET', `${g.path('g1')}/status`), {
          code: 404,
          reason: 'NotFound',
        });
        const table = await b.request('GET', g.path(), { accept: TABLE });
        const names = (table.json['columnDefinitions'] as Obj[]).map((c) => [
          c['name'],
          c['priority'],
        ]);
        assert.deepEqual(names, [
          ['Name', 0],
          ['Size', 0],
          ['Mode', 1],
          ['Tags', 0],
        ]);
      },
    },
    {
      id: 'CRDs: deleting a CRD deletes its objects and its discovery',
      async run(b) {
        const g = await installGadgets(b);
        const created = await b.request('POST', g.path(), {
          body: {
            apiVersion: `${g.group}/v1`,
            kind: 'Gadget',
            metadata: { name: 'g' },
            spec: { size: 1 },
          },
        });
        assert.equal(created.code, 201, created.text);
        const gone = await b.request(
          'DELETE',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${g.group}`,
        );
        assert.equal(gone.code, 200, gone.text);
        assert.equal(gone.json['kind'], 'CustomResourceDefinition');
        assert.ok(meta(gone.json)['deletionTimestamp'], 'answered while its cleanup runs');
        assert.deepEqual(meta(gone.json)['finalizers'], [
          'customresourcecleanup.apiextensions.k8s.io',
        ]);
        await eventually('the CRD gone', async () => {
          const read = await b.request(
            'GET',
            `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${g.group}`,
          );
          return read.code === 404 ? true : undefined;
        });
        await eventually('its group undiscovered', async () => {
          const group = await b.request('GET', `/apis/${g.group}/v1`);
          return group.code === 404 ? true : undefined;
        });
        // The same CRD again serves an empty collection: its objects went with it.
        await installGadgets(b, g.group);
        const list = await b.request('GET', g.path());
        assert.deepEqual(list.json['items'], []);
      },
    },
    {
      id: 'custom resources: a watch sees ADDED, MODIFIED and DELETED',
      async run(b) {
        const m = await installModel(b);
        const ns = await b.namespace();
        const list = await b.request('GET', m.requests(ns));
        const rv = meta(list.json)['resourceVersion'] as string;
        const result = await b.watch(`${m.requests(ns)}?watch=true&resourceVersion=${rv}`, {
          until: (events) => events.some((e) => e.type === 'DELETED'),
          onOpen: async () => {
            await createRequest(b, m, ns, 'w');
            await b.request('PATCH', m.requests(ns, 'w'), {
              contentType: MERGE,
              body: { spec: { reason: 'r' } },
            });
            await b.request('DELETE', m.requests(ns, 'w'));
          },
        });
        assert.deepEqual(
          result.events.map((e) => [e.type, e.object.metadata?.name, e.object['kind']]),
          [
            ['ADDED', 'w', 'MaintenanceRequest'],
            ['MODIFIED', 'w', 'MaintenanceRequest'],
            ['DELETED', 'w', 'MaintenanceRequest'],
          ],
        );
      },
    },
    {
      id: 'CRDs: a new storage version joins status.storedVersions; objects read at either version; a deprecated one warns; a rewrite stores at the new version; only /status shortens the list, and a spec write puts the storage version back',
      async run(b) {
        const g = await installGadgets(b);
        const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${g.group}`;
        const v1 = (name = '') => `/apis/${g.group}/v1/gadgets${name ? `/${name}` : ''}`;
        const v2 = (name = '') => `/apis/${g.group}/v2/gadgets${name ? `/${name}` : ''}`;
        const made = await b.request('POST', v1(), {
          body: {
            apiVersion: `${g.group}/v1`,
            kind: 'Gadget',
            metadata: { name: 'old' },
            spec: { size: 1 },
          },
        });
        assert.equal(made.code, 201, made.text);

        // v2 becomes the storage version, v1 stays served, deprecated (same schema: strategy None).
        const crd = (await b.request('GET', crdPath)).json;
        const spec = crd['spec'] as Obj;
        const [first] = spec['versions'] as Obj[];
        const warning = `${g.group}/v1 Gadget is deprecated; use ${g.group}/v2`;
        spec['versions'] = [
          { ...first, name: 'v2', storage: true },
          { ...first, storage: false, deprecated: true, deprecationWarning: warning },
        ];
        const updated = await b.request('PUT', crdPath, { body: crd });
        assert.equal(updated.code, 200, updated.text);
        assert.deepEqual(field(updated.json, 'status', 'storedVersions'), ['v1', 'v2']);
        const read = await eventually('v2 served', async () => {
          const r = await b.request('GET', v2('old'));
          return r.code === 200 ? r : undefined;
        });
        assert.equal(read.json['apiVersion'], `${g.group}/v2`);
        const old = await b.request('GET', v1('old'));
        assert.equal(old.json['apiVersion'], `${g.group}/v1`);
        assert.deepEqual(old.json['spec'], read.json['spec']);
        assert.match(String(old.headers['warning']), new RegExp(`299 - "${warning}"`));
        assert.equal(read.headers['warning'], undefined);

        // A write that changes nothing is still stored anew when it was stored at another version
        // (what a storage-version migration relies on); once at v2, the same write is a no-op.
        const rewrite = async () => {
          const current = (await b.request('GET', v2('old'))).json;
          const put = await b.request('PUT', v2('old'), { body: current });
          assert.equal(put.code, 200, put.text);
          return [meta(current)['resourceVersion'], meta(put.json)['resourceVersion']];
        };
        const [before, after] = await rewrite();
        assert.notEqual(after, before, 'rewritten at the storage version');
        const [again, same] = await rewrite();
        assert.equal(same, again, 'already stored at v2: nothing written');

        const storedVersions = (versions: string[]) =>
          b.request('PATCH', `${crdPath}/status`, {
            body: { status: { storedVersions: versions } },
            contentType: MERGE,
          });
        // /status takes any list (ValidateUpdateCustomResourceDefinitionStatus checks names and
        // conditions only); the next spec write puts the storage version back (PrepareForUpdate).
        const wrong = await storedVersions(['v1']);
        assert.equal(wrong.code, 200, wrong.text);
        assert.deepEqual(field(wrong.json, 'status', 'storedVersions'), ['v1']);
        const rewritten = await b.request('PUT', crdPath, { body: wrong.json });
        assert.equal(rewritten.code, 200, rewritten.text);
        assert.deepEqual(field(rewritten.json, 'status', 'storedVersions'), ['v1', 'v2']);
        const trimmed = await storedVersions(['v2']);
        assert.equal(trimmed.code, 200, trimmed.text);
        assert.deepEqual(field(trimmed.json, 'status', 'storedVersions'), ['v2']);
        // A spec write keeps the status: the list does not grow back.
        const again2 = (await b.request('GET', crdPath)).json;
        const kept = await b.request('PUT', crdPath, { body: again2 });
        assert.deepEqual(field(kept.json, 'status', 'storedVersions'), ['v2']);
      },
    },
  ],
};
