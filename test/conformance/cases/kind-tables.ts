/**
 * `kubectl get` tables of the kinds issue 17 added (DaemonSets, ControllerRevisions, Services,
 * Endpoints, EndpointSlices, PersistentVolumeClaims, CronJobs): the same columns (name, priority,
 * type) and the same cells, placeholders included, for objects whose cells do not depend on
 * allocation or time.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';

type Obj = Record<string, unknown>;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

async function table(b: Backend, path: string) {
  const reply = await b.request('GET', path, { accept: TABLE });
  assert.equal(reply.json['kind'], 'Table', reply.text);
  const columns = (reply.json['columnDefinitions'] as Obj[]).map(
    (c) => `${String(c['name'])}:${String(c['priority'])}:${String(c['type'])}`,
  );
  const rows = (reply.json['rows'] as { cells: unknown[] }[]).map((r) => r.cells);
  return { columns, rows };
}

async function create(b: Backend, path: string, body: Obj) {
  const reply = await b.request('POST', path, { body });
  assert.equal(reply.code, 201, reply.text);
}

/** Every cell but those named (by column index). */
const without = (cells: unknown[] | undefined, ...skip: number[]) =>
  (cells ?? []).filter((_, i) => !skip.includes(i));

export const kindTableCases: CaseGroup = {
  name: 'Tables of services, claims, cron jobs and daemon sets',
  cases: [
    {
      id: 'kubectl get columns and cells of Services, Endpoints, EndpointSlices, PVCs, CronJobs, DaemonSets, ControllerRevisions',
      async run(b) {
        const ns = await b.namespace();
        await create(b, `/api/v1/namespaces/${ns}/services`, {
          metadata: { name: 'web' },
          spec: {
            selector: { app: 'web', tier: 'front' },
            ports: [
              { name: 'http', port: 80 },
              { name: 'metrics', port: 9090, protocol: 'UDP' },
            ],
          },
        });
        await create(b, `/api/v1/namespaces/${ns}/services`, {
          metadata: { name: 'ext' },
          spec: { type: 'ExternalName', externalName: 'db.example.com' },
        });
        const services = await table(b, `/api/v1/namespaces/${ns}/services`);
        assert.deepEqual(services.columns, [
          'Name:0:string',
          'Type:0:string',
          'Cluster-IP:0:string',
          'External-IP:0:string',
          'Port(s):0:string',
          'Age:0:string',
          'Selector:1:string',
        ]);
        assert.deepEqual(without(services.rows[0], 5), [
          'ext',
          'ExternalName',
          '<none>',
          'db.example.com',
          '<none>',
          '<none>',
        ]);
        assert.deepEqual(without(services.rows[1], 2, 5), [
          'web',
          'ClusterIP',
          '<none>',
          '80/TCP,9090/UDP',
          'app=web,tier=front',
        ]);

        const endpoints = await eventually('the Endpoints', async () => {
          const t = await table(b, `/api/v1/namespaces/${ns}/endpoints`);
          return t.rows.length === 1 ? t : undefined;
        });
        assert.deepEqual(endpoints.columns, [
          'Name:0:string',
          'Endpoints:0:string',
          'Age:0:string',
        ]);
        assert.deepEqual(without(endpoints.rows[0], 2), ['web', '<none>']);
        const slices = await eventually('the EndpointSlice', async () => {
          const t = await table(b, `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`);
          return t.rows.length === 1 ? t : undefined;
        });
        assert.deepEqual(slices.columns, [
          'Name:0:string',
          'AddressType:0:string',
          'Ports:0:string',
          'Endpoints:0:string',
          'Age:0:string',
        ]);
        assert.deepEqual(without(slices.rows[0], 0, 4), ['IPv4', '<unset>', '<unset>']);

        await create(b, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        });
        const claims = await table(b, `/api/v1/namespaces/${ns}/persistentvolumeclaims`);
        assert.deepEqual(claims.columns, [
          'Name:0:string',
          'Status:0:string',
          'Volume:0:string',
          'Capacity:0:string',
          'Access Modes:0:string',
          'StorageClass:0:string',
          'VolumeAttributesClass:0:string',
          'Age:0:string',
          'VolumeMode:1:string',
        ]);
        assert.deepEqual(without(claims.rows[0], 7), [
          'data',
          'Pending',
          '',
          '',
          '',
          '',
          '<unset>',
          'Filesystem',
        ]);

        await create(b, `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
          metadata: { name: 'nightly' },
          spec: {
            schedule: '0 3 * * *',
            suspend: true,
            jobTemplate: {
              spec: {
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: [{ name: 'main', image: 'busybox:1.36' }],
                  },
                },
              },
            },
          },
        });
        const cronJobs = await table(b, `/apis/batch/v1/namespaces/${ns}/cronjobs`);
        assert.deepEqual(cronJobs.columns, [
          'Name:0:string',
          'Schedule:0:string',
          'Timezone:0:string',
          'Suspend:0:boolean',
          'Active:0:integer',
          'Last Schedule:0:string',
          'Age:0:string',
          'Containers:1:string',
          'Images:1:string',
          'Selector:1:string',
        ]);
        assert.deepEqual(without(cronJobs.rows[0], 6), [
          'nightly',
          '0 3 * * *',
          '<none>',
          'True',
          0,
          '<none>',
          'main',
          'busybox:1.36',
          '<none>',
        ]);

        await create(b, `/apis/apps/v1/namespaces/${ns}/daemonsets`, {
          metadata: { name: 'agent' },
          spec: {
            selector: { matchLabels: { app: 'agent' } },
            template: {
              metadata: { labels: { app: 'agent' } },
              spec: {
                nodeSelector: { 'example.com/none': 'here' },
                containers: [{ name: 'main', image: 'busybox:1.36' }],
              },
            },
          },
        });
        const daemonSets = await eventually('the DaemonSet observed', async () => {
          const t = await table(b, `/apis/apps/v1/namespaces/${ns}/daemonsets`);
          return t.rows.length === 1 ? t : undefined;
        });
        assert.deepEqual(daemonSets.columns, [
          'Name:0:string',
          'Desired:0:integer',
          'Current:0:integer',
          'Ready:0:integer',
          'Up-to-date:0:integer',
          'Available:0:integer',
          'Node Selector:0:string',
          'Age:0:string',
          'Containers:1:string',
          'Images:1:string',
          'Selector:1:string',
        ]);
        assert.deepEqual(without(daemonSets.rows[0], 7), [
          'agent',
          0,
          0,
          0,
          0,
          0,
          'example.com/none=here',
          'main',
          'busybox:1.36',
          'app=agent',
        ]);
        const revisions = await eventually('the ControllerRevision', async () => {
          const t = await table(b, `/apis/apps/v1/namespaces/${ns}/controllerrevisions`);
          return t.rows.length === 1 ? t : undefined;
        });
        assert.deepEqual(revisions.columns, [
          'Name:0:string',
          'Controller:0:string',
          'Revision:0:string',
          'Age:0:string',
        ]);
        assert.deepEqual(without(revisions.rows[0], 0, 3), ['daemonset.apps/agent', 1]);
      },
    },
  ],
};
