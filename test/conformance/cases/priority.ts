/**
 * PriorityClasses and the Priority admission plugin: the two system classes exist from the start, a
 * pod's priorityClassName becomes its spec.priority and preemptionPolicy, an unknown class is 403;
 * `system-` names are reserved and user values capped (422), value and preemptionPolicy never change
 * (422), the system classes cannot be deleted (403), and one class at most is the global default
 * (403), which pods without a class then get.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';

type Obj = Record<string, unknown>;
const pcPath = '/apis/scheduling.k8s.io/v1/priorityclasses';
const priorityClass = (name: string, value: number, extra: Obj = {}) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  ...extra,
});
/** Creates a PriorityClass (201 asserted) that the case's cleanup deletes. */
async function createClass(b: Backend, name: string, value: number, extra: Obj = {}) {
  const reply = await b.request('POST', pcPath, { body: priorityClass(name, value, extra) });
  assert.equal(reply.code, 201, reply.text);
  b.defer(() => b.request('DELETE', `${pcPath}/${name}`));
  return reply;
}
const causesOf = (reply: { json: Obj }) =>
  ((reply.json['details'] as Obj | undefined)?.['causes'] ?? []) as Obj[];
const pod = (name: string, priorityClassName?: string) => ({
  metadata: { name },
  spec: {
    ...(priorityClassName ? { priorityClassName } : {}),
    containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
  },
});

export const priorityCases: CaseGroup = {
  name: 'PriorityClasses',
  cases: [
    {
      id: 'system-node-critical and system-cluster-critical exist with their values',
      async run(b) {
        for (const [name, value] of [
          ['system-node-critical', 2_000_001_000],
          ['system-cluster-critical', 2_000_000_000],
        ] as const) {
          const reply = await b.request('GET', `${pcPath}/${name}`);
          assert.equal(reply.code, 200, reply.text);
          assert.equal(reply.json['value'], value);
          assert.equal(reply.json['preemptionPolicy'], 'PreemptLowerPriority');
        }
      },
    },
    {
      id: "a pod's priorityClassName resolves to spec.priority; without one it is 0",
      async run(b) {
        const ns = await b.namespace();
        const critical = await b.request('POST', `/api/v1/namespaces/${ns}/pods`, {
          body: pod('critical', 'system-node-critical'),
        });
        assert.equal(critical.code, 201, critical.text);
        const spec = critical.json['spec'] as Obj;
        assert.equal(spec['priority'], 2_000_001_000);
        assert.equal(spec['preemptionPolicy'], 'PreemptLowerPriority');
        const plain = await b.request('POST', `/api/v1/namespaces/${ns}/pods`, {
          body: pod('plain'),
        });
        assert.equal(plain.code, 201, plain.text);
        assert.equal((plain.json['spec'] as Obj)['priority'], 0);
        // The plugin computes a policy without a class too, and holds the pod to it.
        assert.equal((plain.json['spec'] as Obj)['preemptionPolicy'], 'PreemptLowerPriority');
      },
    },
    {
      id: 'a pod naming a PriorityClass that does not exist is 403 Forbidden',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', `/api/v1/namespaces/${ns}/pods`, {
          body: pod('lost', 'conf-no-such-class'),
        });
        assert.equal(reply.code, 403, reply.text);
        assert.equal(reply.json['reason'], 'Forbidden');
        assert.equal(
          reply.json['message'],
          'pods "lost" is forbidden: no PriorityClass with name conf-no-such-class was found',
        );
      },
    },
    {
      id: 'a PriorityClass named system-… that is not a system class is 422 Invalid',
      async run(b) {
        const name = `system-${b.unique('mine')}`;
        const reply = await b.request('POST', pcPath, { body: priorityClass(name, 1000) });
        if (reply.code === 201) b.defer(() => b.request('DELETE', `${pcPath}/${name}`));
        assert.equal(reply.code, 422, reply.text);
        assert.equal(reply.json['reason'], 'Invalid');
        const why = `priority class names with 'system-' prefix are reserved for system use only. error: ${name} is not a known system priority class`;
        assert.equal(
          reply.json['message'],
          `PriorityClass.scheduling.k8s.io "${name}" is invalid: metadata.name: Forbidden: ${why}`,
        );
        assert.deepEqual(causesOf(reply), [
          { reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field: 'metadata.name' },
        ]);
      },
    },
    {
      id: 'a user PriorityClass above one billion is 422 Invalid',
      async run(b) {
        const name = b.unique('high');
        const reply = await b.request('POST', pcPath, { body: priorityClass(name, 1_000_000_001) });
        if (reply.code === 201) b.defer(() => b.request('DELETE', `${pcPath}/${name}`));
        assert.equal(reply.code, 422, reply.text);
        assert.equal(
          reply.json['message'],
          `PriorityClass.scheduling.k8s.io "${name}" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`,
        );
      },
    },
    {
      id: 'value and preemptionPolicy of a PriorityClass never change (422)',
      async run(b) {
        const name = b.unique('fixed');
        await createClass(b, name, 100);
        const reply = await b.request('PATCH', `${pcPath}/${name}`, {
          body: { value: 200, preemptionPolicy: 'Never' },
          contentType: 'application/merge-patch+json',
        });
        assert.equal(reply.code, 422, reply.text);
        assert.equal(
          reply.json['message'],
          `PriorityClass.scheduling.k8s.io "${name}" is invalid: [value: Forbidden: may not be changed in an update., preemptionPolicy: Invalid value: "Never": field is immutable]`,
        );
        const system = await b.request('PATCH', `${pcPath}/system-node-critical`, {
          body: { value: 5 },
          contentType: 'application/merge-patch+json',
        });
        assert.equal(system.code, 422, system.text);
        assert.equal(
          system.json['message'],
          'PriorityClass.scheduling.k8s.io "system-node-critical" is invalid: value: Forbidden: may not be changed in an update.',
        );
      },
    },
    {
      id: 'the system PriorityClasses cannot be deleted (403 Forbidden)',
      async run(b) {
        for (const name of ['system-node-critical', 'system-cluster-critical']) {
          const reply = await b.request('DELETE', `${pcPath}/${name}`);
          assert.equal(reply.code, 403, reply.text);
          assert.equal(reply.json['reason'], 'Forbidden');
          assert.equal(
            reply.json['message'],
            `priorityclasses.scheduling.k8s.io "${name}" is forbidden: this is a system priority class and cannot be deleted`,
          );
          assert.equal((await b.request('GET', `${pcPath}/${name}`)).code, 200);
        }
      },
    },
    {
      id: "a pod's preemptionPolicy comes from its PriorityClass; stating another is 403",
      async run(b) {
        const ns = await b.namespace();
        const name = b.unique('never');
        await createClass(b, name, 10, { preemptionPolicy: 'Never' });
        const created = await b.request('POST', `/api/v1/namespaces/${ns}/pods`, {
          body: pod('polite', name),
        });
        assert.equal(created.code, 201, created.text);
        const spec = created.json['spec'] as Obj;
        assert.equal(spec['priority'], 10);
        assert.equal(spec['preemptionPolicy'], 'Never');
        const body = pod('pushy', name);
        (body.spec as Obj)['preemptionPolicy'] = 'PreemptLowerPriority';
        const refused = await b.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
        assert.equal(refused.code, 403, refused.text);
        assert.equal(
          refused.json['message'],
          `pods "pushy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`,
        );
      },
    },
    {
      // Last in the group: while it exists, the default applies to every pod created on the
      // cluster, so it has value 0 and lives as briefly as the case.
      id: 'one PriorityClass at most is the global default (403); pods without a class get it',
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const first = b.unique('default');
        await createClass(b, first, 0, { globalDefault: true });
        // kube-apiserver's Priority plugin reads an informer: wait until it knows the new default.
        const spec = await eventually('the new default known to admission', async () => {
          const reply = await b.request('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, {
            body: pod('defaulted'),
          });
          const got = reply.json['spec'] as Obj | undefined;
          return got?.['priorityClassName'] === first ? got : undefined;
        });
        assert.equal(spec['priority'], 0);
        assert.equal(spec['preemptionPolicy'], 'PreemptLowerPriority');
        const second = b.unique('default');
        const reply = await b.request('POST', pcPath, {
          body: priorityClass(second, 0, { globalDefault: true }),
        });
        if (reply.code === 201) b.defer(() => b.request('DELETE', `${pcPath}/${second}`));
        assert.equal(reply.code, 403, reply.text);
        assert.equal(
          reply.json['message'],
          `priorityclasses.scheduling.k8s.io "${second}" is forbidden: PriorityClass ${first} is already marked as default. Only one default can exist`,
        );
      },
    },
  ],
};
