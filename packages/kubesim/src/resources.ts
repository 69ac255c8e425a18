/**
 * The sim's resource registry: for every kind, what discovery advertises (group, version, plural,
 * kind, scope, short names, subresources) and what the generic store does differently for it
 * (defaults, validation, selectable fields, update/delete strategy). Adding a kind is one entry.
 */
import {
  StatusError,
  type KObject,
  type PropagationPolicy,
  type ResourceKey,
  type Store,
} from './types.js';
import type { StatusCause } from './status-errors.js';
import {
  asObj,
  checkMicroTimes,
  daemonSetDefaults,
  deploymentDefaults,
  eventsV1Validate,
  jobDefaults,
  jobValidate,
  namespaceDefaults,
  nodeDefaults,
  podDefaults,
  podGracePeriod,
  podValidate,
  replicasDefaults,
  secretDefaults,
  statefulSetDefaults,
  workloadValidate,
} from './resource-hooks.js';
import { ACCESS_RESOURCES } from './resources-access.js';
import { eventNamespaceCauses } from './events.js';
import { priorityClassDefaults, priorityClassValidate, resolvePodPriority } from './priority.js';
import {
  CRD_CLEANUP_FINALIZER,
  crdDefaults,
  crdPrepareForUpdate,
  crdValidate,
} from './crd-validation.js';
import {
  admitService,
  endpointSliceValidate,
  serviceDefaults,
  serviceValidate,
} from './service-hooks.js';
import { claimDefaults, claimValidate } from './claim-hooks.js';
import { cronJobDefaults, cronJobValidate } from './cronjob-hooks.js';

export type FieldGetter = (object: KObject) => string | undefined;

/** An `additionalPrinterColumns` entry of a CRD version. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What serving a custom resource version needs beyond the generic store (see crd-defs.ts). */
export interface CustomResourceInfo {
  /** The CRD that serves it. */
  crd: string;
  printerColumns: readonly PrinterColumn[];
  /**
   * What decoding a request body does in kube-apiserver: drops fields the schema does not know and
   * fills in its defaults. Returns the dropped fields' paths (`spec.extra`) for `fieldValidation`.
   */
  decode: (object: KObject) => string[];
  /** A deprecated version's warning, sent with every request to it (`deprecationWarning`). */
  deprecationWarning?: string;
}

export interface ResourceDef {
  key: ResourceKey;
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  /** Subresources served under `<plural>/<name>/<sub>`: `status`, `eviction`, `binding`, `token`. */
  subresources: readonly string[];
  /** Extra selectable fields beyond metadata.name/metadata.namespace. */
  fields: Readonly<Record<string, FieldGetter>>;
  /** Fields (from `fields`) the store indexes, so `field=value` selections skip the full scan. */
  indexedFields: readonly string[];
  /** PUT without metadata.resourceVersion is allowed (false for Leases: 422). @default true */
  unconditionalUpdate: boolean;
  /** PUT of a missing object creates it (Leases). @default false */
  createOnUpdate: boolean;
  /** Name rules when not a DNS subdomain's (RBAC objects take any path segment). */
  validateName?: (name: string) => StatusCause[];
  /** Admission on create that reads other objects (the Priority plugin resolves a pod's class). */
  admitCreate?: (object: KObject, store: Store) => void;
  /** Defaults applied on create (after uid/name are set). */
  defaults?: (object: KObject) => void;
  /**
   * Field errors on create and update (422 Invalid); `old` is the stored object on updates (CRDs'
   * transition rules read it), `subresource` is set for a write of one (`status`), which some kinds
   * check less. May throw a 400 for undecodable values.
   */
  validate?: (object: KObject, old?: KObject, subresource?: string) => StatusCause[];
  /** The kind's own update strategy, after the generic one (a CRD's new storage version). */
  prepareForUpdate?: (next: KObject, subresource: string | undefined) => void;
  /** Whether an update bumps `metadata.generation`. @default a change outside metadata and status */
  bumpsGeneration?: (before: KObject, after: KObject) => boolean;
  /** Metadata a `/status` write may change. @default labels and annotations */
  statusMetadata?: readonly string[];
  /** A finalizer the registry adds when the object is deleted (the CRD's instance cleanup). */
  deleteFinalizer?: string;
  /** Set for custom resources: what a CRD says about this version (crd-defs.ts). */
  custom?: CustomResourceInfo;
  /** Seconds until a deleted object is removed; 0 removes it at once. @default 0 */
  gracePeriod?: (object: KObject, requested: number | undefined) => number;
  /** What a DELETE without propagationPolicy means for dependents. @default 'Background' */
  defaultPropagation: PropagationPolicy;
}

const path =
  (...parts: string[]): FieldGetter =>
  (o) => {
    let v: unknown = o;
    for (const p of parts) v = asObj(v)[p];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : JSON.stringify(v);
  };

const refFields = (prefix: string): Record<string, FieldGetter> =>
  Object.fromEntries(
    ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((f) => [
      `${prefix}.${f}`,
      path(prefix, f),
    ]),
  );

type DefInput = Pick<ResourceDef, 'group' | 'plural' | 'kind'> & Partial<ResourceDef>;

function def(input: DefInput): ResourceDef {
  return {
    key: input.group === '' ? input.plural : `${input.plural}.${input.group}`,
    version: 'v1',
    singular: input.kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    subresources: [],
    fields: {},
    indexedFields: [],
    unconditionalUpdate: true,
    createOnUpdate: false,
    defaultPropagation: 'Background',
    ...input,
  };
}

const workload = { categories: ['all'], subresources: ['status'], validate: workloadValidate };
/** Workloads with a replica count: `kubectl scale` and autoscalers use their `scale` subresource. */
const scalable = { ...workload, subresources: ['status', 'scale'] };

const DEFS: readonly ResourceDef[] = [
  def({
    group: '',
    plural: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    subresources: ['status'],
    defaults: namespaceDefaults,
    fields: { 'status.phase': path('status', 'phase') },
  }),
  def({
    group: '',
    plural: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: ['status'],
    defaults: nodeDefaults,
    fields: { 'spec.unschedulable': (o) => (asObj(o.spec)['unschedulable'] ? 'true' : 'false') },
  }),
  def({
    group: '',
    plural: 'pods',
    kind: 'Pod',
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'eviction', 'binding', 'log', 'exec', 'attach', 'portforward'],
    defaults: podDefaults,
    admitCreate: (pod, store) =>
      resolvePodPriority(
        pod,
        (name) => store.get('priorityclasses.scheduling.k8s.io', undefined, name),
        () => store.list('priorityclasses.scheduling.k8s.io'),
      ),
    validate: podValidate,
    gracePeriod: podGracePeriod,
    // Kubelets, the scheduler and `kubectl drain` all select pods by node.
    indexedFields: ['spec.nodeName'],
    fields: {
      'spec.nodeName': path('spec', 'nodeName'),
      'spec.restartPolicy': path('spec', 'restartPolicy'),
      'spec.schedulerName': path('spec', 'schedulerName'),
      'spec.serviceAccountName': path('spec', 'serviceAccountName'),
      'spec.hostNetwork': (o) => (asObj(o.spec)['hostNetwork'] ? 'true' : 'false'),
      'status.phase': path('status', 'phase'),
      'status.podIP': path('status', 'podIP'),
      'status.nominatedNodeName': path('status', 'nominatedNodeName'),
    },
  }),
  def({
    group: '',
    plural: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    validate: (o) => (checkMicroTimes(o, ['eventTime']), eventNamespaceCauses(o)),
    fields: {
      ...refFields('involvedObject'),
      reason: path('reason'),
      reportingComponent: path('reportingComponent'),
      source: path('source', 'component'),
      type: path('type'),
    },
  }),
  def({
    group: 'scheduling.k8s.io',
    plural: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
    defaults: priorityClassDefaults,
    validate: priorityClassValidate,
  }),
  def({ group: '', plural: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'] }),
  def({
    group: '',
    plural: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
    defaults: serviceDefaults,
    admitCreate: admitService,
    validate: serviceValidate,
  }),
  def({
    group: '',
    plural: 'endpoints',
    singular: 'endpoints',
    kind: 'Endpoints',
    shortNames: ['ep'],
  }),
  def({
    group: 'discovery.k8s.io',
    plural: 'endpointslices',
    kind: 'EndpointSlice',
    validate: endpointSliceValidate,
  }),
  def({
    group: '',
    plural: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    shortNames: ['pvc'],
    subresources: ['status'],
    defaults: claimDefaults,
    validate: claimValidate,
  }),
  def({
    group: '',
    plural: 'secrets',
    kind: 'Secret',
    defaults: secretDefaults,
    fields: { type: path('type') },
  }),
  def({
    group: '',
    plural: 'serviceaccounts',
    kind: 'ServiceAccount',
    shortNames: ['sa'],
    subresources: ['token'],
  }),
  def({
    group: 'policy',
    plural: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    shortNames: ['pdb'],
    subresources: ['status'],
  }),
  def({
    group: 'coordination.k8s.io',
    plural: 'leases',
    kind: 'Lease',
    unconditionalUpdate: false,
    createOnUpdate: true,
    validate: (o) => (checkMicroTimes(o, ['spec.acquireTime', 'spec.renewTime']), []),
  }),
  def({
    group: 'batch',
    plural: 'jobs',
    kind: 'Job',
    categories: ['all'],
    subresources: ['status'],
    defaults: jobDefaults,
    validate: jobValidate,
    // batch/v1 Jobs orphan their pods unless told otherwise (pkg/registry/batch/job/storage).
    defaultPropagation: 'Orphan',
  }),
  def({
    group: 'batch',
    plural: 'cronjobs',
    kind: 'CronJob',
    shortNames: ['cj'],
    categories: ['all'],
    subresources: ['status'],
    defaults: cronJobDefaults,
    validate: cronJobValidate,
  }),
  def({
    group: 'apps',
    plural: 'deployments',
    kind: 'Deployment',
    shortNames: ['deploy'],
    ...scalable,
    defaults: deploymentDefaults,
  }),
  def({
    group: 'apps',
    plural: 'replicasets',
    kind: 'ReplicaSet',
    shortNames: ['rs'],
    ...scalable,
    defaults: replicasDefaults,
  }),
  def({
    group: 'apps',
    plural: 'daemonsets',
    kind: 'DaemonSet',
    shortNames: ['ds'],
    ...workload,
    defaults: daemonSetDefaults,
  }),
  def({
    group: 'apps',
    plural: 'statefulsets',
    kind: 'StatefulSet',
    shortNames: ['sts'],
    ...scalable,
    defaults: statefulSetDefaults,
  }),
  def({ group: 'apps', plural: 'controllerrevisions', kind: 'ControllerRevision' }),
  def({
    group: 'apiextensions.k8s.io',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    defaults: crdDefaults,
    prepareForUpdate: crdPrepareForUpdate,
    validate: crdValidate,
    deleteFinalizer: CRD_CLEANUP_FINALIZER,
  }),
  def({
    group: 'events.k8s.io',
    plural: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    validate: (o) => (checkMicroTimes(o, ['eventTime']), eventsV1Validate(o)),
    fields: {
      ...refFields('regarding'),
      reason: path('reason'),
      reportingController: path('reportingController'),
      type: path('type'),
    },
  }),
  // RBAC and admission policies (resources-access.ts).
  ...ACCESS_RESOURCES,
];

const BY_KEY = new Map(DEFS.map((d) => [d.key, d]));

/** The built-in kinds; a store's own registry (resource-registry.ts) adds the CRDs' resources. */
export const allResources = (): readonly ResourceDef[] => DEFS;

export const resourceDef = (key: ResourceKey): ResourceDef | undefined => BY_KEY.get(key);

/** The registry entry, or the apiserver's 404 for a resource it does not serve. */
export function requireResource(key: ResourceKey): ResourceDef {
  const def = BY_KEY.get(key);
  if (!def) {
    throw new StatusError(
      404,
      'NotFound',
      `the server could not find the requested resource (${key})`,
    );
  }
  return def;
}

export const apiVersionOf = (d: Pick<ResourceDef, 'group' | 'version'>): string =>
  d.group === '' ? d.version : `${d.group}/${d.version}`;

/** The fields a resource's field selector accepts. */
export function fieldGetter(d: ResourceDef, field: string): FieldGetter | undefined {
  if (field === 'metadata.name') return (o) => o.metadata.name;
  if (field === 'metadata.namespace' && d.namespaced) return (o) => o.metadata.namespace;
  return d.fields[field];
}

/** Looks a resource up by group/version/plural, as URL paths name it. */
export function resourceByPath(group: string, version: string, plural: string) {
  return DEFS.find((d) => d.group === group && d.version === version && d.plural === plural);
}
