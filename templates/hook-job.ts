/**
 * A hook's Job manifest (issue 18, ADR 0021): the pod template from `hooks.<phase>` as the person
 * wrote it, made into what admission-hooks.yaml admits and nothing more — the kubemaint-hook
 * account, never retried, a deadline of the hook's timeout, placed by the scheduler (pinned to its
 * node by affinity when `onNode`, tolerating only that node's cordon), and the request it serves in
 * its env. A pure builder: typed params in, batch/v1 Job out.
 */
import type { V1Container, V1Job, V1PodTemplateSpec } from '@kubernetes/client-node';
import { hookLabel, type HookPhase } from '../src/core/hooks.js';
import {
  ANN_NODE,
  HOOK_SERVICE_ACCOUNT,
  LABEL_HOOK,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_REQUEST,
  MANAGED_BY,
  hookJobName,
} from '../src/core/names.js';
import { labelValue } from './label-value.js';

export interface HookJobParams {
  node: string;
  requestId: string;
  action: 'reboot' | 'upgrade';
  phase: HookPhase;
  namespace: string;
  /** The pod template from the config (`template`, or `container` made into one). */
  template: V1PodTemplateSpec;
  timeoutSeconds: number;
  ttlSecondsAfterFinished: number;
  /** Pin the pod to the node being maintained (affinity, so the scheduler still decides). */
  onNode: boolean;
}

export function buildHookJob(p: HookJobParams): V1Job {
  const labels = {
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_NODE]: labelValue(p.node),
    [LABEL_REQUEST]: labelValue(p.requestId),
    [LABEL_HOOK]: hookLabel(p.phase),
  };
  const annotations = { [ANN_NODE]: p.node };
  const spec = p.template.spec ?? { containers: [] };
  // What the hook is for, so one image serves every node and request.
  const env = [
    { name: 'KUBEMAINT_NODE', value: p.node },
    { name: 'KUBEMAINT_REQUEST', value: p.requestId },
    { name: 'KUBEMAINT_ACTION', value: p.action },
    { name: 'KUBEMAINT_HOOK', value: p.phase },
  ];
  const withContext = (c: V1Container): V1Container => ({
    ...c,
    env: [...(c.env ?? []).filter((e) => !env.some((k) => k.name === e.name)), ...env],
    // A failing hook's last log lines become its termination message: the reason people read.
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'FallbackToLogsOnError',
  });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: hookJobName(p.node, p.requestId, p.phase),
      namespace: p.namespace,
      labels,
      annotations,
    },
    spec: {
      // Once: a hook that failed is reported by its onFailure, not run again behind people's back.
      backoffLimit: 0,
      activeDeadlineSeconds: p.timeoutSeconds,
      ttlSecondsAfterFinished: p.ttlSecondsAfterFinished,
      template: {
        metadata: {
          ...p.template.metadata,
          labels: { ...p.template.metadata?.labels, ...labels },
          annotations: { ...p.template.metadata?.annotations, ...annotations },
        },
        spec: {
          ...spec,
          serviceAccountName: HOOK_SERVICE_ACCOUNT,
          restartPolicy: 'Never',
          containers: spec.containers.map(withContext),
          ...(spec.initContainers ? { initContainers: spec.initContainers.map(withContext) } : {}),
          ...(p.onNode ? pinnedTo(p.node, spec) : {}),
        },
      },
    },
  };
}

/** Required affinity on the node's name (as the DaemonSet controller pins), and its cordon tolerated. */
function pinnedTo(node: string, spec: NonNullable<V1PodTemplateSpec['spec']>) {
  return {
    affinity: {
      ...spec.affinity,
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
          ],
        },
      },
    },
    // afterReady runs while kubemaint still holds the node cordoned: the cordon, and only it.
    tolerations: [
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ],
  };
}
