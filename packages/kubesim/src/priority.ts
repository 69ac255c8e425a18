/**
 * PriorityClasses as kube-apiserver serves them, and the Priority admission plugin.
 *
 * - Pods: a pod's `priorityClassName` resolves to `spec.priority` and `spec.preemptionPolicy` when it
 *   is created; a missing class is 403 Forbidden; a pod without one gets the global default class
 *   (its name, value and policy) or priority 0 and PreemptLowerPriority; a stated priority or policy
 *   that differs from the computed one is 403.
 * - PriorityClasses (registry validation, `pkg/apis/scheduling/validation`): names starting with
 *   `system-` are reserved for the two system classes (422), user values stop at one billion (422),
 *   `value` and `preemptionPolicy` never change (422). The plugin lets only one class be the
 *   `globalDefault` (403), and the registry refuses to delete a system class (403).
 *
 * The two system classes exist from the start, as kube-apiserver's bootstrap creates them.
 */
import { StatusError, type KObject, type Store } from './types.js';
import { forbidden, type ResourceName, type StatusCause } from './status-errors.js';
import type { AdmissionAttributes } from './admission/attributes.js';

/** `scheduling.SystemCriticalPriority`: a pod at or above it is critical to its kubelet. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
/** `scheduling.HighestUserDefinablePriority`. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = 'system-';
const PRIORITY_CLASSES = 'priorityclasses.scheduling.k8s.io';
const RESOURCE: ResourceName = {
  plural: 'priorityclasses',
  group: 'scheduling.k8s.io',
  kind: 'PriorityClass',
};
const POLICIES = ['PreemptLowerPriority', 'Never'];

export const SYSTEM_PRIORITY_CLASSES: readonly KObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: SYSTEM_CRITICAL_PRIORITY,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

const systemClass = (name: string | undefined): KObject | undefined =>
  SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);

export function priorityClassDefaults(pc: KObject): void {
  pc['value'] ??= 0;
  pc['preemptionPolicy'] ??= 'PreemptLowerPriority';
  pc['globalDefault'] ??= false;
}

/** `IsKnownSystemPriorityClass`: why a `system-` class is not one of the two, or undefined. */
function notKnownSystemClass(pc: KObject): string | undefined {
  const name = pc.metadata.name ?? '';
  const known = systemClass(name);
  if (!known) return `${name} is not a known system priority class`;
  if (pc['value'] !== known['value'])
    return `value of ${name} PriorityClass must be ${String(known['value'])}`;
  if (pc['globalDefault'] === true) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

/** `ValidatePriorityClass` on create, `ValidatePriorityClassUpdate` on update (`old` set). */
export function priorityClassValidate(pc: KObject, old?: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (old) {
    if (pc['value'] !== old['value']) {
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'value',
        message: 'Forbidden: may not be changed in an update.',
      });
    }
    if (pc['preemptionPolicy'] !== old['preemptionPolicy']) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'preemptionPolicy',
        message: `Invalid value: ${JSON.stringify(pc['preemptionPolicy'] ?? null)}: field is immutable`,
      });
    }
    return causes;
  }
  const name = pc.metadata.name ?? '';
  const value = Number(pc['value']);
  if (name.startsWith(SYSTEM_PREFIX)) {
    const why = notKnownSystemClass(pc);
    if (why) {
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'metadata.name',
        message: `Forbidden: priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`,
      });
    }
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'value',
      message: `Forbidden: maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
    });
  }
  const policy = pc['preemptionPolicy'];
  if (typeof policy !== 'string' || !POLICIES.includes(policy)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'preemptionPolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${POLICIES.map((p) => `"${p}"`).join(', ')}`,
    });
  }
  return causes;
}

/**
 * `getDefaultPriorityClass`: the class marked globalDefault; if a race left several, the one with
 * the lowest value, as the plugin picks it.
 */
function defaultClass(all: readonly KObject[]): KObject | undefined {
  let found: KObject | undefined;
  for (const pc of all) {
    if (pc['globalDefault'] !== true) continue;
    if (!found || Number(found['value']) > Number(pc['value'])) found = pc;
  }
  return found;
}

/** The plugin's `validatePriorityClass`: a second globalDefault is 403 Forbidden. */
export function admitPriorityClass(pc: KObject, old: KObject | undefined, store: Store): void {
  if (pc['globalDefault'] !== true) return;
  const current = defaultClass(store.list(PRIORITY_CLASSES));
  const name = pc.metadata.name ?? '';
  if (!current || (old && current.metadata.name === name)) return;
  throw forbidden(
    RESOURCE,
    name,
    `PriorityClass ${current.metadata.name ?? ''} is already marked as default. Only one default can exist`,
  );
}

/** The registry's Delete: the system classes stay. */
export function refusePriorityClassDelete(pc: KObject): StatusError | undefined {
  const name = pc.metadata.name ?? '';
  if (!systemClass(name)) return undefined;
  return forbidden(RESOURCE, name, 'this is a system priority class and cannot be deleted');
}

/**
 * A PriorityClass request through the API: the registry's delete refusal, then the Priority
 * plugin's one-default rule on create and update (it ignores subresources, as upstream).
 */
export function admitPriorityClassRequest(a: AdmissionAttributes, store: Store): void {
  if (a.resource.group !== RESOURCE.group || a.resource.resource !== RESOURCE.plural) return;
  if (a.subresource !== '') return;
  if (a.operation === 'DELETE') {
    const refusal = a.oldObject && refusePriorityClassDelete(a.oldObject);
    if (refusal) throw refusal;
  } else if (a.object && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
    admitPriorityClass(a.object, a.oldObject, store);
  }
}

type Lookup = (name: string) => KObject | undefined;

const podForbidden = (pod: KObject, why: string): StatusError =>
  new StatusError(403, 'Forbidden', `pods "${pod.metadata.name ?? ''}" is forbidden: ${why}`);

/** The Priority admission plugin on a pod create (plugin/pkg/admission/priority). */
export function resolvePodPriority(pod: KObject, classes: Lookup, all: () => KObject[]): void {
  const spec = (pod.spec ??= {});
  const name = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
  const pc = name ? (classes(name) ?? systemClass(name)) : defaultClass(all());
  if (name && !pc) throw podForbidden(pod, `no PriorityClass with name ${name} was found`);
  const value = Number(pc?.['value'] ?? 0);
  if (spec['priority'] !== undefined && spec['priority'] !== value) {
    throw podForbidden(
      pod,
      `the integer value of priority (${JSON.stringify(spec['priority'])}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
    );
  }
  spec['priority'] = value;
  if (pc && !name) spec['priorityClassName'] = pc.metadata.name;
  // Without a class the plugin computes PreemptLowerPriority all the same, and holds a pod to it.
  const policy = (pc?.['preemptionPolicy'] as string | undefined) ?? 'PreemptLowerPriority';
  const stated = spec['preemptionPolicy'];
  if (stated !== undefined && stated !== policy) {
    const text = typeof stated === 'string' ? stated : JSON.stringify(stated);
    throw podForbidden(
      pod,
      `the string value of PreemptionPolicy (${text}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
    );
  }
  spec['preemptionPolicy'] = policy;
}
