/**
 * The endpoints and EndpointSlice controllers in one: for every Service with a selector, a v1
 * Endpoints of the same name and EndpointSlices (`<service>-<suffix>`, owned by the Service, labelled
 * `kubernetes.io/service-name`) listing the selected pods (service-endpoints.ts), kept in step as pods
 * come, go, become ready or start terminating. The Endpoints goes with its Service; the slices go
 * with it through the garbage collector.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { ownerReference } from './pod-template.js';
import { keyOf, splitKey } from './shapes.js';
import { selectorToString } from './selectors.js';
import { createWorkQueue } from './work-queue.js';
import {
  endpointSubsets,
  podEndpoints,
  serviceSelector,
  sliceGroups,
} from './service-endpoints.js';

const ACTOR = 'controller/endpoints';
const SERVICE_NAME = 'kubernetes.io/service-name';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const SLICE_MANAGER = 'endpointslice-controller.k8s.io';
const HEADLESS = 'service.kubernetes.io/headless';
/** The endpoints controller marks what it wrote (pkg/controller/endpoint LabelManagedBy). */
const ENDPOINTS_MANAGED_BY = 'endpoints.kubernetes.io/managed-by';
const ZONE = 'topology.kubernetes.io/zone';

type Obj = Record<string, unknown>;

export function startEndpointsController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;

  const selectedPods = (service: KObject, selector: Record<string, string>): KObject[] => {
    const namespace = service.metadata.namespace ?? '';
    if (ctx.pods) return ctx.pods.bySelector(namespace, { matchLabels: selector });
    return store.list(R.pods, {
      namespace,
      labelSelector: selectorToString({ matchLabels: selector }),
    });
  };

  const labelsOf = (service: KObject): Record<string, string> => ({
    ...service.metadata.labels,
    ...(service.spec?.['clusterIP'] === 'None' ? { [HEADLESS]: '' } : {}),
  });

  const writeEndpoints = (service: KObject, subsets: Obj[]): void => {
    const { namespace, name = '' } = service.metadata;
    const existing = store.get(R.endpoints, namespace, name);
    const labels = { ...labelsOf(service), [ENDPOINTS_MANAGED_BY]: 'endpoint-controller' };
    if (!existing) {
      store.create(
        R.endpoints,
        {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name, namespace, labels },
          ...(subsets.length > 0 ? { subsets } : {}),
        },
        { actor: ACTOR },
      );
      return;
    }
    store.mutate(
      R.endpoints,
      namespace,
      name,
      (e) => {
        e.metadata.labels = labels;
        if (subsets.length > 0) e['subsets'] = subsets;
        else delete e['subsets'];
      },
      { actor: ACTOR },
    );
  };

  const writeSlices = (service: KObject, groups: { ports: Obj[]; endpoints: Obj[] }[]): void => {
    const { namespace, name = '' } = service.metadata;
    const existing = store
      .list(R.endpointslices, {
        namespace,
        labelSelector: `${SERVICE_NAME}=${name},${MANAGED_BY}=${SLICE_MANAGER}`,
      })
      .filter((s) => s.metadata.ownerReferences?.some((r) => r.uid === service.metadata.uid));
    // No endpoints: one slice without them, as upstream keeps a placeholder.
    const wanted = groups.length > 0 ? groups : [{ ports: [], endpoints: [] }];
    const labels = { ...labelsOf(service), [SERVICE_NAME]: name, [MANAGED_BY]: SLICE_MANAGER };
    const unused = new Set(existing);
    /** Writes `group` into an existing slice (the mutate skips the write when nothing changed). */
    const rewrite = (slice: KObject, group: (typeof wanted)[number]) => {
      unused.delete(slice);
      store.mutate(
        R.endpointslices,
        namespace,
        slice.metadata.name ?? '',
        (s) => {
          s.metadata.labels = labels;
          s['endpoints'] = group.endpoints;
          if (group.ports.length > 0) s['ports'] = group.ports;
          else delete s['ports'];
        },
        { actor: ACTOR },
      );
    };
    const todo: typeof wanted = [];
    for (const group of wanted) {
      const same = [...unused].find(
        (s) => JSON.stringify(s['ports'] ?? []) === JSON.stringify(group.ports),
      );
      if (same) rewrite(same, group);
      else todo.push(group);
    }
    for (const group of todo) {
      const reuse = [...unused][0];
      if (reuse) {
        rewrite(reuse, group);
        continue;
      }
      store.create(
        R.endpointslices,
        {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            generateName: `${name}-`,
            namespace,
            labels,
            ownerReferences: [{ ...ownerReference(service), apiVersion: 'v1', kind: 'Service' }],
          },
          addressType: 'IPv4',
          endpoints: group.endpoints,
          ...(group.ports.length > 0 ? { ports: group.ports } : {}),
        },
        { actor: ACTOR },
      );
    }
    for (const slice of unused) {
      store.delete(R.endpointslices, namespace, slice.metadata.name ?? '', { actor: ACTOR });
    }
  };

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const service = store.get(R.services, namespace, name);
    if (!service || service.metadata.deletionTimestamp) {
      // Upstream deletes the Endpoints of a Service that is gone (the slices are owned: the GC's).
      if (store.get(R.endpoints, namespace, name))
        store.delete(R.endpoints, namespace, name, { actor: ACTOR });
      return;
    }
    const selector = serviceSelector(service);
    if (!selector || service.spec?.['type'] === 'ExternalName') return;
    const endpoints = podEndpoints(service, selectedPods(service, selector));
    writeEndpoints(service, endpointSubsets(service, endpoints));
    const zoneOf = (node: string) => store.get(R.nodes, undefined, node)?.metadata.labels?.[ZONE];
    writeSlices(service, sliceGroups(endpoints, zoneOf));
  };

  const queue = createWorkQueue({ name: 'endpoints', clock, log: ctx.log, reconcile });
  const servicesOf = (namespace: string): void => {
    for (const s of store.listPage(R.services, { namespace }, { shared: true }).items) {
      if (serviceSelector(s)) queue.add(keyOf(s));
    }
  };
  const stops = [
    store.watch(R.services, (e) => queue.add(keyOf(e.object))),
    // A pod's labels may have just stopped matching: every selecting Service of its namespace looks.
    store.watch(R.pods, (e) => servicesOf(e.object.metadata.namespace ?? '')),
    store.watch(R.endpointslices, (e) => {
      const service = e.object.metadata.labels?.[SERVICE_NAME];
      if (service && e.type === 'DELETED')
        queue.add(`${e.object.metadata.namespace ?? ''}/${service}`);
    }),
  ];
  for (const s of store.list(R.services)) queue.add(keyOf(s));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
