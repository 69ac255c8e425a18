/**
 * PriorityClasses and the Priority admission plugin: a pod's `priorityClassName` resolves to
 * `spec.priority` (and `spec.preemptionPolicy`) when it is created, a missing class is 403 Forbidden,
 * and a pod without one gets the global default class's value or 0. The two system classes exist from
 * the start, as kube-apiserver's bootstrap creates them.
 */
import { StatusError, type KObject } from './types.js';

export const SYSTEM_PRIORITY_CLASSES: readonly KObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2_000_001_000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2_000_000_000,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

export function priorityClassDefaults(pc: KObject): void {
  pc['preemptionPolicy'] ??= 'PreemptLowerPriority';
  pc['globalDefault'] ??= false;
}

type Lookup = (name: string) => KObject | undefined;

/** The Priority admission plugin on a pod create (plugin/pkg/admission/priority). */
export function resolvePodPriority(pod: KObject, classes: Lookup, all: () => KObject[]): void {
  const spec = (pod.spec ??= {});
  const name = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
  const pc = name
    ? (classes(name) ?? SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name))
    : all().find((c) => c['globalDefault'] === true);
  if (name && !pc) {
    throw new StatusError(
      403,
      'Forbidden',
      `pods "${pod.metadata.name ?? ''}" is forbidden: no PriorityClass with name ${name} was found`,
    );
  }
  const value = Number(pc?.['value'] ?? 0);
  if (spec['priority'] !== undefined && spec['priority'] !== value) {
    throw new StatusError(
      403,
      'Forbidden',
      `pods "${pod.metadata.name ?? ''}" is forbidden: the integer value of priority (${JSON.stringify(spec['priority'])}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
    );
  }
  spec['priority'] = value;
  if (pc) {
    if (!name) spec['priorityClassName'] = pc.metadata.name;
    spec['preemptionPolicy'] ??= pc['preemptionPolicy'] ?? 'PreemptLowerPriority';
  }
}
