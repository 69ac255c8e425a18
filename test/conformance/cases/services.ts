/**
 * Services and what the controllers keep for them: a ClusterIP allocated from the service range with
 * the Service defaults, a taken address refused, NodePorts from their range; the Endpoints and
 * EndpointSlice of a selecting Service listing its pods (ready ones as ready, the others apart, a
 * named targetPort resolved through the pod), and a pod that goes leaving both. The case writes the
 * pods' IPs and readiness as their kubelet would.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { createPod, fakeNode, field, MERGE, meta, podPath } from '../fixtures.js';

type Obj = Record<string, unknown>;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

const servicePath = (ns: string, name = '') =>
  `/api/v1/namespaces/${ns}/services${name ? `/${name}` : ''}`;

async function createService(b: Backend, ns: string, name: string, spec: Obj) {
  return b.request('POST', servicePath(ns), { body: { metadata: { name }, spec } });
}

/** What a kubelet writes for a started pod: its IP, Running, and Ready or not. */
async function podUp(b: Backend, ns: string, name: string, ip: string, ready: boolean) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const reply = await b.request('PATCH', `${podPath(ns, name)}/status`, {
    contentType: MERGE,
    body: {
      status: {
        phase: 'Running',
        podIP: ip,
        podIPs: [{ ip }],
        startTime: now,
        conditions: [
          { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now },
          { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now },
        ],
      },
    },
  });
  assert.equal(reply.code, 200, reply.text);
}

const slicesOf = async (b: Backend, ns: string, service: string) =>
  ((
    await b.request(
      'GET',
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${service}`,
    )
  ).json['items'] ?? []) as Obj[];

export const serviceCases: CaseGroup = {
  name: 'Services and endpoints',
  cases: [
    {
      id: 'a Service gets a ClusterIP and its defaults; a taken address is refused; NodePorts come from their range',
      async run(b) {
        const kubernetes = await b.request('GET', servicePath('default', 'kubernetes'));
        assert.equal(kubernetes.code, 200, kubernetes.text);
        assert.match(String(field(kubernetes.json, 'spec', 'clusterIP')), /^\d+\.\d+\.\d+\.1$/);
        assert.deepEqual(
          (field(kubernetes.json, 'spec', 'ports') as Obj[]).map((p) => [p['name'], p['port']]),
          [['https', 443]],
        );

        const ns = await b.namespace();
        const created = await createService(b, ns, 'web', {
          selector: { app: 'web' },
          ports: [{ port: 80, targetPort: 8080 }],
        });
        assert.equal(created.code, 201, created.text);
        const spec = field(created.json, 'spec') as Obj;
        const ip = String(spec['clusterIP']);
        assert.match(ip, IPV4);
        assert.deepEqual(
          {
            type: spec['type'],
            clusterIPs: spec['clusterIPs'],
            sessionAffinity: spec['sessionAffinity'],
            ipFamilies: spec['ipFamilies'],
            ipFamilyPolicy: spec['ipFamilyPolicy'],
            internalTrafficPolicy: spec['internalTrafficPolicy'],
            ports: spec['ports'],
          },
          {
            type: 'ClusterIP',
            clusterIPs: [ip],
            sessionAffinity: 'None',
            ipFamilies: ['IPv4'],
            ipFamilyPolicy: 'SingleStack',
            internalTrafficPolicy: 'Cluster',
            ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
          },
        );
        assert.deepEqual(field(created.json, 'status'), { loadBalancer: {} });

        const taken = await createService(b, ns, 'copy', {
          clusterIP: ip,
          ports: [{ port: 80 }],
        });
        assert.equal(taken.code, 422, taken.text);
        assert.equal(taken.json['reason'], 'Invalid');
        assert.match(
          String(taken.json['message']),
          /spec\.clusterIPs: Invalid value: .*already allocated/,
        );

        const nodePort = await createService(b, ns, 'edge', {
          type: 'NodePort',
          selector: { app: 'web' },
          ports: [{ port: 80 }],
        });
        assert.equal(nodePort.code, 201, nodePort.text);
        const port = (field(nodePort.json, 'spec', 'ports') as Obj[])[0] ?? {};
        assert.ok(Number(port['nodePort']) >= 30000 && Number(port['nodePort']) <= 32767);
        assert.equal(field(nodePort.json, 'spec', 'externalTrafficPolicy'), 'Cluster');

        const missing = await createService(b, ns, 'bad', { selector: { app: 'web' } });
        assert.equal(missing.code, 422, missing.text);
        assert.match(String(missing.json['message']), /spec\.ports: Required value/);
      },
    },
    {
      id: 'Endpoints and EndpointSlices list the pods a Service selects, ready or not, and drop a pod that goes',
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b);
        const spec = {
          nodeName: node,
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: 'main',
              image: 'registry.k8s.io/pause:3.10',
              ports: [{ name: 'http', containerPort: 8080 }],
            },
          ],
        };
        await createPod(b, ns, 'ready', { labels: { app: 'web' }, spec });
        await createPod(b, ns, 'starting', { labels: { app: 'web' }, spec });
        await createPod(b, ns, 'other', { labels: { app: 'db' }, spec });
        await podUp(b, ns, 'ready', '10.244.7.11', true);
        await podUp(b, ns, 'starting', '10.244.7.12', false);
        await podUp(b, ns, 'other', '10.244.7.13', true);
        const created = await createService(b, ns, 'web', {
          selector: { app: 'web' },
          ports: [{ port: 80, targetPort: 'http' }],
        });
        assert.equal(created.code, 201, created.text);
        const uid = (p: string) =>
          b.request('GET', podPath(ns, p)).then((r) => String(meta(r.json)['uid']));
        const ref = async (name: string) => ({
          kind: 'Pod',
          namespace: ns,
          name,
          uid: await uid(name),
        });

        const endpoints = await eventually('the Endpoints', async () => {
          const reply = await b.request('GET', `/api/v1/namespaces/${ns}/endpoints/web`);
          const subsets = reply.json['subsets'] as Obj[] | undefined;
          return subsets?.[0]?.['notReadyAddresses'] ? reply.json : undefined;
        });
        assert.deepEqual(endpoints['subsets'], [
          {
            addresses: [{ ip: '10.244.7.11', nodeName: node, targetRef: await ref('ready') }],
            notReadyAddresses: [
              { ip: '10.244.7.12', nodeName: node, targetRef: await ref('starting') },
            ],
            ports: [{ port: 8080, protocol: 'TCP' }],
          },
        ]);

        const [slice, ...more] = await eventually('the EndpointSlice', async () => {
          const slices = await slicesOf(b, ns, 'web');
          return ((slices[0]?.['endpoints'] as Obj[] | undefined) ?? []).length === 2
            ? slices
            : undefined;
        });
        assert.equal(more.length, 0);
        assert.ok(slice);
        assert.equal(slice['addressType'], 'IPv4');
        assert.equal(
          meta(slice)['labels'] &&
            (meta(slice)['labels'] as Obj)['endpointslice.kubernetes.io/managed-by'],
          'endpointslice-controller.k8s.io',
        );
        const owner = (meta(slice)['ownerReferences'] as Obj[])[0] ?? {};
        assert.deepEqual(
          [owner['kind'], owner['name'], owner['controller']],
          ['Service', 'web', true],
        );
        assert.deepEqual(slice['ports'], [{ name: '', port: 8080, protocol: 'TCP' }]);
        const byAddress = ((slice['endpoints'] ?? []) as Obj[]).sort((x, y) =>
          String(x['addresses']).localeCompare(String(y['addresses'])),
        );
        assert.deepEqual(byAddress, [
          {
            addresses: ['10.244.7.11'],
            conditions: { ready: true, serving: true, terminating: false },
            nodeName: node,
            targetRef: await ref('ready'),
          },
          {
            addresses: ['10.244.7.12'],
            conditions: { ready: false, serving: false, terminating: false },
            nodeName: node,
            targetRef: await ref('starting'),
          },
        ]);

        const gone = await b.request('DELETE', podPath(ns, 'ready'));
        assert.equal(gone.code, 200, gone.text);
        await eventually('the pod gone from the Endpoints', async () => {
          const reply = await b.request('GET', `/api/v1/namespaces/${ns}/endpoints/web`);
          const subsets = (reply.json['subsets'] ?? []) as Obj[];
          return subsets.length === 1 && !subsets[0]?.['addresses'] ? true : undefined;
        });
        await eventually('the pod gone from the EndpointSlice', async () => {
          const [only] = await slicesOf(b, ns, 'web');
          const addresses = ((only?.['endpoints'] ?? []) as Obj[]).map((e) => e['addresses']);
          return JSON.stringify(addresses) === '[["10.244.7.12"]]' ? true : undefined;
        });
      },
    },
  ],
};
