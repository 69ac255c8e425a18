/**
 * The executor Job manifest (DESIGN §3, reference/kubernetes-semantics.md §8): a pure builder, typed
 * params in, batch/v1 Job out, no I/O. Every field that keeps a reboot to one is here and says why.
 */
import type { V1Job, V1SecurityContext } from '@kubernetes/client-node';
import {
  ANN_NODE,
  ENV_LOG_FORMAT,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_REQUEST,
  MANAGED_BY,
  jobName,
} from '../src/core/names.js';
import { labelValue } from './label-value.js';

/** The env var carrying the executor's settings as JSON (built by the control plane from its config). */
export const SETTINGS_ENV = 'KUBEMAINT_EXECUTOR_SETTINGS';

export interface ExecutorJobParams {
  node: string;
  requestId: string;
  namespace: string;
  image: string;
  serviceAccountName: string;
  /** `signal` needs only CAP_KILL; `command` needs a privileged container to nsenter into PID 1. */
  rebootMethod: 'command' | 'signal';
  /** The Job is failed (and its pod killed) after this long. */
  activeDeadlineSeconds: number;
  /** The finished Job (and its pod) is deleted after this long. */
  ttlSecondsAfterFinished: number;
  /** JSON of the ExecutorSettings, passed as-is in SETTINGS_ENV. */
  settingsJson: string;
  /** Unset: Kubernetes' own default (Always for `:latest`, else IfNotPresent). */
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** The executor container's requests and limits (`executor.resources`); unset: none. */
  resources?: ExecutorResources;
  /**
   * The pod runs by nodeName on a node that may be full: the kubelet admits a critical pod
   * (system-node-critical) by evicting lower-priority ones, and turns away an ordinary one
   * (OutOfcpu, OutOfmemory), which would leave an approved request failing. Unset: none.
   */
  priorityClassName?: string;
  /** `text` sets ENV_LOG_FORMAT in the Job; JSON is the executor's default. */
  logFormat?: 'json' | 'text';
}

export interface ExecutorResources {
  requests: { cpu: string; memory: string };
  limits: { cpu?: string; memory: string };
}

function securityContext(method: ExecutorJobParams['rebootMethod']): V1SecurityContext {
  if (method === 'signal') {
    // kill(2) on the host's PID 1 needs CAP_KILL with uid 0 (Kubernetes grants no ambient
    // capabilities, so a non-root uid could not use it); nothing else.
    return {
      runAsUser: 0,
      runAsNonRoot: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'], add: ['KILL'] },
    };
  }
  // nsenter into PID 1's mount namespace needs CAP_SYS_ADMIN and more: only privileged covers it.
  return { privileged: true, runAsUser: 0 };
}

export function buildExecutorJob(p: ExecutorJobParams): V1Job {
  const name = jobName(p.node, p.requestId);
  // A node name may be 253 characters, a label value 63: the labels carry labelValue's form (the
  // same one every selector uses), the annotation the name itself.
  const labels = {
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_NODE]: labelValue(p.node),
    [LABEL_REQUEST]: labelValue(p.requestId),
  };
  const annotations = { [ANN_NODE]: p.node };
  const field = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: p.namespace, labels, annotations },
    spec: {
      // A retry would run the host command again on a node that already rebooted (invariant 5).
      backoffLimit: 0,
      activeDeadlineSeconds: p.activeDeadlineSeconds,
      ttlSecondsAfterFinished: p.ttlSecondsAfterFinished,
      template: {
        metadata: { labels, annotations },
        spec: {
          // nodeName bypasses the scheduler, so the pod runs on the node we are about to cordon.
          nodeName: p.node,
          // Never: OnFailure would restart the container on the same node after the reboot.
          restartPolicy: 'Never',
          // The host's PID 1 is what nsenter enters and what the signal method signals.
          hostPID: true,
          serviceAccountName: p.serviceAccountName,
          // An empty key with Exists tolerates every taint, NoExecute included, with no time limit:
          // not-ready/unreachable taints while the node goes down must not evict us (invariant 7).
          tolerations: [{ operator: 'Exists' }],
          terminationGracePeriodSeconds: 30,
          ...(p.priorityClassName ? { priorityClassName: p.priorityClassName } : {}),
          containers: [
            {
              name: 'executor',
              image: p.image,
              ...(p.imagePullPolicy ? { imagePullPolicy: p.imagePullPolicy } : {}),
              args: ['executor', '--node', p.node, '--request', p.requestId],
              env: [
                { name: 'NODE_NAME', ...field('spec.nodeName') },
                { name: 'POD_NAME', ...field('metadata.name') },
                { name: 'POD_NAMESPACE', ...field('metadata.namespace') },
                { name: SETTINGS_ENV, value: p.settingsJson },
                ...(p.logFormat === 'text' ? [{ name: ENV_LOG_FORMAT, value: 'text' }] : []),
              ],
              ...(p.resources ? { resources: p.resources } : {}),
              securityContext: securityContext(p.rebootMethod),
            },
          ],
        },
      },
    },
  };
}
