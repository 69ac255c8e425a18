/**
 * PriorityClasses and the Priority admission plugin: the two system classes exist from the start, a
 * pod's priorityClassName becomes its spec.priority and preemptionPolicy, an unknown class is 403.
 */
import assert from 'node:assert/strict';
import type { CaseGroup } from '../case.js';

type Obj = Record<string, unknown>;
const pcPath = '/apis/scheduling.k8s.io/v1/priorityclasses';
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
  ],
};
